/**
 * Use cases of claimed work: claim, next, heartbeat, checkpoint, done,
 * block, reopen, cancel and release. Each runs one pure op through the
 * transaction; a refusal from a holder whose claim was taken over is
 * explained from history (refusals.ts).
 */
import {UsageError} from '../core/errors'
import {runBatch} from '../core/ops/batch'
import {claimNext, claimTask, heartbeat, releaseAll, releaseTask} from '../core/ops/claim'
import {type CheckpointText, checkpointTask, latestCheckpoint} from '../core/ops/checkpoint'
import {blockTask, cancelTask, finishTask, reopenTask} from '../core/ops/lifecycle'
import {deferTask, failTask} from '../core/ops/states'
import {type Comment, type TaskMeta} from '../core/task'
import {type TaskView} from '../core/task-view'
import {checkTags} from '../core/validation'
import type {Session} from './session'
import {mutate} from './transaction'
import {type Check, sortChecks} from '../core/check'
import {type BatchResult, type TaskResult, mutateOne, viewer} from './task-results'
import {explainRevision, explainTakeover} from './refusals'
import {prepareChecks} from './check-reads'

export interface ClaimOutput extends TaskResult {
  took_over_from: string | null
  already_owned: boolean
}

/** `next`: a claim, plus what an agent needs to start without a second call. */
export interface NextOutput extends ClaimOutput {
  /** The newest progress checkpoint on the item (by any holder, before a release, expiry or takeover), or null. */
  checkpoint: Comment | null
  /** True when `next` handed back a claim the actor already held (a retry after a crash), not a new item. */
  resumed: boolean
  /** The item's description. */
  body: string
  /** The newest comments (at most NEXT_COMMENTS), oldest first. */
  comments: Comment[]
  /** How many comments the item has in all. */
  comment_count: number
  /** The item's checks (acceptance criteria and tests), in the order they were added: what `done` will ask for. */
  checks: Check[]
}

/** Comments `next --json` carries; `show` has them all. */
const NEXT_COMMENTS = 5

export async function claim(session: Session, {id, lease}: {id: string; lease?: number}): Promise<ClaimOutput> {
  const r = await mutateOne(session, (s, c) => claimTask(s, c, {id, leaseSeconds: lease}))
  return {task: r.task, commit: r.commit, took_over_from: r.result.took_over_from ?? null, already_owned: r.result.already_owned}
}

export async function next(session: Session, options: {tags?: string[]; lease?: number; another?: boolean}): Promise<NextOutput> {
  const tags = options.tags?.length ? checkTags(options.tags) : []
  const r = await mutateOne(session, (s, c) => claimNext(s, c, {tags, leaseSeconds: options.lease, another: options.another}))
  const detail = r.at ? await session.store.readDetail(r.at, r.task.id) : {body: '', comments: []}
  return {
    // First: where the last holder stopped is what a resuming agent reads first.
    checkpoint: latestCheckpoint(detail.comments),
    task: r.task,
    commit: r.commit,
    took_over_from: r.result.took_over_from ?? null,
    already_owned: r.result.already_owned,
    resumed: r.result.resumed ?? false,
    body: detail.body,
    comments: detail.comments.slice(-NEXT_COMMENTS),
    comment_count: detail.comments.length,
    checks: r.at ? sortChecks((await session.store.readChecks(r.at, [r.task.id])).checks.get(r.task.id) ?? []) : [],
  }
}

/** `heartbeat`: the lease renewed, or a longer live lease kept (`lease_kept`, with what was asked): a lease is never shortened. */
export interface HeartbeatOutput extends TaskResult {
  lease_kept: boolean
  lease_asked: string
}

export async function beat(session: Session, {id, epoch, lease}: {id: string; epoch?: number; lease?: number}): Promise<HeartbeatOutput> {
  const r = await explainTakeover(session, mutateOne(session, (s, c) => heartbeat(s, c, {id, epoch, leaseSeconds: lease})))
  return {task: r.task, commit: r.commit, lease_kept: r.result.lease_kept, lease_asked: r.result.lease_asked}
}

async function finishOne(session: Session, id: string, epoch?: number, checkpoint?: CheckpointText): Promise<TaskResult & {changed: boolean; next_instance?: TaskView}> {
  const done = await explainTakeover(session, mutate(session, (s, c) => finishTask(s, c, {id, epoch, checkpoint}), prepareChecks(session, () => [id])))
  const v = await viewer(session, done.after)
  const view = (t: TaskMeta) => v.view(done.after.tasks.get(t.id)?.meta ?? t)
  // Issue 33: a repeating item's next instance, made in the same commit.
  const instance = done.result.next_instance
  return {task: view(done.result.task), commit: done.commit, changed: done.result.changed, ...(instance ? {next_instance: view(instance)} : {})}
}

/** Issue 33: `tasks defer ID [--until DATE] --reason R` (core/ops/states.ts). */
export async function defer(session: Session, {id, reason, until, epoch, ifRevision}: {id: string; reason: string; until?: string; epoch?: number; ifRevision?: number}): Promise<TaskResult> {
  const {task, commit} = await explainRevision(session, explainTakeover(session, mutateOne(session, (s, c) => deferTask(s, c, {id, reason, until, epoch, ifRevision}))))
  return {task, commit}
}

/** Issue 33: `tasks fail ID --reason R` (core/ops/states.ts); open sub-items are cancelled with it. */
export async function fail(session: Session, {id, reason, epoch}: {id: string; reason: string; epoch?: number}): Promise<TaskResult & {subitems: TaskView[]}> {
  const done = await explainTakeover(session, mutate(session, (s, c) => failTask(s, c, {id, reason, epoch})))
  const v = await viewer(session, done.after)
  return {task: v.view(done.result.task), subitems: done.result.subitems.map((t) => v.view(t)), commit: done.commit}
}

export interface CheckpointOptions extends CheckpointText {
  id: string
  epoch?: number
  lease?: number
}

/** `tasks checkpoint`: record progress and the next step on an item the actor holds, renewing the lease. */
export async function checkpoint(session: Session, {id, lease, ...options}: CheckpointOptions): Promise<TaskResult & {checkpoint: Comment}> {
  const r = await explainTakeover(session, mutateOne(session, (s, c) => checkpointTask(s, c, {id, ...options, leaseSeconds: lease})))
  return {checkpoint: r.result.checkpoint, task: r.task, commit: r.commit}
}

export async function block(session: Session, {id, reason, epoch, ifRevision, on}: {id: string; reason: string; epoch?: number; ifRevision?: number; on?: string}): Promise<TaskResult> {
  const {task, commit} = await explainRevision(session, explainTakeover(session, mutateOne(session, (s, c) => blockTask(s, c, {id, note: reason, epoch, ifRevision, on}))))
  return {task, commit}
}

async function reopenOne(session: Session, id: string, epoch?: number): Promise<TaskResult> {
  const {task, commit} = await explainTakeover(session, mutateOne(session, (s, c) => reopenTask(s, c, {id, epoch})))
  return {task, commit}
}

async function cancelOne(session: Session, id: string, reason: string, epoch?: number): Promise<TaskResult & {subitems: TaskView[]}> {
  const done = await explainTakeover(session, mutate(session, (s, c) => cancelTask(s, c, {id, reason, epoch})))
  const v = await viewer(session, done.after)
  return {task: v.view(done.result.task), subitems: done.result.subitems.map((t) => v.view(t)), commit: done.commit}
}

async function releaseOne(session: Session, id: string | undefined, all: boolean, epoch?: number, checkpoint?: CheckpointText): Promise<{released: TaskView[]; commit: string | null}> {
  if (Boolean(all) === (id !== undefined)) throw new UsageError('pass an ID to release, or --all to release everything you hold')
  if (all && checkpoint) throw new UsageError('--summary and --next describe one item: release it by ID (not --all)')
  const done = await explainTakeover(session, mutate(session, (s, c) => (all ? releaseAll(s, c) : releaseTask(s, c, {id: id!, epoch, checkpoint}))))
  const v = await viewer(session, done.after)
  return {released: done.result.tasks.map((t) => v.view(t)), commit: done.commit}
}

// ---------------------------------------------------------------- several ids
// One id keeps the single-item result shape; several run as one batch op
// (src/core/ops/batch.ts): one commit, all or nothing, and a result with one
// entry per item acted on plus the shared `commit`. `release` already
// answers with a list, so several ids only make that list longer.


function noEpochWithSeveral(ids: readonly string[], epoch: number | undefined): void {
  if (ids.length > 1 && epoch !== undefined) throw new UsageError('--epoch fences one claim: give it with a single ID')
}

export async function finish(session: Session, {ids, epoch, checkpoint}: {ids: string[]; epoch?: number; checkpoint?: CheckpointText}): Promise<(TaskResult & {changed: boolean}) | BatchResult<{task: TaskView; changed: boolean}>> {
  noEpochWithSeveral(ids, epoch)
  if (ids.length > 1 && checkpoint) throw new UsageError('--summary describes one item: give it with a single ID')
  if (ids.length === 1) return finishOne(session, ids[0]!, epoch, checkpoint)
  const done = await explainTakeover(session, mutate(session, (s, c) => runBatch(s, c, 'done', ids, (snap, ctx, id) => finishTask(snap, ctx, {id})), prepareChecks(session, () => ids)))
  const v = await viewer(session, done.after)
  return {results: done.result.map((i) => ({task: v.view(done.after.tasks.get(i.id)?.meta ?? i.result.task), changed: i.result.changed})), commit: done.commit}
}

export async function reopen(session: Session, {ids, epoch}: {ids: string[]; epoch?: number}): Promise<TaskResult | BatchResult<{task: TaskView}>> {
  noEpochWithSeveral(ids, epoch)
  if (ids.length === 1) return reopenOne(session, ids[0]!, epoch)
  const done = await mutate(session, (s, c) => runBatch(s, c, 'reopen', ids, (snap, ctx, id) => reopenTask(snap, ctx, {id})))
  const v = await viewer(session, done.after)
  return {results: done.result.map((i) => ({task: v.view(done.after.tasks.get(i.id)?.meta ?? i.result.task)})), commit: done.commit}
}

export async function cancel(session: Session, {ids, reason, epoch}: {ids: string[]; reason: string; epoch?: number}): Promise<(TaskResult & {subitems: TaskView[]}) | BatchResult<{task: TaskView; subitems: TaskView[]}>> {
  noEpochWithSeveral(ids, epoch)
  if (ids.length === 1) return cancelOne(session, ids[0]!, reason, epoch)
  const done = await mutate(session, (s, c) => runBatch(s, c, 'cancel', ids, (snap, ctx, id) => cancelTask(snap, ctx, {id, reason})))
  const v = await viewer(session, done.after)
  return {results: done.result.map((i) => ({task: v.view(i.result.task), subitems: i.result.subitems.map((t) => v.view(t))})), commit: done.commit}
}

/** `release ID…` (or `--all`): the released tasks, however many ids were given. */
export async function release(session: Session, {ids, all = false, epoch, checkpoint}: {ids: string[]; all?: boolean; epoch?: number; checkpoint?: CheckpointText}): Promise<{released: TaskView[]; commit: string | null}> {
  if (ids.length <= 1) return releaseOne(session, ids[0], all, epoch, checkpoint)
  if (checkpoint) throw new UsageError('--summary and --next describe one item: give them with a single ID')
  if (all) throw new UsageError('pass IDs to release, or --all to release everything you hold, not both')
  noEpochWithSeveral(ids, epoch)
  const done = await explainTakeover(session, mutate(session, (s, c) => runBatch(s, c, 'release', ids, (snap, ctx, id) => releaseTask(snap, ctx, {id}))))
  const v = await viewer(session, done.after)
  return {released: done.result.flatMap((i) => i.result.tasks.map((t) => v.view(t))), commit: done.commit}
}
