/**
 * Derived states, never stored: whether a claim is still live, which
 * dependencies an item waits on (WHY BLOCKED), and whether it is ready for a
 * given actor. Everything takes `now` as a value so it is testable.
 */
import {type Snapshot, childIds} from './snapshot'
import {FINISHED, type ListConfig, type TaskMeta} from './task'

/** Reasons an item is not workable yet, in the order they are shown. */
export interface WaitReason {
  /** The dependency id, or the sub-item id for parents. */
  id: string
  /** Its status, or "missing" for a dangling edge, or "unreadable" for a broken file. */
  status: string
}

/**
 * A claim is live until its lease has expired by more than the configured
 * clock-skew margin, judged on the acting machine's clock. A claim without a
 * lease never expires.
 */
export function claimIsLive(meta: TaskMeta, now: string, config: ListConfig): boolean {
  if (!meta.owner) return false
  if (meta.status !== 'in_progress' && meta.status !== 'blocked') return false
  if (!meta.lease_expires) return true
  return Date.parse(now) <= Date.parse(meta.lease_expires) + config.clock_skew_seconds * 1000
}

/** Dependencies that are not done yet (missing and unreadable ones included). */
export function unfinishedDependencies(snap: Snapshot, meta: TaskMeta): WaitReason[] {
  const out: WaitReason[] = []
  for (const dep of meta.depends_on) {
    const entry = snap.tasks.get(dep)
    if (!entry) out.push({id: dep, status: 'missing'})
    else if (!entry.status) out.push({id: dep, status: 'unreadable'})
    else if (entry.status !== 'done') out.push({id: dep, status: entry.status})
  }
  return out
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
 * Ready: todo, every dependency done, and not reserved for someone else.
 * An in-progress item whose lease has expired is ready again (it may be
 * reclaimed, with epoch + 1). `unfinished`: the item's unfinished
 * dependencies when the caller has them already.
 */
export function isReady(snap: Snapshot, meta: TaskMeta, actor: string | undefined, now: string, unfinished?: readonly WaitReason[]): boolean {
  const open = meta.status === 'todo' || (meta.status === 'in_progress' && !claimIsLive(meta, now, snap.config))
  return open && reservationAllows(meta, actor) && (unfinished ?? unfinishedDependencies(snap, meta)).length === 0
}

/** Waiting: has unfinished dependencies (whatever its status, unless it is finished). */
export function isWaiting(snap: Snapshot, meta: TaskMeta, unfinished?: readonly WaitReason[]): boolean {
  return !FINISHED.has(meta.status) && (unfinished ?? unfinishedDependencies(snap, meta)).length > 0
}

export {cmp, compareForNext} from './order'

