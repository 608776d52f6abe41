/**
 * A snapshot is the whole of one list at one commit, as values: every task's
 * frontmatter (bodies and comments are read on demand by the layer below),
 * the list's config, and the files that failed to parse. Ops read snapshots
 * and never change them.
 */
import type {WorkSession} from './work-session'
import type {Check} from './check'
import {InvalidError} from './errors'
import {type PrefixSearch, idFromSeed, idsWithPrefixIn, keyedSeed, resolveId, shardOf} from './ids'
import {QUEUED, compareForNext} from './order'
import {type Comment, FINISHED, type ListConfig, type Status, type TaskMeta} from './task'
import {wakeMsOf} from './dates'
import {titleHash} from './title'

/**
 * One task of a snapshot. `status`, `parent` and `depends_on` are copies of
 * the frontmatter fields, present whenever `meta` is: the graph and the
 * status filters read them without touching `meta`, which the store may
 * decode lazily (a 10,000-task list then decodes only what a command uses).
 */
export interface TaskEntry {
  id: string
  /** Path of the task file on the ref, e.g. tasks/3f/tsk-k3v9…/task.md. */
  path: string
  meta?: TaskMeta
  /** Why the file could not be read, when `meta` is absent. */
  error?: string
  status?: Status
  parent?: string
  depends_on?: readonly string[]
}

/** A readable entry built from a parsed frontmatter. */
export function entryOf(meta: TaskMeta, path: string): TaskEntry {
  return {id: meta.id, path, meta, status: meta.status, parent: meta.parent, depends_on: meta.depends_on}
}

export interface Snapshot {
  list: string
  /** Commit id the snapshot was read from; null before the list exists. */
  commit: string | null
  config: ListConfig
  tasks: ReadonlyMap<string, TaskEntry>
  /**
   * Lookups the store can answer without visiting every task (its index
   * keeps ids sorted and the reverse edges stored). Without them they are
   * computed from `tasks` on first use.
   */
  tables?: SnapshotTables
  /**
   * Shards (`tasks/<xx>`) that are on the ref but are not readable
   * directories (a file, a link, a damaged tree someone pushed): a task
   * directory cannot be created in them, so a new id is never minted there.
   */
  blockedShards?: ReadonlySet<string>
  /**
   * The checks of the tasks a command is about, by task id, read by the
   * layer below before the op runs (the snapshot itself holds only task
   * frontmatter). A task with no entry has no checks the op needs to know.
   */
  checks?: ReadonlyMap<string, readonly Check[]>
  /**
   * The comments of the tasks a command is about, read like `checks`
   * (`comment --key` looks for its key among them).
   */
  comments?: ReadonlyMap<string, readonly Comment[]>
  /**
   * The coordination sessions (sessions/…/session.md) by id, read by the
   * layer below for the commands that need them (the session commands,
   * `add --session`); absent: not read.
   */
  sessions?: ReadonlyMap<string, WorkSession>
}

const NO_CHECKS: readonly Check[] = Object.freeze([])

/** The checks of task `id` that were read for this command (none when not read). */
export function checksOf(snap: Snapshot, id: string): readonly Check[] {
  return snap.checks?.get(id) ?? NO_CHECKS
}

/**
 * Questions about a whole list that the core asks by id. Answers are sorted
 * ids; only entries with a status (readable files) count as children,
 * dependents or status members.
 */
export interface SnapshotTables extends PrefixSearch {
  /** Every id, sorted. */
  sortedIds(): readonly string[]
  /** Sub-items of `id`. */
  children(id: string): readonly string[]
  /** Items whose depends_on names `id`. */
  dependents(id: string): readonly string[]
  /** Ids whose status is in `statuses`. */
  idsWithStatus(statuses: ReadonlySet<string>): readonly string[]
  /** Ids whose file could not be read (no status). */
  brokenIds(): readonly string[]
  /**
   * Readable items `next` considers (status in QUEUED), in the order it
   * considers them (compareForNext): it stops at the first ready one.
   */
  nextQueue(): readonly string[]
  /**
   * The same queue, produced from its front as it is read (optional): `next`
   * stops at its first ready item, so a table that can merge lazily saves
   * building the whole queue. Same ids in the same order as nextQueue().
   */
  nextQueueFront?(): Iterable<string>
  /**
   * The items of the next queue that are reserved (assignee set), by
   * assignee, each list in queue order: `next` finds an item reserved for
   * its caller without decoding the rest of the queue.
   */
  reservations(): ReadonlyMap<string, readonly string[]>
  /**
   * Items in progress by their owner, each list sorted by id: `next`
   * resumes the caller's own claim without decoding everyone else's.
   */
  claims(): ReadonlyMap<string, readonly string[]>
  /**
   * Every open item (todo, in progress, blocked) as `list` orders it, in
   * (priority, creation time, id) order, with the graph facts its state
   * needs (`OpenRow`), and the number of finished items: a default `list`
   * page is worked out from this alone, without decoding every card.
   */
  openRows(): OpenRows
  /**
   * The ids of the open items whose canonical title hashes to `hash`
   * (core/title.ts), when this table answers it without a pass over every
   * open row: a batch's snapshot (live-overlay.ts), where every create asks
   * the same-title question. Candidates only: the caller compares the titles.
   */
  openTitled?(hash: number): Iterable<string>
  /**
   * Items in progress whose claim can run out, in the order they run out
   * (`LeaseRow`): the sweep of expired leases reads the front of it instead
   * of decoding every claim.
   */
  leases(): readonly LeaseRow[]
  /**
   * The rows of `leases()` that end before `limitMs`, in the same order,
   * without reading the rest (the cache file and its overlay read only the
   * front of the table). Optional: `leases()` serves otherwise.
   */
  leasesBefore?(limitMs: number): readonly LeaseRow[]
}

/**
 * [id, ms]: an item in progress and when its lease ends (milliseconds since
 * 1970); 0 when the claim is not live whatever the time (no owner, a lease
 * that does not parse). Claims without a lease never run out and are not
 * listed. Ordered by ms, then id.
 */
export type LeaseRow = readonly [string, number]

/** The lease row of an entry, or null when it has none (not in progress, or a claim without a lease). */
export function leaseRowOf(entry: TaskEntry): LeaseRow | null {
  if (entry.status !== 'in_progress') return null
  const meta = entry.meta
  if (!meta) return null
  if (!meta.owner) return [meta.id, 0]
  if (!meta.lease_expires) return null
  const ms = Date.parse(meta.lease_expires)
  return [meta.id, Number.isNaN(ms) ? 0 : ms]
}

export function compareLeaseRows(a: LeaseRow, b: LeaseRow): number {
  return a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
}

/** Ids of the lease rows that may have run out at `now` (given the clock-skew margin), sorted by id. */
export function expiredLeaseIds(tables: SnapshotTables, now: string, config: ListConfig): string[] {
  const limit = Date.parse(now) - config.clock_skew_seconds * 1000
  const out: string[] = []
  for (const [id, ms] of tables.leasesBefore ? tables.leasesBefore(limit) : tables.leases()) {
    if (!(ms < limit)) break
    out.push(id)
  }
  return out.sort()
}

/**
 * An open item's stored fields and graph facts, never anything that
 * depends on the clock or the caller: [id, status, priority, created_at,
 * parent, owner, assignee, lease_expires, flags, title hash], '' for an
 * absent field; flags: OPEN_ROW_WAITING (it or its parent has a dependency
 * not done) | OPEN_ROW_OPEN_SUBITEMS (a sub-item neither done nor
 * cancelled); the title hash: `titleHash` of its title (core/title.ts), what
 * the same-title check of `add` compares before reading any frontmatter;
 * the wake time (issue 33, `wakeMsOf` in dates.ts): when a deferred item
 * comes back or a scheduled one may be handed out (ms; ±Infinity for none).
 */
export type OpenRow = readonly [string, string, number, string, string, string, string, string, number, number, number]
export const OPEN_ROW_WAITING = 1
export const OPEN_ROW_OPEN_SUBITEMS = 2

export interface OpenRows {
  rows: readonly OpenRow[]
  /** Items done or cancelled. */
  finished: number
  /** Ids whose file could not be read (`brokenIds`), so that listing needs no pass over every task. */
  broken: readonly string[]
  /**
   * The same rows read field by field (the index cache file keeps them as
   * columns, so a list page reads them without one array per row); absent:
   * `openRowColumns` reads `rows`.
   */
  columns?: OpenRowColumns
}

/**
 * The open rows by position (the order of `OpenRows.rows`), one field at a
 * time: nothing is allocated to read a row's status, priority, flags,
 * owner, assignee or lease.
 */
export interface OpenRowColumns {
  readonly length: number
  id(i: number): string
  status(i: number): string
  priority(i: number): number
  created(i: number): string
  owner(i: number): string
  assignee(i: number): string
  /** When the claim's lease runs out (`Date.parse`): Infinity without a lease, NaN when it does not parse. */
  leaseEnd(i: number): number
  flags(i: number): number
  /** Position of the row of this row's parent, or -1 when it has none or its parent is not open. */
  parentRow(i: number): number
  /** The parent's id ('' for none), open or not (writing the cache file reads it). */
  parent(i: number): string
  /** The lease as stored ('' for none; writing the cache file reads it). */
  leaseText(i: number): string
  /** `titleHash` of the item's title (core/title.ts): equal hashes are candidates for the same title, to be confirmed from the frontmatter. */
  titleHash(i: number): number
  /** Issue 33: when the item may be handed out (`wakeMsOf`, dates.ts): -Infinity for no date, +Infinity for deferred without one. */
  wake(i: number): number
}

/** The columns of a set of open rows: its own, or its tuples read through. */
export function openRowColumns(open: OpenRows): OpenRowColumns {
  return open.columns ?? new RowColumns(open.rows)
}

class RowColumns implements OpenRowColumns {
  readonly length: number
  private parents: Int32Array | undefined

  constructor(private readonly rows: readonly OpenRow[]) {
    this.length = rows.length
  }

  id(i: number): string {
    return this.rows[i]![0]
  }

  status(i: number): string {
    return this.rows[i]![1]
  }

  priority(i: number): number {
    return this.rows[i]![2]
  }

  created(i: number): string {
    return this.rows[i]![3]
  }

  owner(i: number): string {
    return this.rows[i]![5]
  }

  assignee(i: number): string {
    return this.rows[i]![6]
  }

  leaseEnd(i: number): number {
    const lease = this.rows[i]![7]
    return lease === '' ? Number.POSITIVE_INFINITY : Date.parse(lease)
  }

  flags(i: number): number {
    return this.rows[i]![8]
  }

  parentRow(i: number): number {
    this.parents ??= parentRowsOf(this.rows)
    return this.parents[i]!
  }

  parent(i: number): string {
    return this.rows[i]![4]
  }

  leaseText(i: number): string {
    return this.rows[i]![7]
  }

  titleHash(i: number): number {
    return this.rows[i]![9]
  }

  wake(i: number): number {
    return this.rows[i]![10]
  }
}

/** For each row, the position of its parent's row (-1: none, or the parent is not open). */
export function parentRowsOf(rows: readonly OpenRow[]): Int32Array {
  const at = new Map<string, number>()
  rows.forEach((r, i) => at.set(r[0], i))
  const out = new Int32Array(rows.length)
  rows.forEach((r, i) => {
    out[i] = r[4] === '' ? -1 : (at.get(r[4]) ?? -1)
  })
  return out
}

const OPEN_STATUSES: ReadonlySet<string> = new Set(['todo', 'in_progress', 'blocked', 'deferred'])
const FINISHED_STATUSES: ReadonlySet<string> = new Set(FINISHED)

export function isOpenStatus(status: string | undefined): boolean {
  return status !== undefined && OPEN_STATUSES.has(status)
}

export function isFinishedStatus(status: string | undefined): boolean {
  return status !== undefined && FINISHED_STATUSES.has(status)
}

/** The row of an open entry, from the entries and their children (null when the entry is not open). */
export function openRowOf(tasks: ReadonlyMap<string, TaskEntry>, tables: Pick<SnapshotTables, 'children'>, entry: TaskEntry): OpenRow | null {
  const meta = entry.meta
  if (!meta || !OPEN_STATUSES.has(meta.status)) return null
  const notDone = (deps: readonly string[] | undefined) => (deps ?? NONE).some((d) => tasks.get(d)?.status !== 'done')
  let flags = 0
  if (notDone(meta.depends_on) || (meta.parent !== undefined && notDone(tasks.get(meta.parent)?.depends_on))) flags |= OPEN_ROW_WAITING
  if (tables.children(meta.id).some((c) => isOpenStatus(tasks.get(c)?.status))) flags |= OPEN_ROW_OPEN_SUBITEMS
  return [meta.id, meta.status, meta.priority, meta.created_at, meta.parent ?? '', meta.owner ?? '', meta.assignee ?? '', meta.lease_expires ?? '', flags, titleHash(meta.title), wakeMsOf(meta)]
}

/** The order of open rows: priority, creation time, id. */
export function compareOpenRows(a: OpenRow, b: OpenRow): number {
  return a[2] - b[2] || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
}

const NONE: readonly string[] = Object.freeze([])

/**
 * Tables computed from the entries themselves, each on first use and kept
 * (the entries never change): writing the cache file after a cold index
 * build asks for the queue twice (itself, then the reservations) and for
 * the broken ids twice (themselves, then the open rows). Ids by status are
 * worked out on each call: callers pass sets of their own, which would
 * only pile up as keys.
 */
export class ScannedTables implements SnapshotTables {
  private ids: readonly string[] | undefined
  private childMap: Map<string, string[]> | undefined
  private dependentMap: Map<string, string[]> | undefined
  private broken: readonly string[] | undefined
  private queue: readonly string[] | undefined
  private reserved: ReadonlyMap<string, readonly string[]> | undefined
  private claimed: ReadonlyMap<string, readonly string[]> | undefined
  private open: OpenRows | undefined
  private leaseRows: readonly LeaseRow[] | undefined

  constructor(private readonly tasks: ReadonlyMap<string, TaskEntry>) {}

  sortedIds(): readonly string[] {
    this.ids ??= [...this.tasks.keys()].sort()
    return this.ids
  }

  idsWithPrefix(prefix: string, limit: number): readonly string[] {
    return idsWithPrefixIn(this.sortedIds(), prefix, limit)
  }

  children(id: string): readonly string[] {
    if (!this.childMap) {
      const map = new Map<string, string[]>()
      for (const entry of this.tasks.values()) {
        const parent = entry.parent
        if (parent && entry.status) pushTo(map, parent, entry.id)
      }
      for (const list of map.values()) list.sort()
      this.childMap = map
    }
    return this.childMap.get(id) ?? NONE
  }

  dependents(id: string): readonly string[] {
    if (!this.dependentMap) {
      const map = new Map<string, string[]>()
      for (const entry of this.tasks.values()) {
        const deps = entry.depends_on
        if (deps && deps.length > 0 && entry.status) for (const dep of deps) pushTo(map, dep, entry.id)
      }
      for (const list of map.values()) list.sort()
      this.dependentMap = map
    }
    return this.dependentMap.get(id) ?? NONE
  }

  idsWithStatus(statuses: ReadonlySet<string>): readonly string[] {
    return this.sortedIds().filter((id) => {
      const status = this.tasks.get(id)!.status
      return status !== undefined && statuses.has(status)
    })
  }

  brokenIds(): readonly string[] {
    this.broken ??= this.sortedIds().filter((id) => !this.tasks.get(id)!.status)
    return this.broken
  }

  nextQueue(): readonly string[] {
    this.queue ??= this.idsWithStatus(QUEUED)
      .map((id) => this.tasks.get(id)!.meta)
      .filter((m): m is TaskMeta => !!m)
      .sort(compareForNext)
      .map((m) => m.id)
    return this.queue
  }

  reservations(): ReadonlyMap<string, readonly string[]> {
    this.reserved ??= reservationsIn(this.nextQueue(), (id) => this.tasks.get(id)?.meta?.assignee)
    return this.reserved
  }

  claims(): ReadonlyMap<string, readonly string[]> {
    this.claimed ??= reservationsIn(this.idsWithStatus(IN_PROGRESS), (id) => this.tasks.get(id)?.meta?.owner)
    return this.claimed
  }

  openRows(): OpenRows {
    if (!this.open) {
      const rows: OpenRow[] = []
      let finished = 0
      for (const entry of this.tasks.values()) {
        if (isFinishedStatus(entry.status)) finished++
        else if (isOpenStatus(entry.status)) {
          const row = openRowOf(this.tasks, this, entry)
          if (row) rows.push(row)
        }
      }
      this.open = {rows: rows.sort(compareOpenRows), finished, broken: this.brokenIds()}
    }
    return this.open
  }

  leases(): readonly LeaseRow[] {
    this.leaseRows ??= leasesIn(this.tasks.values())
    return this.leaseRows
  }
}

/** The lease rows of some entries, in order. */
export function leasesIn(entries: Iterable<TaskEntry>): LeaseRow[] {
  const out: LeaseRow[] = []
  for (const entry of entries) {
    const row = leaseRowOf(entry)
    if (row) out.push(row)
  }
  return out.sort(compareLeaseRows)
}

const IN_PROGRESS: ReadonlySet<string> = new Set(['in_progress'])

/** Ids grouped by a field (the assignee of queued items, the owner of claimed ones), each group in the order given. */
export function reservationsIn(queue: readonly string[], assigneeOf: (id: string) => string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const id of queue) {
    const who = assigneeOf(id)
    if (who) pushTo(out, who, id)
  }
  return out
}

const scannedCache = new WeakMap<Snapshot, SnapshotTables>()

/** The snapshot's tables: the store's own, else computed once per snapshot. */
export function tablesOf(snap: Snapshot): SnapshotTables {
  if (snap.tables) return snap.tables
  let t = scannedCache.get(snap)
  if (!t) {
    t = new ScannedTables(snap.tasks)
    scannedCache.set(snap, t)
  }
  return t
}

/** Add `value` to the list `map` holds at `key` (a new list when none). */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

/** Resolve a typed id or prefix to a stored id (throws not found / ambiguous). */
export function resolve(snap: Snapshot, input: string): string {
  return resolveId(input, tablesOf(snap))
}

/** The frontmatter of a task that exists; a broken file is an invalid-input error naming its path. */
export function taskMeta(snap: Snapshot, id: string): TaskMeta {
  const entry = snap.tasks.get(id)
  if (!entry) throw new Error(`internal: ${id} is not in the snapshot`)
  if (!entry.meta) {
    throw new InvalidError('broken_task_file', `${entry.path} cannot be read: ${entry.error}. Fix or remove the file on the ref.`, {
      id,
      path: entry.path,
      reason: entry.error,
    })
  }
  return entry.meta
}

/** Whether `id`'s directory would go in a shard the ref holds as something other than a directory (`blockedShards`). */
export function shardBlocked(snap: Snapshot, id: string): boolean {
  return snap.blockedShards?.has(shardOf(id)) ?? false
}

/**
 * The id of the item idempotency key `key` makes on this list (`add --key`,
 * the next instance of a repeating item, a scenario's seed, an imported
 * Taskwarrior task): the first id of the list's keyed seed that no other
 * item holds and whose shard the ref can hold. The item the key made
 * earlier keeps its id, so a retry finds it. `alsoTaken` refuses ids handed
 * out earlier in the same plan.
 */
export function keyedId(snap: Snapshot, key: string, alsoTaken?: (id: string) => boolean): string {
  return idFromSeed(keyedSeed(snap.list, key), (candidate) => {
    if (alsoTaken?.(candidate)) return true
    const existing = snap.tasks.get(candidate)
    return (existing !== undefined && existing.meta?.key !== key) || shardBlocked(snap, candidate)
  })
}

/** A new item's id from the caller's random entropy: the first one no item holds and whose shard the ref can hold. */
export function freshId(snap: Snapshot, entropy: string): string {
  return idFromSeed(`random\0${entropy}`, (candidate) => snap.tasks.has(candidate) || shardBlocked(snap, candidate))
}

/** Resolve input and return the task's frontmatter. */
export function lookup(snap: Snapshot, input: string): TaskMeta {
  return taskMeta(snap, resolve(snap, input))
}

export function childrenOf(snap: Snapshot, id: string): TaskMeta[] {
  return metasOf(snap, tablesOf(snap).children(id))
}

export function dependentsOf(snap: Snapshot, id: string): TaskMeta[] {
  return metasOf(snap, tablesOf(snap).dependents(id))
}

function metasOf(snap: Snapshot, ids: readonly string[]): TaskMeta[] {
  return ids.map((c) => snap.tasks.get(c)?.meta).filter((m): m is TaskMeta => !!m)
}

/** Readable tasks whose status is in `statuses`, in id order; others are not decoded. */
export function tasksWithStatus(snap: Snapshot, statuses: ReadonlySet<string>): TaskMeta[] {
  return metasOf(snap, tablesOf(snap).idsWithStatus(statuses))
}

/** Ids of a task's sub-items (no decoding). */
export function childIds(snap: Snapshot, id: string): readonly string[] {
  return tablesOf(snap).children(id)
}

/** Files that could not be read, for reporting by path. */
export function brokenEntries(snap: Snapshot): TaskEntry[] {
  return tablesOf(snap)
    .brokenIds()
    .map((id) => snap.tasks.get(id)!)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}
