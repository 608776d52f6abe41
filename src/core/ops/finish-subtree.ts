/**
 * What finishing a card other than by `done` does to its subtree: `cancel`
 * and `fail` both cancel every unfinished descendant with it, clearing what
 * a finished card no longer has (a lease, a block note, whom it was parked
 * on). One piece, so the two cannot drift apart.
 */
import {wokenMeta} from '../dates'
import {openDescendants} from '../nesting'
import type {OpContext} from '../plan'
import type {Snapshot} from '../snapshot'
import type {TaskMeta} from '../task'
import {assertMove} from './permission'
import {revise} from './revision'

/** The fields a card finished by cancel or fail drops, beside its status and closing time. */
export const FINISH_CLEARS = {lease_expires: undefined, block_note: undefined, blocked_on: undefined} as const

/**
 * Every open descendant of `meta` (deferrals whose time has come read as
 * todo), each judged as a cancel by the rulebook, cancelled because `meta`
 * was `what` ("cancelled", "failed") for `reason`; `forced` when any of them
 * needed the override.
 */
export function cancelOpenDescendants(snap: Snapshot, ctx: OpContext, meta: TaskMeta, what: string, reason: string, op: string): {cancelled: TaskMeta[]; forced: boolean} {
  let forced = false
  const kids = openDescendants(snap, meta.id).map((t) => wokenMeta(t, ctx.now))
  for (const t of kids) if (assertMove(snap, t, ctx, 'cancel', op, null).overridden) forced = true
  const cancelled = kids.map((t) => revise(t, ctx, {status: 'cancelled', cancel_reason: `${t.parent === meta.id ? 'parent' : 'ancestor'} ${meta.id} ${what}: ${reason}`, ...FINISH_CLEARS, closed_at: ctx.now}))
  return {cancelled, forced}
}
