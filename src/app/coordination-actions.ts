/**
 * Use cases of the coordination commands: checks with evidence, flags,
 * sessions and lease recovery (sweep, takeover, release --session), and
 * retention (prune). Each runs one pure op through the transaction; the
 * checks of the tasks an op is about are read before each try
 * (`prepareChecks`), so a lost race re-reads them too.
 */
import {type Check, sortChecks} from '../core/check'
import {releaseSession, sweepExpired, takeoverTask} from '../core/ops/claim'
import {addCheck, recordCheck, supersedeCheck} from '../core/ops/checks'
import {flagTask, unflagTask} from '../core/ops/flag'
import {type PruneResult, pruneFinished} from '../core/ops/prune'
import {type BatchFileResult, type BatchTable, readBatchDocument, readsChecks, runBatchFile} from '../core/ops/batch-file'
import {UsageError} from '../core/errors'
import {checksOf, lookup} from '../core/snapshot'
import type {TaskView} from '../core/task-view'
import {checkActor} from '../core/validation'
import type {Session} from './session'
import {type TaskResult, viewer} from './task-results'
import type {ClaimOutput} from './claim-actions'
import {explainRevision, explainTakeover} from './refusals'
import {prepareChecks, prepareComments} from './check-reads'
import {prepareSessions} from './work-session-actions'
import {guardRevision} from '../core/revision-guard'
import {mutate} from './transaction'

export interface CheckOutput {
  task: TaskView
  check: Check
  /** Null when the check already stood as asked (nothing written). */
  commit: string | null
}

async function checkMutation(session: Session, id: string, op: Parameters<typeof mutate<{task: import('../core/task').TaskMeta; check: Check; changed: boolean}>>[1], ifRevision?: number): Promise<CheckOutput> {
  const done = await explainRevision(session, explainTakeover(session, mutate(session, guardRevision(id, ifRevision, op), prepareChecks(session, () => [id]))))
  const v = await viewer(session, done.after)
  return {task: v.view(done.after.tasks.get(done.result.task.id)?.meta ?? done.result.task), check: done.result.check, commit: done.commit}
}

export function checkAdd(session: Session, {id, kind, text, reason, ifRevision, epoch}: {id: string; kind: string; text: string; reason?: string; ifRevision?: number; epoch?: number}): Promise<CheckOutput> {
  return checkMutation(session, id, (s, c) => addCheck(s, c, {id, kind, text, reason, epoch}), ifRevision)
}

export function checkRecord(session: Session, {id, check, outcome, evidence, ifRevision, epoch}: {id: string; check: string; outcome: 'passed' | 'failed'; evidence: string; ifRevision?: number; epoch?: number}): Promise<CheckOutput> {
  return checkMutation(session, id, (s, c) => recordCheck(s, c, {id, check, outcome, evidence, epoch}), ifRevision)
}

export function checkSupersede(session: Session, {id, check, reason, ifRevision, epoch}: {id: string; check: string; reason: string; ifRevision?: number; epoch?: number}): Promise<CheckOutput> {
  return checkMutation(session, id, (s, c) => supersedeCheck(s, c, {id, check, reason, epoch}), ifRevision)
}

export interface CheckListOutput {
  task: TaskView
  checks: Check[]
  /** Active checks that have not passed with evidence: what stands in the way of `done`. */
  unmet: string[]
  broken: Array<{path: string; error: string}>
}

export async function checkList(session: Session, {id}: {id: string}): Promise<CheckListOutput> {
  const loaded = await session.store.load()
  const meta = lookup(loaded.snapshot, id)
  const {checks, broken} = await session.store.readChecks(loaded.index.commit, [meta.id])
  const list = sortChecks(checks.get(meta.id) ?? [])
  const v = await viewer(session, loaded.snapshot)
  const {unmetChecks} = await import('../core/check')
  return {task: v.view(meta), checks: list, unmet: unmetChecks(list).map((c) => c.id), broken}
}

export async function flag(session: Session, {id, reason, ifRevision}: {id: string; reason: string; ifRevision?: number}): Promise<TaskResult> {
  const done = await explainRevision(session, mutate(session, guardRevision(id, ifRevision, (s, c) => flagTask(s, c, {id, reason}))))
  const v = await viewer(session, done.after)
  return {task: v.view(done.after.tasks.get(done.result.task.id)?.meta ?? done.result.task), commit: done.commit}
}

export async function unflag(session: Session, {id, ifRevision}: {id: string; ifRevision?: number}): Promise<TaskResult> {
  const done = await explainRevision(session, mutate(session, guardRevision(id, ifRevision, (s, c) => unflagTask(s, c, {id}))))
  const v = await viewer(session, done.after)
  return {task: v.view(done.after.tasks.get(done.result.task.id)?.meta ?? done.result.task), commit: done.commit}
}

export async function sweep(session: Session): Promise<{swept: TaskView[]; commit: string | null}> {
  const done = await mutate(session, (s, c) => sweepExpired(s, c))
  const v = await viewer(session, done.after)
  return {swept: done.result.tasks.map((t) => v.view(t)), commit: done.commit}
}

export async function takeover(session: Session, {id, reason, confirm, ifRevision, lease}: {id: string; reason: string; confirm?: string; ifRevision?: number; lease?: number}): Promise<ClaimOutput> {
  const done = await explainRevision(session, mutate(session, (s, c) => takeoverTask(s, c, {id, reason, confirm, ifRevision, leaseSeconds: lease})))
  const v = await viewer(session, done.after)
  return {task: v.view(done.after.tasks.get(done.result.task.id)?.meta ?? done.result.task), commit: done.commit, took_over_from: done.result.took_over_from ?? null, already_owned: false}
}

export async function releaseBySession(session: Session, {session: name}: {session: string}): Promise<{released: TaskView[]; commit: string | null}> {
  checkActor(name, 'session')
  const done = await explainTakeover(session, mutate(session, (s, c) => releaseSession(s, c, name)))
  const v = await viewer(session, done.after)
  return {released: done.result.tasks.map((t) => v.view(t)), commit: done.commit}
}

export async function prune(session: Session, {olderThan}: {olderThan?: number}): Promise<PruneResult & {commit: string | null}> {
  const done = await mutate(session, (s, c) => pruneFinished(s, c, {olderThanSeconds: olderThan}))
  return {...done.result, commit: done.commit}
}

export {checksOf}

// ---------------------------------------------------------------- batch

/**
 * `tasks batch`: the operations (a JSON list, or an object with an
 * `operations` list; as text, from a file, or already parsed) run as one op
 * through the transaction: one commit, or none. `table` is the operation
 * table's batch operations (src/operations), handed down by the caller.
 */
export async function batchFile(session: Session, {operations, each, table}: {operations: unknown; each?: boolean; table: BatchTable}): Promise<BatchFileResult & {commit: string | null}> {
  let parsed = operations
  if (typeof operations === 'string') {
    try {
      parsed = JSON.parse(operations)
    } catch (error) {
      throw new UsageError(`the batch is not valid JSON: ${(error as Error).message}`, {}, 'bad_batch')
    }
  }
  // A list, or {operations, lease}: the default lease folded into the operations that take one; other keys refused.
  const ops = readBatchDocument(parsed, table)
  if (ops.length === 0) throw new UsageError('the batch is empty', {}, 'bad_batch')
  const referenced = (): string[] => {
    const out: string[] = []
    for (const o of ops) {
      if (readsChecks(table, o)) {
        const id = (o as {id?: unknown}).id
        if (typeof id === 'string' && !id.startsWith('$')) out.push(id)
      }
    }
    return out
  }
  // Comments with a key: the comments of their tasks are read too, so a retried item records nothing.
  const keyed = ops.filter((o): o is {id?: unknown} => o !== null && typeof o === 'object' && (o as {op?: unknown}).op === 'comment' && (o as {key?: unknown}).key !== undefined)
  // A task the batch itself creates ($name) has no comments yet: the overlay gives it an empty list.
  const keyedComments = (): string[] => keyed.flatMap((o) => (typeof o.id === 'string' && !o.id.startsWith('$') ? [o.id] : []))
  const checked = keyed.length > 0 ? prepareComments(session, keyedComments, prepareChecks(session, referenced)) : prepareChecks(session, referenced)
  // A create that joins a coordination session: the session records are read too (the op checks the session exists and is open).
  const joins = ops.some((o) => o !== null && typeof o === 'object' && (o as {session?: unknown}).session !== undefined)
  const prepare = joins ? prepareSessions(checked) : checked
  const done = await mutate(session, (s, c) => runBatchFile(s, c, ops, each ? 'each' : 'atomic', table), prepare)
  return {...done.result, commit: done.commit}
}
