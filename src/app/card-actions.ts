/**
 * Use cases that write what a card says: add, edit, assign, deps, comment
 * and rm. Each runs one pure op through the transaction and answers with
 * the card as the actor sees it.
 */
import {keyMismatch} from '../core/ops/add'
import {type AddWithChecksArgs, addTaskWithChecks} from '../core/ops/add-with-checks'
import {runBatch} from '../core/ops/batch'
import type {Check} from '../core/check'
import {UsageError} from '../core/errors'
import type {TaskView} from '../core/task-view'
import {addComment} from '../core/ops/comment'
import {assignTask, editTask, type EditArgs} from '../core/ops/edit'
import {setDependenciesAndBlocks} from '../core/ops/blocks'
import {removeTask} from '../core/ops/remove'
import {type Comment} from '../core/task'
import type {Session} from './session'
import {mutate} from './transaction'
import {type BatchResult, type TaskResult, mutateOne, viewer} from './task-results'
import {explainRevision, explainTakeover} from './refusals'
import {prepareChecks, prepareComments} from './check-reads'
import {prepareForAdd} from './work-session-actions'

/** `add`: the task, and its acceptance criteria and tests as checks, in one commit. */
export async function add(session: Session, args: AddWithChecksArgs): Promise<TaskResult & {created: boolean; checks: Check[]; warnings: string[]}> {
  const r = await mutateOne(session, (s, c) => addTaskWithChecks(s, c, args), prepareForAdd(args.session, args.sessionFromEnv))
  const warnings = r.result.warnings ?? []
  // Said where a person sees it too (stderr; a JSON line with --json), besides the result's warnings.
  for (const message of warnings) session.warn({kind: r.result.created ? 'same_title' : 'same_title_reused', message, id: r.task.id})
  if (!r.result.created && r.result.body !== undefined) {
    // The key matched: the description is the one parameter the snapshot does not hold.
    const stored = r.at ? (await session.store.readDetail(r.at, r.task.id)).body : ''
    if (stored.trimEnd() !== r.result.body.trimEnd()) throw keyMismatch(r.result.task, r.result.task.key ?? args.key ?? '', ['body'])
  }
  return {task: r.task, created: r.result.created, checks: r.result.checks, warnings, commit: r.commit}
}

export async function edit(session: Session, args: EditArgs): Promise<TaskResult & {fields: string[]; checks_reset: string[]}> {
  const r = await explainRevision(session, explainTakeover(session, mutateOne(session, (s, c) => editTask(s, c, args), args.title !== undefined || args.body !== undefined || args.type !== undefined ? prepareChecks(session, () => [args.id]) : undefined)))
  return {task: r.task, fields: r.result.fields, checks_reset: r.result.checks_reset, commit: r.commit}
}

async function assignOne(session: Session, id: string, assignee: string | null, ifRevision?: number): Promise<TaskResult> {
  const {task, commit} = await explainRevision(session, mutateOne(session, (s, c) => assignTask(s, c, {id, assignee, ifRevision})))
  return {task, commit}
}

export async function deps(session: Session, {id, dependsOn, blocks, reason, ifRevision, epoch}: {id: string; dependsOn: string[]; blocks?: string[]; reason?: string; ifRevision?: number; epoch?: number}): Promise<TaskResult> {
  const {task, commit} = await explainRevision(session, explainTakeover(session, mutateOne(session, (s, c) => setDependenciesAndBlocks(s, c, {id, deps: dependsOn, blocks, reason, ifRevision, epoch}))))
  return {task, commit}
}

/** `comment ID TEXT`; with `key`, a retry (the key already on the task) records nothing and returns that comment. */
export async function comment(session: Session, {id, text, kind, ifRevision, key, epoch}: {id: string; text: string; kind?: string; ifRevision?: number; key?: string; epoch?: number}): Promise<{comment: Comment; created: boolean; commit: string | null}> {
  const done = await explainRevision(session, explainTakeover(session, mutate(session, (s, c) => addComment(s, c, {id, text, kind, ifRevision, key, epoch}), key === undefined ? undefined : prepareComments(session, () => [id]))))
  return {comment: done.result.comment, created: done.result.created, commit: done.commit}
}

/** `rm ID…`: every removed item (each task, then its sub-items when asked), however many ids were given; several are one commit. */
export async function remove(session: Session, {ids, reason, withSubitems}: {ids: string[]; reason: string; withSubitems?: boolean}): Promise<{removed: Array<{id: string; title: string}>; commit: string | null}> {
  if (ids.length === 1) {
    const one = await mutate(session, (s, c) => removeTask(s, c, {id: ids[0]!, reason, withSubitems}))
    return {removed: one.result.removed.map((t) => ({id: t.id, title: t.title})), commit: one.commit}
  }
  const done = await mutate(session, (s, c) => runBatch(s, c, 'rm', ids, (snap, ctx, id) => removeTask(snap, ctx, {id, reason, withSubitems})))
  return {removed: done.result.flatMap((i) => i.result.removed.map((t) => ({id: t.id, title: t.title}))), commit: done.commit}
}

/** `assign ID… ACTOR` (null: lift the reservation); several ids are one commit. */
export async function assign(session: Session, {ids, assignee, ifRevision}: {ids: string[]; assignee: string | null; ifRevision?: number}): Promise<TaskResult | BatchResult<{task: TaskView}>> {
  if (ids.length > 1 && ifRevision !== undefined) throw new UsageError('--if-revision names the revision of one card: give it with a single ID')
  if (ids.length === 1) return assignOne(session, ids[0]!, assignee, ifRevision)
  const done = await mutate(session, (s, c) => runBatch(s, c, 'assign', ids, (snap, ctx, id) => assignTask(snap, ctx, {id, assignee})))
  const v = await viewer(session, done.after)
  return {results: done.result.map((i) => ({task: v.view(done.after.tasks.get(i.id)?.meta ?? i.result.task)})), commit: done.commit}
}
