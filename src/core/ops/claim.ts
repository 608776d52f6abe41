/**
 * Claims: `claim`/`start`, `next`, `heartbeat`, `release` and
 * `release --all`. A claim sets owner, epoch + 1 (the fencing token), and a
 * lease. A live claim held by someone else is a conflict naming the holder;
 * an expired one may be taken over. Re-run on a fresh snapshot after a lost
 * compare-and-swap, these same checks turn a lost race into
 * "already claimed by X".
 */
import {wokenMeta} from '../dates'
import {ConflictError, NotFoundError, NotPermittedError, UsageError} from '../errors'
import {assertRevision} from '../revision-guard'
import type {OpContext, Plan} from '../plan'
import {claimIsLive, compareForNext, isReady, reservationAllows, waitReasons} from '../readiness'
import {type Snapshot, expiredLeaseIds, lookup, tablesOf, tasksWithStatus} from '../snapshot'
import type {TaskMeta} from '../task'
import {assertClaimLimit, assertClaimable, assertMayForce, assertMove, overrideTrailers, standing} from './permission'
import {TASK_MOVES, judgeMove, mayOverride, taskMove} from '../state-machine'
import {type CheckpointText, checkpointChange, checkpointComment} from './checkpoint'
import {NO_CLAIM, NO_FLAG, leaseUntil, revise} from './revision'
import {withChanges} from '../apply'
import {renewedLease} from './lease'
import {checkNote} from '../validation'

const TODO: ReadonlySet<string> = new Set(['todo'])
const IN_PROGRESS: ReadonlySet<string> = new Set(['in_progress'])
/** The statuses of a held card: those a holder may release it from. */
const HELD: ReadonlySet<string> = new Set(TASK_MOVES.filter((m) => m.move === 'release').map((m) => m.from))

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
    // A new holder deals with what the flag said: taking the item clears it.
    ...(meta.flag_reason !== undefined ? NO_FLAG : {}),
    status: 'in_progress',
    owner: ctx.actor,
    epoch: meta.epoch + 1,
    claimed_at: ctx.now,
    lease_expires: leaseUntil(ctx.now, lease),
    session: ctx.session,
  })
}

/**
 * Claim one item, applying the sweep of expired leases in the same commit
 * (docs/model.md, "Sessions and lease recovery"): every in-progress item
 * whose lease ran out, except the one being claimed, goes back to todo.
 */
export function claimTask(snap: Snapshot, ctx: OpContext, args: ClaimArgs): Plan<ClaimResult> {
  const target = lookup(snap, args.id).id
  const sweep = sweepExpired(snap, ctx, (t) => t.id === target)
  const plan = claimWithoutSweep(sweep.changes.length ? withChanges(snap, sweep.changes) : snap, ctx, args)
  return withSweep(plan, sweep)
}

/** A plan with a sweep's changes put first and its trailers added. */
function withSweep<R>(plan: Plan<R>, sweep: Plan<{tasks: TaskMeta[]}>): Plan<R> {
  if (sweep.changes.length === 0) return plan
  const claimed = new Set(plan.changes.flatMap((c) => (c.kind === 'put-task' ? [c.meta.id] : [])))
  return {...plan, changes: [...sweep.changes.filter((c) => c.kind !== 'put-task' || !claimed.has(c.meta.id)), ...plan.changes], trailers: [...plan.trailers, ...sweep.trailers]}
}

/** Claim one item by id (without the sweep). */
export function claimWithoutSweep(snap: Snapshot, ctx: OpContext, args: ClaimArgs): Plan<ClaimResult> {
  // Issue 33: a deferral whose time has come is todo (dates.ts).
  const meta = wokenMeta(lookup(snap, args.id), ctx.now)
  const lease = args.leaseSeconds ?? snap.config.lease_seconds
  const subject = {id: meta.id, title: meta.title}

  const row = taskMove('claim', meta.status)
  if (!row) {
    throw new ConflictError('not_claimable', `${meta.id} is ${meta.status}; reopen it to work on it again`, {id: meta.id, status: meta.status})
  }
  if (row.who !== 'taker' && meta.owner === ctx.actor) {
    // Already ours: renew the lease (and resume a blocked item). Same epoch: same holder.
    // A lease is never shortened (ops/lease.ts); bringing back an expired claim counts against max_claims_per_actor.
    if (!claimIsLive(meta, ctx.now, snap.config)) assertClaimLimit(snap, ctx, meta.id, `renew your expired claim on ${meta.id}`)
    const renewal = renewedLease(meta, ctx.now, snap.config, lease)
    const next = revise(meta, ctx, {status: 'in_progress', block_note: undefined, blocked_on: undefined, lease_expires: renewal.until, session: ctx.session ?? meta.session})
    return {op: 'claim', subject, changes: [{kind: 'put-task', meta: next}], trailers: [['Tasks-Epoch', String(next.epoch)], ['Tasks-Renewed', 'yes']], result: {task: next, already_owned: true}}
  }
  let tookOver: string | undefined
  // Anyone may take a flagged item over from its owner; the claim records the flag it cleared.
  const flagged = meta.flag_reason !== undefined
  if (row.who !== 'taker') {
    // Someone else's claim: taken over when the rulebook allows it (lapsed, flagged, or --force).
    const verdict = judgeMove(row, standing(snap, meta, ctx))
    if (!verdict.ok && verdict.refusal === 'not_owner') {
      if (meta.status !== 'blocked') throw alreadyClaimed(meta)
      throw new ConflictError('blocked', `${meta.id} is blocked by ${meta.owner}: ${meta.block_note ?? ''}`.trimEnd(), {
        id: meta.id,
        owner: meta.owner ?? null,
        note: meta.block_note ?? null,
      })
    }
    // A live claim taken by force is a takeover; a lapsed one is checked as a forced claim below (assertClaimable).
    if ((!verdict.ok || verdict.overridden) && claimIsLive(meta, ctx.now, snap.config)) assertMayForce(snap, ctx, 'take over', meta.id)
    tookOver = meta.owner
  }
  if (!(flagged && tookOver)) assertClaimable(snap, meta, ctx, 'claim')
  assertClaimLimit(snap, ctx, meta.id, `claim ${meta.id}`)
  const next = claimed(snap, meta, ctx, lease)
  const trailers: Array<[string, string]> = [['Tasks-Epoch', String(next.epoch)]]
  if (tookOver) trailers.push(['Tasks-Takeover', tookOver])
  if (flagged) trailers.push(['Tasks-Unflagged', meta.flag_reason!])
  if (ctx.session) trailers.push(['Tasks-Session', ctx.session])
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
  // The actor's own expired claims are not swept: `next` hands them back (resume).
  const sweep = sweepExpired(snap, ctx, (t) => t.owner === ctx.actor)
  if (sweep.changes.length === 0) return nextWithoutSweep(snap, ctx, args)
  const plan = nextWithoutSweep(withChanges(snap, sweep.changes), ctx, args)
  const picked = plan.result.task.id
  if (!sweep.result.tasks.some((t) => t.id === picked)) return withSweep(plan, sweep)
  // The item handed out is one whose lease had expired: take it over as a claim does (epoch + 1, Tasks-Takeover), sweeping the others.
  const others = sweepExpired(snap, ctx, (t) => t.owner === ctx.actor || t.id === picked)
  const taken = claimWithoutSweep(others.changes.length ? withChanges(snap, others.changes) : snap, ctx, {id: picked, leaseSeconds: args.leaseSeconds})
  return withSweep({...taken, trailers: [...taken.trailers, ['Tasks-Via', 'next']], result: {...taken.result, resumed: false}}, others)
}

export function nextWithoutSweep(snap: Snapshot, ctx: OpContext, args: NextArgs): Plan<ClaimResult> {
  const wanted = args.tags ?? []
  const fits = (t: TaskMeta) => wanted.every((tag) => t.tags.includes(tag))
  if (!args.another) {
    // The claims table names the actor's items in progress: nobody else's are decoded.
    const mine = (tablesOf(snap).claims().get(ctx.actor) ?? [])
      .map((id) => snap.tasks.get(id)!.meta!)
      .filter((t) => t.status === 'in_progress' && t.owner === ctx.actor && fits(t))
      // A live claim first: resuming it never counts against max_claims_per_actor, bringing back an expired one may.
      .sort((a, b) => Number(claimIsLive(b, ctx.now, snap.config)) - Number(claimIsLive(a, ctx.now, snap.config)) || compareForNext(a, b))
    if (mine.length > 0) {
      const plan = claimWithoutSweep(snap, ctx, {id: mine[0]!.id, leaseSeconds: args.leaseSeconds})
      return {...plan, trailers: [...plan.trailers, ['Tasks-Via', 'next']], result: {...plan.result, resumed: true}}
    }
  }
  // At max_claims_per_actor, taking another is refused before the queue is read (the resume above still answers).
  assertClaimLimit(snap, ctx, undefined, 'take another item')
  // An item reserved for the actor wins over every other (the first ready one in next order, from
  // the reservations table); otherwise the first ready unreserved item of the queue. Under
  // contention (ctx.spread > 1) the pick spreads over the first `spread` ready unreserved items of
  // the best priority, chosen by entropy, and items with a change pending on the remote (ctx.busy)
  // are taken only when nothing else is ready. Both walks stop early: the rest of the queue is never decoded.
  const tables = tablesOf(snap)
  const ready = (t: TaskMeta): boolean => fits(t) && isReady(snap, t, ctx.actor, ctx.now)
  let pick: TaskMeta | undefined
  let firstBusy: TaskMeta | undefined
  if (ctx.actor) {
    for (const id of tables.reservations().get(ctx.actor) ?? []) {
      const t = snap.tasks.get(id)!.meta!
      if (!ready(t)) continue
      if (ctx.busy?.has(id)) {
        firstBusy ??= t
        continue
      }
      pick = t
      break
    }
  }
  if (!pick) {
    const spread = Math.max(1, Math.floor(ctx.spread ?? 1))
    const pool: TaskMeta[] = []
    for (const id of tables.nextQueueFront?.() ?? tables.nextQueue()) {
      const t = snap.tasks.get(id)!.meta!
      if (pool.length > 0 && (pool.length >= spread || t.priority !== pool[0]!.priority)) break
      if (t.assignee === ctx.actor || !ready(t)) continue
      if (ctx.busy?.has(id)) {
        firstBusy ??= t
        continue
      }
      pool.push(t)
    }
    if (pool.length > 1) {
      let h = 0
      for (const ch of ctx.entropy) h = (h * 31 + ch.charCodeAt(0)) >>> 0
      pick = pool[h % pool.length]
    } else pick = pool[0]
  }
  pick ??= firstBusy
  if (!pick) {
    const open = tasksWithStatus(snap, TODO)
    const counts = {
      todo: open.length,
      waiting: open.filter((t) => waitReasons(snap, t).length > 0).length,
      reserved: open.filter((t) => !reservationAllows(t, ctx.actor)).length,
      in_progress: tasksWithStatus(snap, IN_PROGRESS).length,
    }
    // The text says what the JSON fields say: why nothing is ready.
    const why = `${counts.todo} todo (${counts.waiting} waiting on other work, ${counts.reserved} reserved for someone else), ${counts.in_progress} in progress`
    throw new NotFoundError('nothing_ready', `nothing is ready to claim${wanted.length ? ` with tag ${wanted.join(', ')}` : ''}: ${why}`, counts)
  }
  const plan = claimWithoutSweep(snap, ctx, {id: pick.id, leaseSeconds: args.leaseSeconds})
  return {...plan, op: 'claim', trailers: [...plan.trailers, ['Tasks-Via', 'next']], result: {...plan.result, resumed: false}}
}

export interface HeartbeatArgs {
  id: string
  epoch?: number
  leaseSeconds?: number
}

export interface HeartbeatResult {
  task: TaskMeta
  /** True when the claim's longer live lease was kept: a heartbeat never shortens a lease. */
  lease_kept: boolean
  /** What the heartbeat asked for: now + --lease (or lease_seconds). */
  lease_asked: string
}

/**
 * Renew the lease of a claim the actor holds (ops/lease.ts): to now + the
 * lease asked for, or the longer live lease it already has. Bringing back
 * the actor's own expired claim counts against max_claims_per_actor.
 */
export function heartbeat(snap: Snapshot, ctx: OpContext, args: HeartbeatArgs): Plan<HeartbeatResult> {
  const meta = lookup(snap, args.id)
  if (!taskMove('heartbeat', meta.status)) {
    throw new ConflictError('not_claimed', `${meta.id} is ${meta.status}, not claimed`, {id: meta.id, status: meta.status})
  }
  assertMove(snap, meta, {...ctx, force: undefined}, 'heartbeat', 'heartbeat', args.epoch)
  if (!claimIsLive(meta, ctx.now, snap.config)) assertClaimLimit(snap, ctx, meta.id, `renew your expired claim on ${meta.id}`)
  const renewal = renewedLease(meta, ctx.now, snap.config, args.leaseSeconds)
  const subject = {id: meta.id, title: meta.title}
  const result = (task: TaskMeta): HeartbeatResult => ({task, lease_kept: renewal.kept, lease_asked: renewal.asked})
  if (renewal.until === meta.lease_expires) return {op: 'heartbeat', subject, changes: [], trailers: [], result: result(meta)}
  const next = revise(meta, ctx, {lease_expires: renewal.until})
  return {op: 'heartbeat', subject, changes: [{kind: 'put-task', meta: next}], trailers: [['Tasks-Epoch', String(meta.epoch)]], result: result(next)}
}

export interface ReleaseArgs {
  id: string
  epoch?: number
  /** `release --summary --next`: a checkpoint recorded in the same commit. */
  checkpoint?: CheckpointText
}

/** Give a claim back: the item returns to todo with no owner. */
export function releaseTask(snap: Snapshot, ctx: OpContext, args: ReleaseArgs): Plan<{tasks: TaskMeta[]}> {
  const meta = lookup(snap, args.id)
  if (!taskMove('release', meta.status)) {
    throw new ConflictError('not_claimed', `${meta.id} is ${meta.status}, not claimed`, {id: meta.id, status: meta.status})
  }
  const verdict = assertMove(snap, meta, ctx, 'release', 'release', args.epoch)
  const next = revise(meta, ctx, {...NO_CLAIM, status: 'todo'})
  const cp = args.checkpoint ? checkpointChange(checkpointComment(meta, ctx, snap.config, args.checkpoint, meta.epoch)) : null
  return {
    op: 'release',
    subject: {id: meta.id, title: meta.title},
    changes: [{kind: 'put-task', meta: next}, ...(cp ? [cp.change] : [])],
    trailers: [['Tasks-Epoch', String(meta.epoch)], ...(cp ? [cp.trailer] : []), ...(verdict.overridden ? overrideTrailers(ctx) : [])],
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

/**
 * The sweep: every in-progress item whose lease expired (judged as
 * `claimIsLive` does, clock skew included) goes back to todo. The owner,
 * lease and session are cleared, the assignment is kept (an assigned item
 * stays reserved), and the epoch moves on by one, so the displaced holder's
 * `--epoch` is refused from now on. Blocked items are left alone (they wait
 * on something their note names). `skip` leaves items out (the item a claim
 * is about, the actor's own claims for `next`).
 */
export function sweepExpired(snap: Snapshot, ctx: OpContext, skip: (t: TaskMeta) => boolean = () => false): Plan<{tasks: TaskMeta[]}> {
  // The front of the lease order holds every claim that may have run out: only those are decoded.
  const expired = expiredLeaseIds(tablesOf(snap), ctx.now, snap.config)
    .map((id) => snap.tasks.get(id)!.meta!)
    .filter((t) => !claimIsLive(t, ctx.now, snap.config) && !skip(t))
  const swept = expired.map((t) => revise(t, ctx, {...NO_CLAIM, status: 'todo', epoch: t.epoch + 1}))
  return {
    op: 'sweep',
    summary: `${swept.length} expired lease${swept.length === 1 ? '' : 's'}`,
    changes: swept.map((meta) => ({kind: 'put-task' as const, meta})),
    trailers: expired.map((t) => ['Tasks-Swept', `${t.id} ${t.owner ?? '(none)'} epoch ${t.epoch}`] as [string, string]),
    result: {tasks: swept},
  }
}

/** Release every item a session holds (what an agent runner calls when its agent stops), whoever the owner, in one commit. */
export function releaseSession(snap: Snapshot, ctx: OpContext, session: string): Plan<{tasks: TaskMeta[]}> {
  // The agent-run label is free text anyone may reuse: without --force only the acting actor's own claims with that
  // label go back, so one worker's runner never frees another worker's claims by accident (docs/model.md,
  // "Coordination sessions"). With --force (admins, when the list names them), every claim with the label.
  if (ctx.force && !mayOverride(ctx.actor, snap.config.admins)) {
    throw new NotPermittedError('not_admin', `only the admins listed in config.yaml may release the claims of session ${session} held by others (--force)`, {session, admins: snap.config.admins})
  }
  const held = tasksWithStatus(snap, HELD).filter((t) => t.session === session && (ctx.force !== undefined || t.owner === ctx.actor))
  const released = held.map((t) => revise(t, ctx, {...NO_CLAIM, status: 'todo'}))
  return {
    op: 'release',
    summary: `${released.length} task${released.length === 1 ? '' : 's'} of session ${session}`,
    changes: released.map((meta) => ({kind: 'put-task' as const, meta})),
    trailers: [['Tasks-Session', session], ...(ctx.force && held.some((t) => t.owner !== ctx.actor) ? [['Tasks-Override', ctx.force.reason] as [string, string]] : []), ...held.map((t) => ['Tasks-Released-Owner', `${t.id} ${t.owner ?? '(none)'}`] as [string, string])],
    result: {tasks: released},
  }
}

export interface TakeoverArgs {
  id: string
  reason: string
  /** The card's id typed again (`--confirm ID`): a takeover of someone's live claim is never one typo away. */
  confirm?: string
  /** Apply only while the card is still at this revision (`--if-revision`). */
  ifRevision?: number
  leaseSeconds?: number
}

/**
 * Take over a live claim from an owner that will not come back (its host or
 * session confirmed gone), as Graphit's force-takeover does: the card's id
 * repeated as confirmation, a reason, optionally the revision it was read
 * at, a replacement lease. epoch + 1 (so the old owner's `--epoch` is
 * refused), recorded with Tasks-Takeover and Tasks-Reason. Refused: a
 * wrong or missing confirmation (exit 2), a stale revision, a card nobody
 * holds, the actor's own claim, a claim no longer live (claim it normally:
 * a takeover never preempts what an ordinary claim may take), an actor at
 * max_claims_per_actor (exit 4); only admins when config.yaml lists them.
 */
export function takeoverTask(snap: Snapshot, ctx: OpContext, args: TakeoverArgs): Plan<ClaimResult> {
  const meta = lookup(snap, args.id)
  const confirm = args.confirm?.trim()
  if (confirm === undefined || confirm === '') {
    throw new UsageError(`a takeover needs --confirm ${meta.id}: the card's id typed again (on a terminal, tasks asks for it); nothing was written`, {id: meta.id}, 'not_confirmed')
  }
  if (confirm !== meta.id && confirm !== args.id) {
    throw new UsageError(`--confirm "${confirm}" is not ${meta.id}: type the id of the card you take over exactly; nothing was written`, {id: meta.id, confirm}, 'not_confirmed')
  }
  const reason = checkNote('reason', args.reason ?? '', snap.config)
  assertRevision(meta, args.ifRevision)
  const row = taskMove('takeover', meta.status)
  if (!row || meta.owner === undefined) {
    throw new ConflictError('not_claimed', `${meta.id} is ${meta.status}, not held by anyone: claim it instead`, {id: meta.id, status: meta.status})
  }
  if (meta.owner === ctx.actor) {
    throw new ConflictError('already_owned', `${meta.id} is already yours (epoch ${meta.epoch}); a takeover is of someone else's claim`, {id: meta.id, epoch: meta.epoch})
  }
  if (!claimIsLive(meta, ctx.now, snap.config)) {
    const how = meta.status === 'blocked' ? `reopen it (\`tasks reopen ${meta.id}\`) and claim it` : `claim it normally (\`tasks claim ${meta.id}\`)`
    throw new ConflictError('claim_expired', `${meta.owner}'s claim on ${meta.id} is no longer live (lease until ${meta.lease_expires ?? 'none'}); a takeover is for a live claim: ${how}`, {
      id: meta.id,
      owner: meta.owner,
      epoch: meta.epoch,
      lease_expires: meta.lease_expires ?? null,
    })
  }
  if (!judgeMove(row, standing(snap, meta, ctx)).ok) assertMayForce(snap, ctx, 'take over', meta.id)
  assertClaimLimit(snap, ctx, meta.id, `take over ${meta.id}`)
  const next = claimed(snap, meta, ctx, args.leaseSeconds)
  const trailers: Array<[string, string]> = [['Tasks-Epoch', String(next.epoch)], ['Tasks-Takeover', meta.owner], ['Tasks-Reason', reason]]
  if (meta.flag_reason !== undefined) trailers.push(['Tasks-Unflagged', meta.flag_reason])
  if (ctx.session) trailers.push(['Tasks-Session', ctx.session])
  return {op: 'takeover', subject: {id: meta.id, title: meta.title}, changes: [{kind: 'put-task', meta: next}], trailers, result: {task: next, took_over_from: meta.owner, already_owned: false}}
}
