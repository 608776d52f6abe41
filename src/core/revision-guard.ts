/**
 * Optimistic edits (`--if-revision N`): a change that was decided from a
 * read of a card applies only while the card is still at the revision that
 * was read. The check runs inside the pure op, on the snapshot the commit
 * (or, online, the push) is leased on, so a lost race that re-runs the op
 * refuses a now-stale revision instead of silently applying it on top of
 * someone else's change. Never reads or writes anything itself.
 *
 * Every mutation that changes what a card says takes the guard the same
 * way: call `assertRevision` first in the op, or wrap an op with
 * `guardRevision` (batch forms, other commands).
 */
import {ConflictError} from './errors'
import type {OpContext, Plan} from './plan'
import {type Snapshot, lookup} from './snapshot'
import type {TaskMeta} from './task'

/**
 * Throws `revision_mismatch` (exit 4) unless `expected` is undefined or is
 * the card's current revision. The error names the current revision and
 * who changed the card last, and when; the app layer may add the commits
 * since (`changes_since`) from history.
 */
export function assertRevision(meta: TaskMeta, expected: number | undefined): void {
  if (expected === undefined || expected === meta.revision) return
  const since = meta.revision - expected
  const what =
    since > 0
      ? `changed ${since} time${since === 1 ? '' : 's'} since, last by ${meta.updated_by} at ${meta.updated_at}`
      : `revision ${expected} is newer than the card (last changed by ${meta.updated_by} at ${meta.updated_at})`
  throw new ConflictError(
    'revision_mismatch',
    `${meta.id} is at revision ${meta.revision}, not ${expected}: it was ${what}. Nothing was written; read it again (\`tasks show ${meta.id}\`) and retry with --if-revision ${meta.revision}`,
    {id: meta.id, revision: meta.revision, expected, updated_by: meta.updated_by, updated_at: meta.updated_at},
  )
}

/**
 * `op` with the revision check of card `id` in front of it: the op runs
 * only when the card (resolved on the same snapshot) is at `expected`.
 * With `expected` undefined, `op` itself.
 */
export function guardRevision<R>(id: string, expected: number | undefined, op: (snap: Snapshot, ctx: OpContext) => Plan<R>): (snap: Snapshot, ctx: OpContext) => Plan<R> {
  if (expected === undefined) return op
  return (snap, ctx) => {
    assertRevision(lookup(snap, id), expected)
    return op(snap, ctx)
  }
}
