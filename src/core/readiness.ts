/**
 * Derived states, never stored: whether a claim is still live, which
 * dependencies an item waits on (WHY BLOCKED), and whether it is ready for a
 * given actor. Everything takes `now` as a value so it is testable.
 */
import {OPEN_ROW_OPEN_SUBITEMS, OPEN_ROW_WAITING, type OpenRow, type OpenRowColumns, type Snapshot, childIds, tablesOf} from './snapshot'
import {UsageError} from './errors'
import {splitValues} from './flag-values'
import {FINISHED, type ListConfig, type TaskMeta} from './task'
import {notYetScheduled, wokenStatus} from './dates'

/** Reasons an item is not workable yet, in the order they are shown. */
export interface WaitReason {
  /** The dependency id. */
  id: string
  /** Its status, or "missing" for a dangling edge, or "unreadable" for a broken file. */
  status: string
  /** The parent whose dependency this is (a sub-item waits for its parent's dependencies), or null for the item's own. */
  via: string | null
}

/**
 * The live-claim rule, once: a claim is live while the item is held
 * (in_progress or blocked, with an owner) and its lease has not expired by
 * more than the configured clock-skew margin, judged on the acting
 * machine's clock. `leaseEndMs` is the lease's end in milliseconds,
 * `Infinity` for a claim without a lease (it never expires). Every reader
 * of claims (cards, open rows, the streamed listing, the guard) asks this.
 */
export function claimLiveAt(owner: string | null | undefined, status: string, leaseEndMs: number, nowMs: number, config: Pick<ListConfig, 'clock_skew_seconds'>): boolean {
  if (!owner) return false
  if (status !== 'in_progress' && status !== 'blocked') return false
  return nowMs <= leaseEndMs + config.clock_skew_seconds * 1000
}

/** The lease's end in milliseconds: `Infinity` for none. */
export function leaseEndMs(lease: string | null | undefined): number {
  return lease ? Date.parse(lease) : Number.POSITIVE_INFINITY
}

/** `claimLiveAt` of a card's frontmatter at `now` (ISO-8601). */
export function claimIsLive(meta: TaskMeta, now: string, config: ListConfig): boolean {
  return claimLiveAt(meta.owner, meta.status, leaseEndMs(meta.lease_expires), Date.parse(now), config)
}

const BLOCKED: ReadonlySet<string> = new Set(['blocked'])

/**
 * The cards `actor` holds with a live claim at `now` (`claimIsLive`: in
 * progress or blocked, lease not run out), `except` left out, in id order:
 * what `max_claims_per_actor` counts (state-machine.ts, `claimLimitAllows`).
 * In-progress cards come from the claims table (nobody else's are decoded);
 * blocked ones are few.
 */
export function liveClaimsOf(snap: Snapshot, actor: string, now: string, config: ListConfig, except?: string): TaskMeta[] {
  const tables = tablesOf(snap)
  const ids = [...(tables.claims().get(actor) ?? []), ...tables.idsWithStatus(BLOCKED)]
  const out: TaskMeta[] = []
  for (const id of ids) {
    if (id === except) continue
    const meta = snap.tasks.get(id)?.meta
    if (meta && meta.owner === actor && claimIsLive(meta, now, config)) out.push(meta)
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** Dependencies that are not done yet (missing and unreadable ones included). */
export function unfinishedDependencies(snap: Snapshot, meta: TaskMeta): WaitReason[] {
  const out: WaitReason[] = []
  for (const dep of meta.depends_on) {
    const entry = snap.tasks.get(dep)
    if (!entry) out.push({id: dep, status: 'missing', via: null})
    else if (!entry.status) out.push({id: dep, status: 'unreadable', via: null})
    else if (entry.status !== 'done') out.push({id: dep, status: entry.status, via: null})
  }
  return out
}

/**
 * Everything an item waits on (WHY BLOCKED): its own unfinished
 * dependencies, then those of its parent (a sub-item is part of its parent's
 * work, so it cannot start before the parent could), each marked `via` the
 * parent. The one source of "waiting" for list, show, next, claim and done.
 */
export function waitReasons(snap: Snapshot, meta: TaskMeta): WaitReason[] {
  const own = unfinishedDependencies(snap, meta)
  const parent = meta.parent ? snap.tasks.get(meta.parent)?.meta : undefined
  if (!parent) return own
  const seen = new Set(own.map((r) => r.id))
  for (const r of unfinishedDependencies(snap, parent)) {
    if (!seen.has(r.id)) own.push({...r, via: parent.id})
  }
  return own
}

/** A readable task that is neither done nor cancelled (no decoding). */
function isOpen(snap: Snapshot, id: string): boolean {
  const status = snap.tasks.get(id)?.status
  return status !== undefined && !FINISHED.has(status)
}

/** Sub-items that are neither done nor cancelled. */
export function openSubItems(snap: Snapshot, id: string): TaskMeta[] {
  return childIds(snap, id)
    .filter((c) => isOpen(snap, c))
    .map((c) => snap.tasks.get(c)!.meta!)
}

/** True when the task has a sub-item that is neither done nor cancelled (no decoding). */
export function hasOpenSubItems(snap: Snapshot, id: string): boolean {
  return childIds(snap, id).some((c) => isOpen(snap, c))
}

/** True when `actor` may take the item under the assignee reservation. */
export function reservationAllows(meta: TaskMeta, actor: string | undefined): boolean {
  return !meta.assignee || meta.assignee === actor
}

/**
 * Ready, the one predicate behind `next`, `list --ready`, `show` and the
 * JSON `ready` field: todo (or in progress with an expired lease, which may
 * be reclaimed with epoch + 1), nothing to wait on (`waitReasons`: its own
 * dependencies and its parent's), not reserved for someone else, and not a
 * parent with open sub-items (the sub-items are the work). `reasons`: the
 * item's wait reasons when the caller has them already.
 */
export function isReady(snap: Snapshot, meta: TaskMeta, actor: string | undefined, now: string, reasons?: readonly WaitReason[]): boolean {
  // Issue 33: a deferral whose time has come reads as todo; a deferred or scheduled item is not handed out before its time (dates.ts).
  const nowMs = Date.parse(now)
  const status = wokenStatus(meta, nowMs)
  const open = (status === 'todo' || (status === 'in_progress' && !claimIsLive(meta, now, snap.config))) && !notYetScheduled(meta, nowMs)
  return open && reservationAllows(meta, actor) && (reasons ?? waitReasons(snap, meta)).length === 0 && !hasOpenSubItems(snap, meta.id)
}

/** Waiting: something to wait on (`waitReasons`), whatever its status, unless it is finished. */
export function isWaiting(snap: Snapshot, meta: TaskMeta, reasons?: readonly WaitReason[]): boolean {
  return !FINISHED.has(meta.status) && (reasons ?? waitReasons(snap, meta)).length > 0
}

/**
 * The one vocabulary of states a person sees and filters by (the STATUS
 * column, `list --status`, the JSON `state`): the stored status refined by
 * what is derived. todo is ready, waiting, reserved (for someone else) or
 * plain todo (a parent whose sub-items are the work); in_progress is
 * in_progress or stale (lease expired).
 */
export const STATES = ['ready', 'waiting', 'reserved', 'todo', 'in_progress', 'stale', 'blocked', 'done', 'cancelled', 'deferred', 'failed'] as const
export type State = (typeof STATES)[number]

/**
 * The groups `--status` accepts besides the states themselves (`list`,
 * `search`): open (everything not finished), all, and a stored status that
 * several states refine (todo, in_progress).
 */
export const STATE_GROUPS: Readonly<Record<string, readonly State[]>> = {
  open: ['ready', 'waiting', 'reserved', 'todo', 'in_progress', 'stale', 'blocked', 'deferred'],
  all: STATES,
  todo: ['ready', 'waiting', 'reserved', 'todo'],
  in_progress: ['in_progress', 'stale'],
}

/**
 * The state of an item from its status and what was derived for it.
 * `nowMs`: a deferred item whose time has come is todo again (dates.ts,
 * `wokenStatus`); without it the stored status is taken as it is.
 */
export function stateOf(meta: TaskMeta, derived: {ready: boolean; waiting: boolean; claimLive: boolean}, actor: string | undefined, nowMs?: number): State {
  const status = nowMs === undefined ? meta.status : wokenStatus(meta, nowMs)
  if (status === 'todo') return derived.waiting ? 'waiting' : derived.ready ? 'ready' : !reservationAllows(meta, actor) ? 'reserved' : 'todo'
  if (meta.status === 'in_progress') return derived.claimLive ? 'in_progress' : 'stale'
  return meta.status
}

/** True when an item has something to wait on (`waitReasons` non-empty), without building the reasons. */
export function hasWaitReasons(snap: Snapshot, meta: TaskMeta): boolean {
  if (hasUnfinishedDependency(snap, meta.depends_on)) return true
  const parent = meta.parent ? snap.tasks.get(meta.parent)?.meta : undefined
  return parent !== undefined && hasUnfinishedDependency(snap, parent.depends_on)
}

function hasUnfinishedDependency(snap: Snapshot, deps: readonly string[]): boolean {
  for (const dep of deps) if (snap.tasks.get(dep)?.status !== 'done') return true
  return false
}

/**
 * The state and readiness of an item, exactly as a full view would derive
 * them, without building the view (no wait-reason objects, no short ids):
 * what `list` needs to filter, count and order every row before it renders
 * one page.
 */
export function derivedState(snap: Snapshot, meta: TaskMeta, actor: string | undefined, now: string): {state: State; ready: boolean} {
  const waits = hasWaitReasons(snap, meta)
  const nowMs = Date.parse(now)
  const status = wokenStatus(meta, nowMs)
  const waiting = !FINISHED.has(meta.status) && status !== 'deferred' && waits
  const claimLive = claimIsLive(meta, now, snap.config)
  const open = (status === 'todo' || (status === 'in_progress' && !claimLive)) && !notYetScheduled(meta, nowMs)
  const ready = open && reservationAllows(meta, actor) && !waits && !hasOpenSubItems(snap, meta.id)
  return {state: stateOf(meta, {ready, waiting, claimLive}, actor, nowMs), ready}
}

/**
 * `derivedState` of an open item from its open row (`SnapshotTables.openRows`):
 * the same answer from the stored fields and the graph facts the index keeps,
 * without the item's frontmatter or its neighbours. `nowMs`: `Date.parse(now)`.
 */
export function openRowState(row: OpenRow, actor: string | undefined, nowMs: number, config: ListConfig): {state: State; ready: boolean} {
  const owner = row[5]
  const assignee = row[6]
  const lease = row[7]
  const flags = row[8]
  // Issue 33: the row's wake time (dates.ts, `wakeMsOf`): a deferred row whose time has come is todo.
  const wake = row[10]
  const status = row[1] === 'deferred' && wake <= nowMs ? 'todo' : row[1]
  const waits = (flags & OPEN_ROW_WAITING) !== 0
  const claimLive = claimLiveAt(owner, status, leaseEndMs(lease), nowMs, config)
  const allows = assignee === '' || assignee === actor
  const open = (status === 'todo' || (status === 'in_progress' && !claimLive)) && wake <= nowMs
  const ready = open && allows && !waits && (flags & OPEN_ROW_OPEN_SUBITEMS) === 0
  const state: State = status === 'todo' ? (waits ? 'waiting' : ready ? 'ready' : !allows ? 'reserved' : 'todo') : status === 'in_progress' ? (claimLive ? 'in_progress' : 'stale') : (status as State)
  return {state, ready}
}

/**
 * `openRowState` of the row at position `i` of `cols`, read field by field:
 * the same answer, with nothing allocated. Returns the state; `readyOut[0]`
 * says whether it is ready.
 */
export function openRowStateAt(cols: OpenRowColumns, i: number, actor: string | undefined, nowMs: number, config: ListConfig, readyOut: boolean[]): State {
  // openRowState, reading only the fields the row's status needs.
  let status = cols.status(i)
  const flags = cols.flags(i)
  const waits = (flags & OPEN_ROW_WAITING) !== 0
  // Issue 33: the row's wake time (dates.ts, `wakeMsOf`): deferred until it, or scheduled for it.
  const wake = cols.wake(i)
  if (status === 'deferred' && wake <= nowMs) status = 'todo'
  const free = !waits && (flags & OPEN_ROW_OPEN_SUBITEMS) === 0 && wake <= nowMs
  if (status === 'todo') {
    const assignee = cols.assignee(i)
    const allows = assignee === '' || assignee === actor
    const ready = allows && free
    readyOut[0] = ready
    return waits ? 'waiting' : ready ? 'ready' : !allows ? 'reserved' : 'todo'
  }
  if (status === 'in_progress') {
    const claimLive = claimLiveAt(cols.owner(i), status, cols.leaseEnd(i), nowMs, config)
    if (claimLive) {
      readyOut[0] = false
      return 'in_progress'
    }
    const assignee = cols.assignee(i)
    readyOut[0] = (assignee === '' || assignee === actor) && free
    return 'stale'
  }
  // Blocked, deferred (or any other stored status): never ready, its state is its status.
  readyOut[0] = false
  return status as State
}

export {cmp, compareForNext} from './order'

/**
 * The states `--status` names (states or groups, repeatable and
 * comma-separated), or null when it names none. An unknown word is a
 * usage error (`bad_status`).
 */
export function statesNamed(values: readonly string[] | undefined): Set<State> | null {
  const parts = splitValues(values)
  if (parts.length === 0) return null
  const out = new Set<State>()
  for (const part of parts) {
    const group = STATE_GROUPS[part] ?? ((STATES as readonly string[]).includes(part) ? [part as State] : null)
    if (!group) throw new UsageError(`"${part}" is not a state: use ${STATES.join(', ')}, or open or all`, {status: part}, 'bad_status')
    for (const st of group) out.add(st)
  }
  return out
}
