/**
 * Progress checkpoints: what the holder of an item has done and what comes
 * next, recorded on the card as a typed comment (kind `checkpoint`) so the
 * next agent to pick the item up, after a release, a lost context, an
 * expired lease or a takeover, starts where the last one stopped. Comments
 * are never removed by claims, releases or takeovers, so checkpoints
 * survive all of them. `tasks checkpoint` renews the lease in the same
 * commit; `release` and `done` record one in the commit that ends the claim.
 */
import {createHash} from 'node:crypto'
import {ConflictError, UsageError} from '../errors'
import type {Change, OpContext, Plan} from '../plan'
import {type Snapshot, lookup} from '../snapshot'
import {CHECKPOINT_KIND, type Comment, type ListConfig, type TaskMeta} from '../task'
import {checkText} from '../validation'
import {compactTimestamp} from './comment'
import {assertClaimLimit, assertMove} from './permission'
import {renewedLease} from './lease'
import {claimIsLive} from '../readiness'
import {taskMove} from '../state-machine'
import {revise} from './revision'

/** What an agent says at a checkpoint. `next` is required by `checkpoint` and `release`, absent for `done`. */
export interface CheckpointText {
  summary: string
  next?: string
  /** The agent session writing it (free text, one line). */
  session?: string
}

/** A session name: one line of at most 200 characters without control characters. */
function checkSession(session: string): string {
  const s = session.trim()
  if (s.length === 0 || s.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(s)) {
    throw new UsageError('--session takes one line of 1 to 200 characters without control characters', {session})
  }
  return s
}

/** The checkpoint comment for `meta`, written by the actor now under the claim's `epoch`. */
export function checkpointComment(meta: TaskMeta, ctx: OpContext, config: ListConfig, text: CheckpointText, epoch: number): Comment {
  const summary = checkText('summary', text.summary.replace(/\s+$/, ''), config.max_comment_bytes, true)
  const next = text.next === undefined ? undefined : checkText('next', text.next.replace(/\s+$/, ''), config.max_comment_bytes, true)
  const session = text.session === undefined ? undefined : checkSession(text.session)
  const hash = createHash('sha256')
    .update(`${meta.id}\0${ctx.actor}\0${ctx.now}\0${summary}\0${next ?? ''}\0${ctx.entropy}`)
    .digest('hex')
    .slice(0, 8)
  return {
    id: `${compactTimestamp(ctx.now)}-${hash}`,
    task: meta.id,
    kind: CHECKPOINT_KIND,
    author: ctx.actor,
    created_at: ctx.now,
    body: summary,
    epoch,
    ...(session !== undefined ? {session} : {}),
    ...(next !== undefined ? {next} : {}),
  }
}

/** The change and trailer a checkpoint adds to a plan. */
export function checkpointChange(comment: Comment): {change: Change; trailer: [string, string]} {
  return {change: {kind: 'add-comment', comment}, trailer: ['Tasks-Comment-Kind', CHECKPOINT_KIND]}
}

export interface CheckpointArgs extends CheckpointText {
  id: string
  /** Fencing token: refuse if the item was claimed again since. */
  epoch?: number
  leaseSeconds?: number
}

/**
 * `tasks checkpoint`: only the holder of an in-progress or blocked item
 * (no --force: a checkpoint speaks for the work of whoever holds it). The
 * lease is renewed as by `heartbeat` (never shortened), in the same commit.
 */
export function checkpointTask(snap: Snapshot, ctx: OpContext, args: CheckpointArgs): Plan<{task: TaskMeta; checkpoint: Comment}> {
  const meta = lookup(snap, args.id)
  if (!taskMove('heartbeat', meta.status)) {
    throw new ConflictError('not_claimed', `${meta.id} is ${meta.status}, not claimed: claim it before recording a checkpoint`, {id: meta.id, status: meta.status})
  }
  assertMove(snap, meta, {...ctx, force: undefined}, 'heartbeat', 'checkpoint', args.epoch)
  if (args.next === undefined) throw new UsageError('a checkpoint needs --next: the next step for whoever picks the item up')
  const comment = checkpointComment(meta, ctx, snap.config, args, meta.epoch)
  // The lease is renewed, never shortened (ops/lease.ts); bringing back an expired claim counts against max_claims_per_actor.
  if (!claimIsLive(meta, ctx.now, snap.config)) assertClaimLimit(snap, ctx, meta.id, `renew your expired claim on ${meta.id}`)
  const next = revise(meta, ctx, {lease_expires: renewedLease(meta, ctx.now, snap.config, args.leaseSeconds).until})
  const cp = checkpointChange(comment)
  return {
    op: 'checkpoint',
    subject: {id: meta.id, title: meta.title},
    changes: [{kind: 'put-task', meta: next}, cp.change],
    trailers: [['Tasks-Epoch', String(meta.epoch)], cp.trailer],
    result: {task: next, checkpoint: comment},
  }
}

/** The newest checkpoint among a card's comments (oldest first, as read), or null. */
export function latestCheckpoint(comments: readonly Comment[]): Comment | null {
  for (let i = comments.length - 1; i >= 0; i--) if (comments[i]!.kind === CHECKPOINT_KIND) return comments[i]!
  return null
}
