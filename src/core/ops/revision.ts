/**
 * Bookkeeping every change to a task file does: revision + 1 and who/when.
 */
import type {OpContext} from '../plan'
import type {TaskMeta} from '../task'
import {checkLease, timestampOf} from '../validation'

/** A copy of `meta` with `changes` applied and the revision bumped. */
export function revise(meta: TaskMeta, ctx: OpContext, changes: Partial<TaskMeta>): TaskMeta {
  return {...meta, ...changes, revision: meta.revision + 1, updated_at: ctx.now, updated_by: ctx.actor}
}

/** Lease expiry `seconds` after `now`, ISO-8601 UTC; a lease out of bounds or ending after year 9999 is refused. */
export function leaseUntil(now: string, seconds: number): string {
  return timestampOf(Date.parse(now) + checkLease(seconds) * 1000, 'lease expiry')
}

/** The claim fields cleared, as a partial to spread into revise(). */
export const NO_CLAIM: Partial<TaskMeta> = {
  owner: undefined,
  // A merge's record of the claim's earlier epochs ends with the claim (docs/merge.md).
  claim_epochs: undefined,
  claimed_at: undefined,
  lease_expires: undefined,
  session: undefined,
  block_note: undefined,
  blocked_on: undefined,
}

/** The flag fields cleared, as a partial to spread into revise(). */
export const NO_FLAG: Partial<TaskMeta> = {flag_reason: undefined, flagged_by: undefined, flagged_at: undefined}
