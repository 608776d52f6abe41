/**
 * Claims: `claim`/`start`, `next`, `heartbeat`, `release` and
 * `release --all`. A claim sets owner, epoch + 1 (the fencing token), and a
 * lease. A live claim held by someone else is a conflict naming the holder;
 * an expired one may be taken over. Re-run on a fresh snapshot after a lost
 * compare-and-swap, these same checks turn a lost race into
 * "already claimed by X".
 */
import {ConflictError, NotFoundError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {claimIsLive, compareForNext, isReady, reservationAllows, waitReasons} from '../readiness'
import {type Snapshot, lookup, tablesOf, tasksWithStatus} from '../snapshot'

const TODO: ReadonlySet<string> = new Set(['todo'])
const IN_PROGRESS: ReadonlySet<string> = new Set(['in_progress'])
const HELD: ReadonlySet<string> = new Set(['in_progress', 'blocked'])
import type {TaskMeta} from '../task'
import {assertClaimable, assertMayForce, assertOwner, overrideTrailers} from './permission'
import {NO_CLAIM, leaseUntil, revise} from './revision'

export interface ClaimResult {
  task: TaskMeta
  /** The previous holder when an expired or forced claim was taken over. */
  took_over_from?: string
  /** True when the actor already held the claim (the lease was renewed). */
  already_owned: boolean
  /** `next` only: true when it handed back a claim the actor already held instead of taking another. */
  resumed?: boolean
}

export interface ClaimArgs {
  id: string
  /** Lease length override in seconds. */
  leaseSeconds?: number
}

function alreadyClaimed(meta: TaskMeta): ConflictError {
  return new ConflictError('already_claimed', `${meta.id} is already claimed by ${meta.owner} (epoch ${meta.epoch}, lease until ${meta.lease_expires ?? 'never'})`, {
    id: meta.id,
    owner: meta.owner,
    epoch: meta.epoch,
    lease_expires: meta.lease_expires ?? null,
  })
}

/** The claimed version of `meta`, and the trailers that record how. */
function claimed(snap: Snapshot, meta: TaskMeta, ctx: OpContext, leaseSeconds?: number): TaskMeta {
  const lease = leaseSeconds ?? snap.config.lease_seconds
  return revise(meta, ctx, {
    ...NO_CLAIM,
    status: 'in_progress',
    owner: ctx.actor,
    epoch: meta.epoch + 1,
    claimed_at: ctx.now,
    lease_expires: leaseUntil(ctx.now, lease),
  })
}

/** Claim one item by id. */
export function claimTask(snap: Snapshot, ctx: OpContext, args: ClaimArgs): Plan<ClaimResult> {
  const meta = lookup(snap, args.id)
  const lease = args.leaseSeconds ?? snap.config.lease_seconds
  const subject = {id: meta.id, title: meta.title}

  if (meta.status === 'done' || meta.status === 'cancelled') {
    throw new ConflictError('not_claimable', `${meta.id} is ${meta.status}; reopen it to work on it again`, {id: meta.id, status: meta.status})
  }
  if ((meta.status === 'in_progress' || meta.status === 'blocked') && meta.owner === ctx.actor) {
    // Already ours: renew the lease (and resume a blocked item). Same epoch: same holder.
    const next = revise(meta, ctx, {status: 'in_progress', block_note: undefined, lease_expires: leaseUntil(ctx.now, lease)})
    return {op: 'claim', subject, changes: [{kind: 'put-task', meta: next}], trailers: [['Tasks-Epoch', String(next.epoch)], ['Tasks-Renewed', 'yes']], result: {task: next, already_owned: true}}
  }
  if (meta.status === 'blocked' && !ctx.force) {
    throw new ConflictError('blocked', `${meta.id} is blocked by ${meta.owner}: ${meta.block_note ?? ''}`.trimEnd(), {
      id: meta.id,
      owner: meta.owner ?? null,
      note: meta.block_note ?? null,
    })
  }
  let tookOver: string | undefined
  if (meta.status === 'in_progress' || meta.status === 'blocked') {
    if (claimIsLive(meta, ctx.now, snap.config)) {
      if (!ctx.force) throw alreadyClaimed(meta)
      assertMayForce(snap, ctx, 'take over', meta.id)
    }
    tookOver = meta.owner
  }
  assertClaimable(snap, meta, ctx, 'claim')
  const next = claimed(snap, meta, ctx, lease)
  const trailers: Array<[string, string]> = [['Tasks-Epoch', String(next.epoch)]]
  if (tookOver) trailers.push(['Tasks-Takeover', tookOver])
  trailers.push(...overrideTrailers(ctx))
  return {
    op: 'claim',
    subject,
    changes: [{kind: 'put-task', meta: next}],
    trailers,
    result: {task: next, took_over_from: tookOver, already_owned: false},
  }
}

export interface NextArgs {
  tags?: string[]
  leaseSeconds?: number
  /** Take one more item even when the actor already holds one (no resume). */
  another?: boolean
}

/**
 * `next`, safe to retry. First it resumes the actor's own claim (an agent
 * that crashed after `next` and runs it again gets the same item back, its
 * lease renewed, `resumed: true`), unless `another` asks for one more. Then
 * it claims the first ready item (\`isReady\`), items reserved for the actor
 * before unreserved ones of any priority, each group in next order (lowest
 * priority number, then oldest, then id). Nothing ready is "not found"
 * (exit 3), with counts of why.
 */
export function claimNext(snap: Snapshot, ctx: OpContext, args: NextArgs): Plan<ClaimResult> {
  const wanted = args.tags ?? []
  const fits = (t: TaskMeta) => wanted.every((tag) => t.tags.includes(tag))
  if (!args.another) {
    const mine = tasksWithStatus(snap, IN_PROGRESS)
      .filter((t) => t.owner === ctx.actor && fits(t))
      .sort(compareForNext)
    if (mine.length > 0) {
      const plan = claimTask(snap, ctx, {id: mine[0]!.id, leaseSeconds: args.leaseSeconds})
      return {...plan, trailers: [...plan.trailers, ['Tasks-Via', 'next']], result: {...plan.result, resumed: true}}
    }
  }
  let pick: TaskMeta | undefined
  let firstUnreserved: TaskMeta | undefined
  // Under contention (ctx.spread > 1): the first `spread` ready unreserved items of the best priority, one chosen by entropy.
  const spread = Math.max(1, Math.floor(ctx.spread ?? 1))
  const pool: TaskMeta[] = []
  let firstBusy: TaskMeta | undefined
  // The queue is in next order. An item reserved for the actor wins at once;
  // otherwise the first ready unreserved one, found on the way.
  for (const id of tablesOf(snap).nextQueue()) {
    const t = snap.tasks.get(id)!.meta!
    if (ctx.busy?.has(id)) {
      // Someone's change of it is pending: pick it only when nothing else is ready (the transaction then waits for it to settle).
      if (!firstBusy && t.assignee !== ctx.actor && fits(t) && isReady(snap, t, ctx.actor, ctx.now)) firstBusy = t
      continue
    }
    // Once an unreserved item is found, only an item reserved for the actor can still win.
    const pooling = firstUnreserved && pool.length < spread && t.assignee !== ctx.actor && t.priority === firstUnreserved.priority
    if (firstUnreserved && t.assignee !== ctx.actor && !pooling) continue
    if (!fits(t) || !isReady(snap, t, ctx.actor, ctx.now)) continue
    if (t.assignee === ctx.actor) {
      pick = t
      break
    }
    firstUnreserved ??= t
    if (pool.length < spread && t.priority === firstUnreserved.priority) pool.push(t)
  }
  if (!pick && pool.length > 1) {
    let h = 0
    for (const ch of ctx.entropy) h = (h * 31 + ch.charCodeAt(0)) >>> 0
    pick = pool[h % pool.length]
  }
  pick ??= firstUnreserved ?? firstBusy
  if (!pick) {
    const open = tasksWithStatus(snap, TODO)
    throw new NotFoundError('nothing_ready', `nothing is ready to claim${wanted.length ? ` with tag ${wanted.join(', ')}` : ''}`, {
      todo: open.length,
      waiting: open.filter((t) => waitReasons(snap, t).length > 0).length,
      reserved: open.filter((t) => !reservationAllows(t, ctx.actor)).length,
      in_progress: tasksWithStatus(snap, IN_PROGRESS).length,
    })
  }
  const plan = claimTask(snap, ctx, {id: pick.id, leaseSeconds: args.leaseSeconds})
  return {...plan, op: 'claim', trailers: [...plan.trailers, ['Tasks-Via', 'next']], result: {...plan.result, resumed: false}}
}

export interface HeartbeatArgs {
  id: string
  epoch?: number
  leaseSeconds?: number
}

/** Extend the lease of a claim the actor holds. */
export function heartbeat(snap: Snapshot, ctx: OpContext, args: HeartbeatArgs): Plan<{task: TaskMeta}> {
  const meta = lookup(snap, args.id)
  if (meta.status !== 'in_progress' && meta.status !== 'blocked') {
    throw new ConflictError('not_claimed', `${meta.id} is ${meta.status}, not claimed`, {id: meta.id, status: meta.status})
  }
  assertOwner(snap, meta, {...ctx, force: undefined}, 'heartbeat', args.epoch)
  const next = revise(meta, ctx, {lease_expires: leaseUntil(ctx.now, args.leaseSeconds ?? snap.config.lease_seconds)})
  return {op: 'heartbeat', subject: {id: meta.id, title: meta.title}, changes: [{kind: 'put-task', meta: next}], trailers: [['Tasks-Epoch', String(meta.epoch)]], result: {task: next}}
}

export interface ReleaseArgs {
  id: string
  epoch?: number
}

/** Give a claim back: the item returns to todo with no owner. */
export function releaseTask(snap: Snapshot, ctx: OpContext, args: ReleaseArgs): Plan<{tasks: TaskMeta[]}> {
  const meta = lookup(snap, args.id)
  if (meta.status !== 'in_progress' && meta.status !== 'blocked') {
    throw new ConflictError('not_claimed', `${meta.id} is ${meta.status}, not claimed`, {id: meta.id, status: meta.status})
  }
  assertOwner(snap, meta, ctx, 'release', args.epoch)
  const next = revise(meta, ctx, {...NO_CLAIM, status: 'todo'})
  return {
    op: 'release',
    subject: {id: meta.id, title: meta.title},
    changes: [{kind: 'put-task', meta: next}],
    trailers: [['Tasks-Epoch', String(meta.epoch)], ...(meta.owner !== ctx.actor ? overrideTrailers(ctx) : [])],
    result: {tasks: [next]},
  }
}

/** Release every item the actor holds (an agent session ending), in one commit. */
export function releaseAll(snap: Snapshot, ctx: OpContext): Plan<{tasks: TaskMeta[]}> {
  const held = tasksWithStatus(snap, HELD).filter((t) => t.owner === ctx.actor)
  const released = held.map((t) => revise(t, ctx, {...NO_CLAIM, status: 'todo'}))
  return {
    op: 'release',
    summary: `${released.length} task${released.length === 1 ? '' : 's'} held by ${ctx.actor}`,
    changes: released.map((meta) => ({kind: 'put-task' as const, meta})),
    trailers: [],
    result: {tasks: released},
  }
}
