/**
 * The ops' side of the rulebook (core/state-machine.ts): who may act on an
 * item, asked of `judgeMove`, and the errors a refusal becomes. The claim
 * holder acts freely; anyone else needs --force with a reason, which the
 * commit records as a Tasks-Override trailer. When config.yaml lists
 * admins, only they may force. Also the fencing check and the readiness
 * checks a claim makes.
 */
import {notYetScheduled} from '../dates'
import {ConflictError, NotPermittedError, UsageError} from '../errors'
import {claimIsLive, liveClaimsOf, openSubItems, reservationAllows, waitReasons, type WaitReason} from '../readiness'
import type {Snapshot} from '../snapshot'
import {openDescendants} from '../nesting'
import type {TaskMeta} from '../task'
import type {OpContext} from '../plan'
import {type Standing, type TaskMoveName, type Verdict, claimLimitAllows, judgeMove, mayOverride, standingOf, taskMove} from '../state-machine'

/** Trailers that record an override, or none. */
export function overrideTrailers(ctx: OpContext): Array<[string, string]> {
  return ctx.force ? [['Tasks-Override', ctx.force.reason]] : []
}

/** Throws unless the actor may use --force on this list (`mayOverride`: the admins, when config.yaml lists them). */
export function assertMayForce(snap: Snapshot, ctx: OpContext, action: string, id: string): void {
  const admins = snap.config.admins
  if (!mayOverride(ctx.actor, admins)) {
    throw new NotPermittedError('not_admin', `only the admins listed in config.yaml may ${action} ${id} with --force`, {
      id,
      admins,
    })
  }
}

/**
 * The fencing check: `epoch`, when given, must be the item's current epoch,
 * whoever holds it now (or nobody: released or reopened since). The owner
 * of a claim that a merge renumbered (`claim_epochs`, docs/merge.md) may
 * also present the numbers it was handed out under; nobody else may.
 */
export function assertEpoch(meta: TaskMeta, epoch: number | undefined, actor?: string): void {
  if (epoch === undefined || epoch === meta.epoch) return
  const earlier = meta.claim_epochs
  if (actor !== undefined && actor === meta.owner && earlier && earlier[earlier.length - 1] === meta.epoch && earlier.includes(epoch)) return
  throw new NotPermittedError('stale_epoch', `your claim on ${meta.id} is stale: it is at epoch ${meta.epoch} (${meta.owner ? `held by ${meta.owner}` : 'not claimed'}), you hold epoch ${epoch}`, {
    id: meta.id,
    epoch: meta.epoch,
    your_epoch: epoch,
    owner: meta.owner ?? null,
  })
}

/** Whether the actor is an agent for require_epoch: a call through `tasks mcp`, or one made with an agent session (--session, TASKS_SESSION). */
export function actsAsAgent(ctx: OpContext): boolean {
  return ctx.agent === true || ctx.session !== undefined
}

/**
 * The fencing of an owner mutation on `meta`: `epoch`, when given, must be
 * the card's current epoch (`assertEpoch`); and when the list sets
 * require_epoch, an agent acting on a card it holds must give it
 * (`epoch_required`, exit 2, nothing written). Acting on a card someone
 * else holds, or nobody, needs no token: there is no claim of the actor's
 * to fence.
 */
export function assertFence(snap: Snapshot, meta: TaskMeta, ctx: OpContext, epoch: number | undefined, action: string): void {
  assertEpoch(meta, epoch, ctx.actor)
  if (epoch !== undefined || !snap.config.require_epoch || !actsAsAgent(ctx)) return
  if (meta.owner !== ctx.actor || (meta.status !== 'in_progress' && meta.status !== 'blocked')) return
  throw new UsageError(`this list requires the fencing token from agents (require_epoch): ${action} ${meta.id} with --epoch, the epoch your claim returned; nothing was written`, {id: meta.id}, 'epoch_required')
}

/** Where the op's actor stands towards `meta`: --force is the override it asks for. */
export function standing(snap: Snapshot, meta: TaskMeta, ctx: OpContext): Standing {
  return standingOf(meta, ctx.actor, ctx.now, snap.config, ctx.force !== undefined)
}

/**
 * Validate `move` on `meta` through the rulebook (core/state-machine.ts)
 * and return the verdict when it is allowed. Someone else's card without
 * an override is `not_owner`, an override by someone who is not an admin
 * `not_admin`. `epoch`, when given, must match the current fencing token,
 * and an agent must give it under require_epoch (`assertFence`; checked
 * first: it says more).
 */
export function assertMove(snap: Snapshot, meta: TaskMeta, ctx: OpContext, move: TaskMoveName, action: string, epoch?: number | null): Verdict & {ok: true} {
  // null: not fenced here (the sub-items a cancel takes with their parent, whose own token was checked).
  if (epoch !== null) assertFence(snap, meta, ctx, epoch, action)
  const verdict = judgeMove(taskMove(move, meta.status), standing(snap, meta, ctx))
  if (verdict.ok) return verdict
  if (verdict.refusal === 'not_admin') assertMayForce(snap, ctx, action, meta.id)
  // The op refuses a move its status does not allow before it asks who may make it.
  if (verdict.refusal === 'illegal') throw new Error(`internal: ${move} is not a move from ${meta.status} (${meta.id})`)
  const live = claimIsLive(meta, ctx.now, snap.config)
  throw new NotPermittedError('not_owner', `${meta.id} is held by ${meta.owner ?? 'nobody'}${live ? '' : ' (lease expired)'}; only the owner may ${action} it. Claim it first, or use --force --reason "…"`, {
    id: meta.id,
    owner: meta.owner ?? null,
    epoch: meta.epoch,
    lease_expires: meta.lease_expires ?? null,
  })
}

/**
 * Spec ownership: changing what an item is (title, description, type,
 * dependencies; adding or superseding a check) is the holder's while its
 * claim is live; anyone else needs --force with a reason (`not_owner`, 6;
 * `not_admin` when config.yaml lists admins). The rulebook's `revise` move,
 * which the guard asks too. Returns whether only the override allowed it.
 */
export function assertMayRevise(snap: Snapshot, meta: TaskMeta, ctx: OpContext, action: string): boolean {
  return assertMove(snap, meta, ctx, 'revise', action).overridden
}

/**
 * The trailers of a spec change: the reason given (`--reason`, recorded as
 * Tasks-Reason, shown by `show --revisions`) and the override when only it
 * allowed the change.
 */
export function reasonTrailers(ctx: OpContext, reason: string | undefined, overridden: boolean): Array<[string, string]> {
  const given = reason?.trim() || (overridden ? ctx.force?.reason : undefined)
  return [...(given ? [['Tasks-Reason', given] as [string, string]] : []), ...(overridden ? overrideTrailers(ctx) : [])]
}

/** "tsk-a (todo), tsk-b (in_progress, a dependency of its parent tsk-p)". */
export function describeWaits(reasons: readonly WaitReason[]): string {
  return reasons.map((w) => `${w.id} (${w.status}${w.via ? `, a dependency of its parent ${w.via}` : ''})`).join(', ')
}

/** The conflict of finishing or claiming a parent whose sub-items are still open. */
export function openSubItemsError(snap: Snapshot, meta: TaskMeta, action: string): ConflictError | null {
  // Finishing waits for every descendant (sub-items of sub-items too, when max_depth allows them); claiming, for the sub-items.
  const open = action === 'finish' ? openDescendants(snap, meta.id) : openSubItems(snap, meta.id)
  if (open.length === 0) return null
  return new ConflictError('open_subitems', `${meta.id} has unfinished sub-items: ${open.map((c) => `${c.id} (${c.status})`).join(', ')}; ${action === 'finish' ? 'finish or cancel them first' : 'they are the work: claim one of them instead'}`, {
    id: meta.id,
    subitems: open.map((c) => ({id: c.id, status: c.status})),
  })
}

/**
 * The checks a claim makes before taking a todo item (also used when done or
 * block take one directly), the same rule as \`isReady\`: nothing to wait on
 * (its own or its parent's dependencies), no reservation for someone else,
 * and no open sub-items; --force skips them (admins only, when admins are
 * listed).
 */
export function assertClaimable(snap: Snapshot, meta: TaskMeta, ctx: OpContext, action: string): void {
  if (ctx.force) {
    assertMayForce(snap, ctx, action, meta.id)
    return
  }
  const waiting = waitReasons(snap, meta)
  if (waiting.length > 0) {
    throw new ConflictError('waiting', `${meta.id} is waiting on ${describeWaits(waiting)}`, {
      id: meta.id,
      blocked_by: waiting,
    })
  }
  const parentWork = openSubItemsError(snap, meta, action)
  if (parentWork) throw parentWork
  // Issue 33: not before its scheduled date (the same wake time `isReady` asks of; dates.ts).
  if (notYetScheduled(meta, Date.parse(ctx.now))) {
    throw new ConflictError('not_scheduled', `${meta.id} is scheduled for ${meta.scheduled}; it is not handed out before then (or use --force --reason "…")`, {id: meta.id, scheduled: meta.scheduled ?? null})
  }
  if (!reservationAllows(meta, ctx.actor)) {
    throw new ConflictError('reserved', `${meta.id} is assigned to ${meta.assignee}; only they may ${action} it (or use --force --reason "…")`, {
      id: meta.id,
      assignee: meta.assignee,
    })
  }
}

/**
 * `max_claims_per_actor` (`claimLimitAllows`): before the actor takes `id`
 * (undefined: whichever card `next` would pick)
 * (a claim, `next`, a takeover, a block of a todo card, a batch item), the
 * live claims it holds on other cards must be below the limit. Refused as
 * `claim_limit` (exit 4) naming what it holds; nothing is read when the list
 * has no limit (the default).
 */
export function assertClaimLimit(snap: Snapshot, ctx: OpContext, id: string | undefined, action: string): void {
  const limit = snap.config.max_claims_per_actor
  if (limit === 0) return
  const held = liveClaimsOf(snap, ctx.actor, ctx.now, snap.config, id)
  if (claimLimitAllows(held.length, snap.config)) return
  const named = held.map((t) => `${t.id} (${t.status}, epoch ${t.epoch})`).join(', ')
  throw new ConflictError('claim_limit', `${ctx.actor} already holds ${named}, and the list allows ${limit} live claim${limit === 1 ? '' : 's'} per actor (max_claims_per_actor); finish or release ${held.length === 1 ? 'it' : 'one'} before you ${action} (\`tasks next\` resumes what you hold)`, {
    id: id ?? null,
    actor: ctx.actor,
    limit,
    held: held.map((t) => ({id: t.id, status: t.status, epoch: t.epoch, lease_expires: t.lease_expires ?? null})),
  })
}
