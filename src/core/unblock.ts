/**
 * Unblocking (issue 33, graith's "unblocked" event): when the last open
 * dependency of a todo item is finished, the item is bumped (revision + 1,
 * nothing else) in the same commit, and the commit names it in a
 * `Tasks-Unblocked: <id>` trailer, from which `tasks events` derives
 * `{"event":"unblocked","id":…,"status":"todo","revision":N}`.
 *
 * One rule, `newlyUnblocked`, used by the transaction (every op's plan,
 * `withUnblocked`), by the sync merge (two clones that each finished one of
 * the last dependencies: the merge makes the transition, once) and by the
 * guard (a revision-only bump by someone other than the card's last editor
 * is allowed exactly when this rule says the commit unblocked the card).
 *
 * The bump changes nothing but the revision, so two clones that finish the
 * same last dependency write the same file for the dependent and the merge
 * keeps one revision (one transition). Pure.
 */
import {withChanges} from './apply'
import type {Plan} from './plan'
import {waitReasons} from './readiness'
import {type Snapshot, tablesOf} from './snapshot'
import type {TaskMeta} from './task'

export const UNBLOCKED_TRAILER = 'Tasks-Unblocked'

/** Ops whose commits are not judged for unblocking: an import writes cards as a document had them; an undo puts cards back as they were. */
const NOT_UNBLOCKING: ReadonlySet<string> = new Set(['import', 'undo'])

/**
 * The items finishing `finished` can unblock: their dependents and those
 * dependents' sub-items (a sub-item waits for its parent's dependencies too,
 * `waitReasons`), sorted.
 */
export function unblockCandidates(snap: Snapshot, finished: Iterable<string>): string[] {
  const tables = tablesOf(snap)
  const out = new Set<string>()
  for (const id of finished) {
    for (const d of tables.dependents(id)) {
      out.add(d)
      for (const c of tables.children(d)) out.add(c)
    }
  }
  return [...out].sort()
}

function waits(snap: Snapshot, id: string): boolean {
  const meta = snap.tasks.get(id)?.meta
  return meta !== undefined && waitReasons(snap, meta).length > 0
}

/**
 * The rule: `id` is todo and waits on nothing in `after`, and waited on
 * something in every snapshot of `before` (so no side had already made the
 * transition). Returns the ids of `candidates` for which it holds, sorted.
 */
export function newlyUnblocked(before: readonly Snapshot[], after: Snapshot, candidates: Iterable<string>): string[] {
  const out: string[] = []
  for (const id of new Set(candidates)) {
    const meta = after.tasks.get(id)?.meta
    if (!meta || meta.status !== 'todo' || waitReasons(after, meta).length > 0) continue
    if (before.length > 0 && before.every((b) => waits(b, id))) out.push(id)
  }
  return out.sort()
}

/** The bump: the revision goes up by one; who and when stay the last real edit's. */
export function unblockBump(meta: TaskMeta): TaskMeta {
  return {...meta, revision: meta.revision + 1}
}

/** True when `after` is `before` with only the revision raised by one (an unblock bump, as the guard sees it). */
export function isBumpOnly(before: TaskMeta, after: TaskMeta): boolean {
  if (after.revision !== before.revision + 1) return false
  return JSON.stringify({...before, revision: 0}) === JSON.stringify({...after, revision: 0})
}

/** Ids the plan's trailers name as unblocked. */
export function unblockedIn(trailers: ReadonlyArray<readonly [string, string]>): string[] {
  return trailers.filter(([k]) => k === UNBLOCKED_TRAILER).map(([, v]) => v)
}

/**
 * The plan with its unblocking added: every item a dependency of which the
 * plan finishes (done in the plan's result, not done before) and that the
 * rule says it unblocks gets the bump and a `Tasks-Unblocked` trailer. A
 * plan that finishes nothing is returned as it is.
 */
export function withUnblocked<R>(snap: Snapshot, plan: Plan<R>): Plan<R> {
  if (NOT_UNBLOCKING.has(plan.op)) return plan
  const finished: string[] = []
  for (const c of plan.changes) {
    if (c.kind === 'put-task' && c.meta.status === 'done' && snap.tasks.get(c.meta.id)?.status !== 'done') finished.push(c.meta.id)
  }
  if (finished.length === 0) return plan
  const after = withChanges(snap, plan.changes)
  const ids = newlyUnblocked([snap], after, unblockCandidates(after, finished))
  if (ids.length === 0) return plan
  const bumps = ids.map((id) => ({kind: 'put-task' as const, meta: unblockBump(after.tasks.get(id)!.meta!)}))
  return {...plan, changes: [...plan.changes, ...bumps], trailers: [...plan.trailers, ...ids.map((id) => [UNBLOCKED_TRAILER, id] as [string, string])]}
}
