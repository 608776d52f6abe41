/**
 * What finishing a card other than by `done` does: `cancel` and `fail` are
 * one op (`closeTask`), parameterised by the move (the rulebook's
 * CLOSING_MOVES gives the status it leaves; REASON_FIELD the field that
 * keeps the reason). Both cancel every unfinished descendant with the
 * card, clearing what a finished card no longer has (a lease, a block note,
 * whom it was parked on). One piece, so the two cannot drift apart.
 */
import {wokenMeta} from '../dates'
import {ConflictError} from '../errors'
import {openDescendants} from '../nesting'
import type {OpContext, Plan} from '../plan'
import {type Snapshot, lookup} from '../snapshot'
import {FINISHED, type TaskMeta} from '../task'
import {CLOSING_MOVES, type ClosingMove} from '../state-machine'
import {checkNote} from '../validation'
import {assertMove, overrideTrailers} from './permission'
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

/** Where each closing move keeps its reason; the status it leaves is the rulebook's (CLOSING_MOVES). */
const REASON_FIELD: Record<ClosingMove, 'cancel_reason' | 'fail_reason'> = {cancel: 'cancel_reason', fail: 'fail_reason'}

export interface CloseArgs {
  id: string
  reason: string
  /** The fencing token of the actor's claim on the card (`--epoch`). */
  epoch?: number
}

/**
 * Close an open card by `move` (`cancel`, `fail`) for `reason`: its own
 * fencing token checked and the rulebook asked, its unfinished descendants
 * cancelled with it in the same commit (not fenced one by one). The op is
 * named after the move, and records the reason (Tasks-Reason).
 */
export function closeTask(snap: Snapshot, ctx: OpContext, move: ClosingMove, args: CloseArgs): Plan<{task: TaskMeta; subitems: TaskMeta[]}> {
  const status = CLOSING_MOVES[move]
  const meta = wokenMeta(lookup(snap, args.id), ctx.now)
  const reason = checkNote('reason', args.reason, snap.config)
  if (FINISHED.has(meta.status)) throw new ConflictError('not_open', `${meta.id} is already ${meta.status}`, {id: meta.id, status: meta.status})
  const own = assertMove(snap, meta, ctx, move, move, args.epoch).overridden
  const kids = cancelOpenDescendants(snap, ctx, meta, status, reason, move)
  const forced = own || kids.forced
  const closed = revise(meta, ctx, {status, [REASON_FIELD[move]]: reason, ...FINISH_CLEARS, closed_at: ctx.now})
  return {
    op: move,
    subject: {id: meta.id, title: meta.title},
    changes: [closed, ...kids.cancelled].map((m) => ({kind: 'put-task' as const, meta: m})),
    trailers: [['Tasks-Reason', reason], ...(forced ? overrideTrailers(ctx) : [])],
    result: {task: closed, subitems: kids.cancelled},
  }
}
