/**
 * The reads of `list` and `show`: which rows a listing holds (states,
 * filters, sort keys, cursors), in what order, paged, from the open-row
 * columns of the index or streamed whole from the index file
 * (list-stream.ts); and one card in full.
 */
import {dueBefore, isOverdue, parseDateInput, startMs} from '../core/dates'
import {InvalidError, UsageError} from '../core/errors'
import {ME, splitValues} from '../core/flag-values'
import {warnTrackingState} from './sharing'
import {partitionPoint} from '../core/order'
import {latestCheckpoint} from '../core/ops/checkpoint'
import {OPEN_ROW_OPEN_SUBITEMS, type OpenRowColumns, brokenEntries, childIds, childrenOf, dependentsOf, lookup, openRowColumns, tablesOf} from '../core/snapshot'
import {DEFAULT_TASK_TYPE, type ListConfig, type Status, TASK_TYPES, type TaskMeta} from '../core/task'
import {type TaskDetail, TaskViewer, type TaskView} from '../core/task-view'
import {cmp, openRowStateAt, STATE_GROUPS, STATES, type State, statesNamed} from '../core/readiness'
import {checkPriority, checkTags} from '../core/validation'
import type {Loaded} from '../refstore/list-store'
import {IndexFile} from '../refstore/task-index'
import {type StreamedListing, streamedListing} from './list-stream'
import type {Session} from './session'
import {sortChecks} from '../core/check'
import {viewer} from './task-results'
import {resolveSessionFilter} from './work-session-actions'
import {fieldsMatch, parseFieldFilters} from '../core/fields'

export interface ListFilters {
  /** States or groups (`STATES`, open, all), each value comma-separated too. */
  status?: string[]
  tags?: string[]
  /** An actor, or @me. */
  owner?: string
  /** An actor, or @me. */
  assignee?: string
  /** Only blocked cards parked on this actor (`block --on`), or @me: their decision queue. */
  blockedOn?: string
  ready?: boolean
  all?: boolean
  /** Only the sub-items of this task. */
  parent?: string
  /** Only the tasks of this coordination session (id or prefix). */
  session?: string
  /** Priorities, comma-separated too. */
  priority?: string[]
  /** Task types (TASK_TYPES), comma-separated too. */
  type?: string[]
  /** Issue 33: custom field filters, KEY=VALUE each (all must match). */
  field?: string[]
  /** A sort key (`LIST_SORTS`), `-` in front to reverse. */
  sort?: string
  /** Rows asked for; capped at the list's `list_limit`. 0: every row when `unbounded`, else `list_limit` rows. */
  limit?: number
  /** The rows of a page when no limit is asked for (default: the list's `list_limit`); MCP asks for a small page. */
  defaultLimit?: number
  /** `limit: 0` asks for every row (the command line's `--limit 0`); elsewhere it is capped at `list_limit`. */
  unbounded?: boolean
  offset?: number
  /** A `next_cursor` from the previous page: continue after its last row. */
  after?: string
  /**
   * Leave `tasks` empty and give the page as `pageViews(result)` instead,
   * built a batch at a time by whoever writes it (`list --json` streams a
   * whole list this way, so its views never all exist at once).
   */
  lazy?: boolean
  /** Issue 33: only open items past their due date (`isOverdue`, core/dates.ts). */
  overdue?: boolean
  /** Issue 33: only items due before this date (YYYY-MM-DD, a timestamp, today, +3d …). */
  dueBefore?: string
}

/** The page of a lazy `list` (ListFilters.lazy): its length and its views, built on demand for [from, to). */
export interface LazyPage {
  length: number
  views(from: number, to: number): Array<TaskView & {depth: number}>
  /** The views at [from, to) as UTF-8 JSON joined by commas, when the page can write them without building them (list-stream.ts). */
  bytes?(from: number, to: number): Buffer
  /** Told that a buffer `bytes` returned has been written: its memory may serve a later batch. */
  written?(batch: Buffer): void
  /** Rows `bytes` has written so far by viewing their task the ordinary way (the tests watch it). */
  viewed?(): number
}

const LAZY_PAGES = new WeakMap<ListResult, LazyPage>()

/** The page of a result of a lazy `list`, or undefined when its `tasks` hold it. */
export function lazyPageOf(result: ListResult): LazyPage | undefined {
  return LAZY_PAGES.get(result)
}

export interface ListSummary {
  /** Rows matching the filters, before --limit/--offset. */
  total: number
  /** Matching rows per state. */
  by_state: Partial<Record<State, number>>
  /** Done and cancelled items the default (open) view left out; null when other filters were given or they were asked for. */
  hidden_finished: number | null
}

export interface ListResult {
  list: string
  commit: string
  tasks: Array<TaskView & {depth: number}>
  broken: Array<{path: string; error: string}>
  warnings: string[]
  /** Matching rows before --limit/--offset (tasks is one page of them). */
  total: number
  offset: number
  limit: number | null
  /** Pass to `--after` for the page that follows this one; null when this page reaches the end. */
  next_cursor: string | null
  summary: ListSummary
}

/** The stored statuses an item in each state has. */
const STORED: Record<State, Status> = {ready: 'todo', waiting: 'todo', reserved: 'todo', todo: 'todo', in_progress: 'in_progress', stale: 'in_progress', blocked: 'blocked', done: 'done', cancelled: 'cancelled', deferred: 'deferred', failed: 'failed'}

export const LIST_SORTS = ['priority', 'created', 'updated', 'id', 'title', 'state'] as const
const STATE_RANK: Record<State, number> = {in_progress: 0, stale: 1, blocked: 2, ready: 3, waiting: 4, reserved: 5, todo: 6, deferred: 7, done: 8, cancelled: 9, failed: 10}
/** Ranks below this are the open states (the open rows table holds every item in them). */
const FIRST_FINISHED_RANK = 8
const STATES_BY_RANK: readonly State[] = (Object.keys(STATE_RANK) as State[]).sort((a, b) => STATE_RANK[a] - STATE_RANK[b])

function wantedStates(values: readonly string[] | undefined, all: boolean | undefined): Set<State> {
  return statesNamed(values) ?? new Set(all ? STATES : STATE_GROUPS.open)
}

/** What list orders and filters by: the stored fields and the derived state, no view yet. */
interface ListRow {
  id: string
  /** Absent when the row came from the open rows table: decoded only if the row is shown. */
  meta?: TaskMeta
  /** The row's parent id, '' for none. */
  parent: string
  state: State
  ready: boolean
  /** The row's sort key (see `sortKey`), computed once. */
  key: SortKey
}

/** A row's place in an order: compared element by element (numbers by value, strings by code unit); every key ends with the id, so no two rows tie. */
type SortKey = Array<number | string>

function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    const c = typeof x === 'number' ? x - (y as number) : cmp(x, y as string)
    if (c !== 0) return c
  }
  return 0
}

/** The key of `--sort` (default: state, then priority, then age) and its direction. */
function sortKey(sort: string | undefined): {key: (meta: TaskMeta, state: State) => SortKey; sign: number} {
  const name = (sort ?? 'priority').replace(/^-/, '')
  const sign = sort?.startsWith('-') ? -1 : 1
  const by: Record<string, (m: TaskMeta, state: State) => SortKey> = {
    priority: (m, st) => [m.priority, STATE_RANK[st], m.created_at, m.id],
    state: (m, st) => [STATE_RANK[st], m.priority, m.created_at, m.id],
    created: (m) => [m.created_at, m.id],
    updated: (m) => [m.updated_at, m.id],
    id: (m) => [m.id],
    title: (m) => [m.title.toLowerCase(), m.id],
  }
  const f = by[name]
  if (!f) throw new UsageError(`"${sort}" is not a sort key: use ${LIST_SORTS.join(', ')} (- in front to reverse)`, {sort}, 'bad_sort')
  // The default order groups by state first (what is being worked on, then what can be); an explicit key sorts by it.
  return {key: sort === undefined ? by.state! : f, sign}
}

/**
 * Where a page ended, for `--after`: the sort it was taken in and the keys
 * of its last row (the top-level row, and the sub-item when the row was
 * one). Rows are compared with it by value, so items added, changed or
 * removed between pages never make a later page repeat or skip a row that
 * kept its place in the order.
 */
interface Cursor {
  sort: string | null
  top: SortKey
  child: SortKey | null
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.top, c.child])).toString('base64url')
}

function decodeCursor(text: string, sort: string | undefined): Cursor {
  const bad = (why: string) => new UsageError(`--cursor ${JSON.stringify(text)} is not a cursor from this listing (${why}); pass the next_cursor of the previous page, with the same --sort`, {after: text}, 'bad_cursor')
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    throw bad('it does not decode')
  }
  const isKey = (k: unknown): k is SortKey => Array.isArray(k) && k.length > 0 && k.every((x) => typeof x === 'number' || typeof x === 'string')
  if (!Array.isArray(parsed) || parsed.length !== 3 || !isKey(parsed[1]) || !(parsed[2] === null || isKey(parsed[2]))) throw bad('it does not decode')
  const [cursorSort, top, child] = parsed as [unknown, SortKey, SortKey | null]
  if (cursorSort !== (sort ?? null)) throw bad(`it was taken with ${cursorSort === null ? 'the default order' : `--sort ${String(cursorSort)}`}`)
  const shape = sortKey(sort).key({id: '', priority: 0, created_at: '', updated_at: '', title: ''} as TaskMeta, 'todo')
  const fits = (k: SortKey) => k.length === shape.length && k.every((x, i) => typeof x === typeof shape[i])
  if (!fits(top) || (child !== null && !fits(child))) throw bad('its keys do not fit the order')
  return {sort: sort ?? null, top, child}
}

/** The matching rows of a listing in order, counted, and read a slice at a time. */
interface Listing {
  total: number
  byState: Partial<Record<State, number>>
  /** Position of the first row after the cursor (the total when none is). */
  firstAfter(cursor: Cursor): number
  slice(from: number, to: number): Array<{row: ListRow; depth: number; top: ListRow}>
}

/** What rankOpenRows keeps: the state rank of each row (NOT_LISTED when filtered out), whether it is ready, and whether listed rows nest under it. */
interface RankedRows {
  rank: Uint8Array
  ready: Uint8Array
  /** 1: the row is listed and has open sub-items, so listed rows under it are nested. */
  parentListed: Uint8Array
}

const NOT_LISTED = 255

interface RowFilter {
  owner: string | undefined
  assignee: string | undefined
  priorities: ReadonlySet<number>
  ready: boolean
  wanted: Uint8Array
  actor: string | undefined
  nowMs: number
  config: ListConfig
}

/** The state rank of open row i, or NOT_LISTED when the filters leave it out; readyOut[0] says whether it is ready. */
function rowRank(cols: OpenRowColumns, i: number, o: RowFilter, readyOut: boolean[]): number {
  if (o.owner !== undefined && (cols.owner(i) === '' || cols.owner(i) !== o.owner)) return NOT_LISTED
  if (o.assignee !== undefined && (cols.assignee(i) === '' || cols.assignee(i) !== o.assignee)) return NOT_LISTED
  if (o.priorities.size > 0 && !o.priorities.has(cols.priority(i))) return NOT_LISTED
  const r = STATE_RANK[openRowStateAt(cols, i, o.actor, o.nowMs, o.config, readyOut)]
  return o.wanted[r] !== 1 || (o.ready && !readyOut[0]) ? NOT_LISTED : r
}

/** The state of every open row and whether the filters keep it: one pass, nothing allocated per row. */
function rankOpenRows(cols: OpenRowColumns, o: RowFilter): RankedRows {
  const n = cols.length
  const rank = new Uint8Array(n).fill(NOT_LISTED)
  const ready = new Uint8Array(n)
  const parentListed = new Uint8Array(n)
  const readyOut = [false]
  for (let i = 0; i < n; i++) {
    const r = rowRank(cols, i, o, readyOut)
    if (r === NOT_LISTED) continue
    rank[i] = r
    ready[i] = readyOut[0] ? 1 : 0
    // Only an item with open sub-items can be the parent of a listed row (every listed row is open).
    if ((cols.flags(i) & OPEN_ROW_OPEN_SUBITEMS) !== 0) parentListed[i] = 1
  }
  return {rank, ready, parentListed}
}

/**
 * The listing of ranked open rows: top-level rows by (state, then table
 * order), each followed by the listed rows nested under it in the same
 * order. Counts come from the ranks; positions in the listing are worked
 * out only up to the rows asked for.
 */
function openListing(cols: OpenRowColumns, {rank, ready, parentListed}: RankedRows): Listing {
  const n = cols.length
  const perRank = new Int32Array(FIRST_FINISHED_RANK + 1)
  /** Sub-items by the row of their parent, in listing order. */
  const kids = new Map<number, number[]>()
  const nested = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    if (rank[i] === NOT_LISTED) continue
    const p = cols.parentRow(i)
    if (p !== -1 && parentListed[p] === 1) nested[i] = 1
    else perRank[rank[i]! + 1]!++
  }
  // Top-level rows, placed by a counting sort on the rank (stable: table order within a state).
  for (let r = 1; r <= FIRST_FINISHED_RANK; r++) perRank[r]! += perRank[r - 1]!
  const topCount = perRank[FIRST_FINISHED_RANK]!
  const tops = new Int32Array(topCount)
  const topIndex = new Int32Array(n).fill(-1)
  for (let i = 0; i < n; i++) {
    if (rank[i] === NOT_LISTED || nested[i] === 1) continue
    const at = perRank[rank[i]!]!++
    tops[at] = i
    topIndex[i] = at
  }
  // Sub-items in (state, table order), grouped by parent.
  const nestedByRank: number[][] = Array.from({length: FIRST_FINISHED_RANK}, () => [])
  for (let i = 0; i < n; i++) if (nested[i] === 1) nestedByRank[rank[i]!]!.push(i)
  for (const group of nestedByRank) {
    for (const i of group) {
      const p = cols.parentRow(i)
      const list = kids.get(p)
      if (list) list.push(i)
      else kids.set(p, [i])
    }
  }
  // Sub-items of a row that is itself nested are not listed (one level of nesting, as always).
  const counts = new Int32Array(FIRST_FINISHED_RANK)
  for (let k = 0; k < topCount; k++) counts[rank[tops[k]!]!]!++
  let total = topCount
  for (const [p, list] of kids) {
    if (topIndex[p] === -1) continue
    total += list.length
    for (const c of list) counts[rank[c]!]!++
  }
  // Where each top-level row that has listed sub-items stands: the position of the k-th top-level row is k
  // plus the sub-items of those before it.
  const withKids = [...kids].filter(([p]) => topIndex[p] !== -1).map(([p, list]) => ({k: topIndex[p]!, list}))
  withKids.sort((x, y) => x.k - y.k)
  const kidsBefore = new Int32Array(withKids.length + 1)
  withKids.forEach((w, j) => {
    kidsBefore[j + 1] = kidsBefore[j]! + w.list.length
  })
  /** Entries of withKids whose top-level row comes before the k-th. */
  const entriesBefore = (k: number): number => partitionPoint(0, withKids.length, (i) => withKids[i]!.k < k)
  const positionOfTop = (k: number): number => k + kidsBefore[entriesBefore(k)]!
  // by_state lists the states in the order they first appear in the listing: for each state, the first
  // top-level row in it or the first sub-item in it, whichever comes first.
  const firstAt = new Float64Array(FIRST_FINISHED_RANK).fill(Number.POSITIVE_INFINITY)
  let start = 0
  for (let r = 0; r < FIRST_FINISHED_RANK; r++) {
    if (perRank[r]! > start) firstAt[r] = positionOfTop(start)
    start = perRank[r]!
  }
  withKids.forEach((w, j) => {
    w.list.forEach((c, m) => {
      const at = w.k + kidsBefore[j]! + 1 + m
      if (at < firstAt[rank[c]!]!) firstAt[rank[c]!] = at
    })
  })
  const byState: Partial<Record<State, number>> = {}
  const order = [...Array(FIRST_FINISHED_RANK).keys()].filter((r) => counts[r]! > 0).sort((x, y) => firstAt[x]! - firstAt[y]!)
  for (const r of order) byState[STATES_BY_RANK[r]!] = counts[r]!
  const keyOf = (i: number): SortKey => [rank[i]!, cols.priority(i), cols.created(i), cols.id(i)]
  const rowAt = (i: number): ListRow => ({id: cols.id(i), parent: '', state: STATES_BY_RANK[rank[i]!]!, ready: ready[i] === 1, key: keyOf(i)})
  return {
    total,
    byState,
    firstAfter: (c) => {
      // Top-level rows are in key order: find the first whose key is not below the cursor's.
      const lo = partitionPoint(0, topCount, (i) => compareKeys(keyOf(tops[i]!), c.top) < 0)
      if (lo === topCount) return total
      const at = positionOfTop(lo)
      if (compareKeys(keyOf(tops[lo]!), c.top) !== 0) return at
      // The cursor's own top-level row: continue with its sub-items after the cursor's.
      const subs = kids.get(tops[lo]!) ?? []
      for (let k = 0; k < subs.length; k++) if (c.child === null || compareKeys(keyOf(subs[k]!), c.child) > 0) return at + 1 + k
      return at + 1 + subs.length
    },
    slice: (from, to) => {
      const out: Array<{row: ListRow; depth: number; top: ListRow}> = []
      // The last top-level row that starts at or before `from`, then row by row.
      let k = Math.max(0, partitionPoint(0, topCount, (i) => positionOfTop(i) <= from) - 1)
      let at = positionOfTop(k)
      const end = Math.min(to, total)
      while (at < end && k < topCount) {
        const t = tops[k++]!
        const top = rowAt(t)
        if (at++ >= from) out.push({row: top, depth: 0, top})
        for (const c of kids.get(t) ?? []) {
          if (at >= end) break
          if (at++ >= from) out.push({row: rowAt(c), depth: 1, top})
        }
      }
      return out
    },
  }
}

/**
 * The streamed listing of `list --json` when it takes in finished items in
 * the default order with filters the tables answer (states, priorities,
 * --ready) and the index is the cache file itself; null otherwise (then the
 * cards are decoded and listed the ordinary way).
 */
function streamWhole(
  loaded: Loaded,
  v: TaskViewer,
  f: ListFilters,
  o: {states: ReadonlySet<State>; owner: string | undefined; assignee: string | undefined; tags: readonly string[]; parent: string | undefined; priorities: ReadonlySet<number>; types: ReadonlySet<string>},
): StreamedListing | null {
  const file = loaded.index.base
  if (!(file instanceof IndexFile)) return null
  if (f.sort !== undefined || f.after !== undefined || f.session !== undefined || o.tags.length > 0 || o.parent !== undefined || o.owner !== undefined || o.assignee !== undefined || o.types.size > 0) return null
  // The streamed listing nests one level (a sub-item's own sub-items are not placed): deeper lists are listed card by card.
  if (loaded.snapshot.config.max_depth > 1) return null
  // Open items only: a whole listing streams too (every open card would be decoded otherwise); a page is
  // cheaper from the open rows table alone than from a pass over the file.
  if (!o.states.has('done') && !o.states.has('cancelled') && (f.limit !== undefined || f.offset !== undefined)) return null
  const snap = loaded.snapshot
  // The open rows are the file's list section's, merged with those the changes since it affect (list-stream.ts).
  const wanted = new Uint8Array(FIRST_FINISHED_RANK)
  for (const st of o.states) if (STATE_RANK[st] < FIRST_FINISHED_RANK) wanted[STATE_RANK[st]] = 1
  const nowMs = Date.parse(v.now)
  const filter: RowFilter = {owner: undefined, assignee: undefined, priorities: o.priorities, ready: f.ready === true, wanted, actor: v.actor, nowMs, config: snap.config}
  const rankOf = (cols: OpenRowColumns, i: number, readyOut: boolean[]): number => rowRank(cols, i, filter, readyOut)
  return streamedListing({
    file,
    changes: loaded.index.changes,
    snap,
    viewer: v,
    rankOf,
    notListed: NOT_LISTED,
    statesByRank: STATES_BY_RANK,
    // Finished items are never ready.
    done: o.states.has('done') && f.ready !== true,
    cancelled: o.states.has('cancelled') && f.ready !== true,
    priorities: o.priorities,
    nowMs,
    config: snap.config,
  })
}

/** Whether a listing is narrowed by a filter (then its summary does not count the finished items it hides). */
function narrowedListing(f: ListFilters, tags: readonly string[], owner: string | undefined, assignee: string | undefined, parent: string | undefined, priorities: ReadonlySet<number>): boolean {
  return Boolean(f.status?.length || f.all || f.ready || f.overdue || f.dueBefore !== undefined || f.session !== undefined || f.blockedOn !== undefined || tags.length || f.type?.length || f.field?.length || owner !== undefined || assignee !== undefined || parent !== undefined || priorities.size > 0)
}

/**
 * The rows one page holds: what was asked for (else `defaultLimit`, else
 * the list's `list_limit`), never more than `list_limit`, except that
 * `limit: 0` with `unbounded` is every row (undefined).
 */
export function pageLimit(f: {limit?: number; defaultLimit?: number; unbounded?: boolean}, listLimit: number): number | undefined {
  if (f.limit === 0) return f.unbounded ? undefined : listLimit
  return Math.min(f.limit ?? f.defaultLimit ?? listLimit, listLimit)
}

/** The deepest a row is listed (the largest max_depth). */
const MAX_LISTED_DEPTH = 4

/** A type for `list --type`: any of TASK_TYPES (the list may allow fewer, but may hold cards of others from before). */
function checkListedType(value: string): string {
  const type = value.trim().toLowerCase()
  if (!(TASK_TYPES as readonly string[]).includes(type)) throw new InvalidError('bad_type', `"${value}" is not a task type: use ${TASK_TYPES.join(', ')}`, {type: value, allowed: [...TASK_TYPES]})
  return type
}

/** Views built at once beyond which every short id is worked out in one pass instead of one search each. */
const VIEWS_BEFORE_ALL_SHORT_IDS = 2000

/**
 * Every matching row is filtered, counted and ordered from its stored
 * fields and derived state (`ListRow`); the full view (short ids, wait
 * reasons, sub-items) is built only for the rows of the page.
 */
export async function list(session: Session, f: ListFilters): Promise<ListResult> {
  const loaded = await session.store.load()
  const snap = loaded.snapshot
  const v = await viewer(session, snap)
  const actor = v.actor
  const me = (who: string | undefined) => (who === ME ? (actor ?? '') : who)
  const owner = me(f.owner)
  const assignee = me(f.assignee)
  const blockedOn = me(f.blockedOn)
  const states = wantedStates(f.status, f.all)
  const priorities = new Set(splitValues(f.priority).map((p) => checkPriority(p)))
  const tags = f.tags?.length ? checkTags(f.tags) : []
  const types = new Set(splitValues(f.type).map((t) => checkListedType(t)))
  // Custom fields are in the cards' frontmatter only: a field filter lists card by card, the default listing never reads them.
  const fieldFilters = f.field?.length ? parseFieldFilters(f.field, snap.config) : []
  const parent = f.parent === undefined ? undefined : lookup(snap, f.parent).id
  const workSession = f.session === undefined ? undefined : await resolveSessionFilter(session, loaded, f.session)
  const {key, sign} = sortKey(f.sort)
  const order = (a: ListRow, b: ListRow) => sign * compareKeys(a.key, b.key)
  if (f.after !== undefined && f.offset !== undefined) throw new UsageError('--cursor and --offset cannot be used together: --cursor continues from a cursor, --offset counts rows', {}, 'usage')
  const cursor = f.after === undefined ? undefined : decodeCursor(f.after, f.sort)
  const limit = pageLimit(f, snap.config.list_limit)
  const scan = new Set<string>([...states].map((st) => STORED[st]))
  // Issue 33: the date filters read the cards' due dates, so they list card by card (below).
  const nowMs = Date.parse(v.now)
  const dueLimit = f.dueBefore === undefined ? undefined : startMs(parseDateInput(f.dueBefore, v.now, '--due-before'))
  const byDate = f.overdue === true || dueLimit !== undefined
  const matches = (t: TaskMeta): boolean =>
    (f.overdue !== true || isOverdue(t, nowMs)) &&
    (dueLimit === undefined || dueBefore(t, dueLimit)) &&
    tags.every((tag) => t.tags.includes(tag)) &&
    (owner === undefined || t.owner === owner) &&
    (assignee === undefined || t.assignee === assignee) &&
    (blockedOn === undefined || t.blocked_on === blockedOn) &&
    (parent === undefined || t.parent === parent) &&
    (workSession === undefined || t.work_session === workSession) &&
    (priorities.size === 0 || priorities.has(t.priority)) &&
    (types.size === 0 || types.has(t.type ?? DEFAULT_TASK_TYPE)) &&
    (fieldFilters.length === 0 || fieldsMatch(t.fields, fieldFilters))
  type Placed = {row: ListRow; depth: number; top: ListRow}
  // Parked cards, custom fields and dates are found card by card (the tables hold none of them): never streamed, never from the open rows alone.
  const streamed = f.lazy && !byDate && blockedOn === undefined && fieldFilters.length === 0 ? streamWhole(loaded, v, {...f, limit: f.limit === 0 && f.unbounded ? undefined : f.limit}, {states, owner, assignee, tags, parent, priorities, types}) : null
  if (streamed) {
    // A whole listing with finished items, written from the index file a batch at a time (list-stream.ts).
    const offset = f.offset ?? 0
    const end = Math.min(streamed.total, limit === undefined ? streamed.total : offset + limit)
    const length = Math.max(0, end - offset)
    const lastKeys = length > 0 && end < streamed.total ? streamed.keysAt(end - 1) : null
    const bytes = (from: number, to: number) => streamed.bytes(offset + from, offset + Math.min(to, length), offset + length)
    const lazy: LazyPage = {length, views: (from, to) => JSON.parse(`[${bytes(from, to).toString('utf8')}]`) as Array<TaskView & {depth: number}>, bytes, written: (b) => streamed.written(b), viewed: () => streamed.viewed()}
    await warnTrackingState(session)
    const result: ListResult = {
      list: session.list,
      commit: loaded.index.commit,
      tasks: [],
      broken: brokenFiles(loaded),
      warnings: loaded.index.warnings,
      total: streamed.total,
      offset,
      limit: limit ?? null,
      next_cursor: lastKeys ? encodeCursor({sort: null, top: lastKeys.top, child: lastKeys.depth === 0 ? null : lastKeys.row}) : null,
      summary: {total: streamed.total, by_state: streamed.byState, hidden_finished: narrowedListing(f, tags, owner, assignee, parent, priorities) ? null : tablesOf(snap).openRows().finished},
    }
    LAZY_PAGES.set(result, lazy)
    return result
  }
  let listing: Listing
  // The open rows table nests one level and holds no types: a type filter, or a list whose sub-items nest deeper, is listed card by card.
  if (f.sort === undefined && !byDate && tags.length === 0 && types.size === 0 && blockedOn === undefined && fieldFilters.length === 0 && snap.config.max_depth <= 1 && parent === undefined && workSession === undefined && [...states].every((st) => STATE_RANK[st] < FIRST_FINISHED_RANK)) {
    // The default order over open items: from the open rows table, already in (priority, created, id) order,
    // so taking the rows state by state orders them (state, priority, created, id) without a sort. Rows are
    // read field by field (`OpenRowColumns`); objects are made only for the rows shown.
    const cols = openRowColumns(tablesOf(snap).openRows())
    const wanted = new Uint8Array(FIRST_FINISHED_RANK)
    for (const st of states) if (STATE_RANK[st] < FIRST_FINISHED_RANK) wanted[STATE_RANK[st]] = 1
    const ranks = rankOpenRows(cols, {owner, assignee, priorities, ready: f.ready === true, wanted, actor, nowMs: Date.parse(v.now), config: snap.config})
    listing = openListing(cols, ranks)
  } else {
    const rows: Placed[] = []
    // Cards are decoded one id at a time (not as one array of every card first); the views of a lazy page
    // are built a batch at a time as it is written.
    const candidates: readonly string[] = parent === undefined ? tablesOf(snap).idsWithStatus(scan) : childrenOf(snap, parent).filter((t) => scan.has(t.status)).map((t) => t.id)
    const matching = new Map<string, ListRow>()
    for (const id of candidates) {
      const meta = snap.tasks.get(id)?.meta
      if (!meta || !matches(meta)) continue
      const {state, ready} = v.state(meta)
      if (states.has(state) && (!f.ready || ready)) matching.set(meta.id, {id: meta.id, meta, parent: meta.parent ?? '', state, ready, key: key(meta, state)})
    }
    const tops = [...matching.values()].filter((t) => !(t.parent && matching.has(t.parent))).sort(order)
    // Each top-level row, then its sub-items, each followed by its own (as deep as max_depth lets them nest).
    const placed = new Set<string>()
    const place = (t: ListRow, depth: number, top: ListRow): void => {
      if (placed.has(t.id)) return
      placed.add(t.id)
      rows.push({row: t, depth, top})
      if (depth >= MAX_LISTED_DEPTH) return
      const kids = childIds(snap, t.id).flatMap((c) => matching.get(c) ?? [])
      for (const c of kids.sort(order)) place(c, depth + 1, top)
    }
    for (const t of tops) place(t, 0, t)
    /** Rows after the cursor: a later top-level row, or a later sub-item of the cursor's own top-level row. */
    const afterCursor = (r: Placed, c: Cursor): boolean => {
      const d = sign * compareKeys(r.top.key, c.top)
      if (d !== 0) return d > 0
      if (r.depth === 0) return false
      return c.child === null || sign * compareKeys(r.row.key, c.child) > 0
    }
    const byState: Partial<Record<State, number>> = {}
    for (const r of rows) byState[r.row.state] = (byState[r.row.state] ?? 0) + 1
    listing = {
      total: rows.length,
      byState,
      firstAfter: (c) => {
        // Nested deeper than one level, a top-level row's sub-items are in tree order, not key order: the row the
        // cursor names, where it still is, is the place to continue from.
        if (c.child !== null) {
          const child = c.child
          const exact = rows.findIndex((r) => r.depth > 0 && compareKeys(r.top.key, c.top) === 0 && compareKeys(r.row.key, child) === 0)
          if (exact !== -1) return exact + 1
        }
        const at = rows.findIndex((r) => afterCursor(r, c))
        return at === -1 ? rows.length : at
      },
      slice: (from, to) => rows.slice(from, to),
    }
  }
  const total = listing.total
  const byState = listing.byState
  const narrowed = narrowedListing(f, tags, owner, assignee, parent, priorities)
  let offset = f.offset ?? 0
  if (cursor) offset = listing.firstAfter(cursor)
  const pageRows = listing.slice(offset, limit === undefined ? total : offset + limit)
  const last = pageRows.at(-1)
  const nextCursor = last && offset + pageRows.length < total ? encodeCursor({sort: f.sort ?? null, top: last.top.key, child: last.depth === 0 ? null : last.row.key}) : null
  if (pageRows.length > VIEWS_BEFORE_ALL_SHORT_IDS) v.allShortIds()
  const viewOf = (r: (typeof pageRows)[number]) => Object.assign(v.view(r.row.meta ?? snap.tasks.get(r.row.id)!.meta!), {depth: r.depth})
  const lazy: LazyPage | undefined = f.lazy ? {length: pageRows.length, views: (from, to) => pageRows.slice(from, to).map(viewOf)} : undefined
  await warnTrackingState(session)
  const result: ListResult = {
    list: session.list,
    commit: loaded.index.commit,
    tasks: lazy ? [] : pageRows.map(viewOf),
    broken: brokenFiles(loaded),
    warnings: loaded.index.warnings,
    total,
    offset,
    limit: limit ?? null,
    next_cursor: nextCursor,
    summary: {
      total,
      by_state: byState,
      hidden_finished: narrowed ? null : tablesOf(snap).openRows().finished,
    },
  }
  if (lazy) LAZY_PAGES.set(result, lazy)
  return result
}

export type ShowResult = TaskDetail & {history?: import('../refstore/history').HistoryEvent[]; revisions?: import('../core/spec-revisions').SpecRevision[]}

export async function show(session: Session, {id}: {id: string}): Promise<ShowResult> {
  // The card's files are read through the batch reader: start it while the index is read.
  session.store.reader.warm()
  const loaded = await session.store.load()
  const snap = loaded.snapshot
  const meta = lookup(snap, id)
  const v = await viewer(session, snap)
  // Both at once, the directory by the id the index has: their reads share round trips to git.
  const dir = (snap.tasks.get(meta.id) as {dir?: unknown} | undefined)?.dir
  const [detail, checks] = await Promise.all([
    session.store.readDetail(loaded.index.commit, meta.id, typeof dir === 'string' ? dir : undefined),
    session.store.readChecks(loaded.index.commit, [meta.id]),
  ])
  // Said once the read succeeded: a failing read prints its error alone.
  await warnTrackingState(session)
  const brief = (t: TaskMeta | {id: string; missing: 'missing' | 'unreadable'}) =>
    'missing' in t ? {id: t.id, short_id: t.id, title: `(${t.missing})`, status: t.missing} : {id: t.id, short_id: v.shortId(t.id), title: t.title, status: t.status}
  return {
    checkpoint: latestCheckpoint(detail.comments),
    task: v.view(meta),
    body: detail.body,
    comments: detail.comments,
    dependencies: meta.depends_on.map((d) => brief(snap.tasks.get(d)?.meta ?? {id: d, missing: snap.tasks.has(d) ? 'unreadable' : 'missing'})),
    dependents: dependentsOf(snap, meta.id).map(brief),
    subitems: childrenOf(snap, meta.id).map(brief),
    checks: sortChecks(checks.checks.get(meta.id) ?? []),
    broken: [...detail.broken, ...checks.broken],
  }
}

/** The files of the list that could not be read, by path. */
export function brokenFiles(loaded: Loaded): Array<{path: string; error: string}> {
  const cards = brokenEntries(loaded.snapshot).map((e) => ({path: e.path, error: e.error ?? 'unreadable'}))
  const strays = loaded.index.strays.map((s) => ({path: s.path, error: s.error}))
  return [...cards, ...strays].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}
