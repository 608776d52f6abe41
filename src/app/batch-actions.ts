/**
 * The commands that take several ids (`done`, `reopen`, `release`,
 * `cancel`, `assign`, `rm`). One id keeps the single-item result shape
 * (task-actions.ts); several run as one batch op (src/core/ops/batch.ts):
 * one commit, all or nothing, and a result with one entry per item acted
 * on plus the shared `commit`. `release` and `rm` already answer with a
 * list, so several ids only make that list longer.
 */
import {UsageError} from '../core/errors'
import {runBatch} from '../core/ops/batch'
import {releaseTask} from '../core/ops/claim'
import {assignTask} from '../core/ops/edit'
import type {CheckpointText} from '../core/ops/checkpoint'
import {cancelTask, finishTask, reopenTask} from '../core/ops/lifecycle'
import {removeTask} from '../core/ops/remove'
import type {TaskView} from '../core/task-view'
import type {Session} from './session'
import * as single from './task-actions'
import {mutate} from './transaction'
import {prepareChecks} from './coordination-actions'

/** Several ids: one entry per item acted on, in argument order, and the one commit. */
export interface BatchResult<I> {
  results: I[]
  commit: string | null
}

function noEpochWithSeveral(ids: readonly string[], epoch: number | undefined): void {
  if (ids.length > 1 && epoch !== undefined) throw new UsageError('--epoch fences one claim: give it with a single ID')
}

export async function finish(session: Session, ids: string[], epoch?: number, checkpoint?: CheckpointText): Promise<single.TaskResult & {changed: boolean} | BatchResult<{task: TaskView; changed: boolean}>> {
  noEpochWithSeveral(ids, epoch)
  if (ids.length > 1 && checkpoint) throw new UsageError('--summary describes one item: give it with a single ID')
  if (ids.length === 1) return single.finish(session, ids[0]!, epoch, checkpoint)
  const done = await single.explainTakeover(session, mutate(session, (s, c) => runBatch(s, c, 'done', ids, (snap, ctx, id) => finishTask(snap, ctx, {id})), prepareChecks(session, () => ids)))
  const v = await single.viewer(session, done.after)
  return {results: done.result.map((i) => ({task: v.view(done.after.tasks.get(i.id)?.meta ?? i.result.task), changed: i.result.changed})), commit: done.commit}
}

export async function reopen(session: Session, ids: string[]): Promise<single.TaskResult | BatchResult<{task: TaskView}>> {
  if (ids.length === 1) return single.reopen(session, ids[0]!)
  const done = await mutate(session, (s, c) => runBatch(s, c, 'reopen', ids, (snap, ctx, id) => reopenTask(snap, ctx, {id})))
  const v = await single.viewer(session, done.after)
  return {results: done.result.map((i) => ({task: v.view(done.after.tasks.get(i.id)?.meta ?? i.result.task)})), commit: done.commit}
}

export async function assign(session: Session, ids: string[], assignee: string | null, ifRevision?: number): Promise<single.TaskResult | BatchResult<{task: TaskView}>> {
  if (ids.length > 1 && ifRevision !== undefined) throw new UsageError('--if-revision names the revision of one card: give it with a single ID')
  if (ids.length === 1) return single.assign(session, ids[0]!, assignee, ifRevision)
  const done = await mutate(session, (s, c) => runBatch(s, c, 'assign', ids, (snap, ctx, id) => assignTask(snap, ctx, {id, assignee})))
  const v = await single.viewer(session, done.after)
  return {results: done.result.map((i) => ({task: v.view(done.after.tasks.get(i.id)?.meta ?? i.result.task)})), commit: done.commit}
}

export async function cancel(
  session: Session,
  ids: string[],
  reason: string,
): Promise<single.TaskResult & {subitems: TaskView[]} | BatchResult<{task: TaskView; subitems: TaskView[]}>> {
  if (ids.length === 1) return single.cancel(session, ids[0]!, reason)
  const done = await mutate(session, (s, c) => runBatch(s, c, 'cancel', ids, (snap, ctx, id) => cancelTask(snap, ctx, {id, reason})))
  const v = await single.viewer(session, done.after)
  return {results: done.result.map((i) => ({task: v.view(i.result.task), subitems: i.result.subitems.map((t) => v.view(t))})), commit: done.commit}
}

/** `release ID…` (or `--all`): the released tasks, however many ids were given. */
export async function release(session: Session, ids: string[], all: boolean, epoch?: number, checkpoint?: CheckpointText): Promise<{released: TaskView[]; commit: string | null}> {
  if (ids.length <= 1) return single.release(session, ids[0], all, epoch, checkpoint)
  if (checkpoint) throw new UsageError('--summary and --next describe one item: give them with a single ID')
  if (all) throw new UsageError('pass IDs to release, or --all to release everything you hold, not both')
  noEpochWithSeveral(ids, epoch)
  const done = await single.explainTakeover(session, mutate(session, (s, c) => runBatch(s, c, 'release', ids, (snap, ctx, id) => releaseTask(snap, ctx, {id}))))
  const v = await single.viewer(session, done.after)
  return {released: done.result.flatMap((i) => i.result.tasks.map((t) => v.view(t))), commit: done.commit}
}

/** `rm ID…`: every removed item (each task, then its sub-items), however many ids were given. */
export async function remove(session: Session, ids: string[]): Promise<{removed: Array<{id: string; title: string}>; commit: string | null}> {
  if (ids.length === 1) return single.remove(session, ids[0]!)
  const done = await mutate(session, (s, c) => runBatch(s, c, 'rm', ids, (snap, ctx, id) => removeTask(snap, ctx, {id})))
  return {removed: done.result.flatMap((i) => i.result.removed.map((t) => ({id: t.id, title: t.title}))), commit: done.commit}
}
