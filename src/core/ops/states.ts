/**
 * Issue 33: the deferred and failed states, and repeats.
 *
 *   todo | in_progress | blocked ──defer──▶ deferred ──(--until comes)──▶ todo
 *                                  deferred ──reopen──▶ todo
 *   todo | in_progress | blocked | deferred ──fail──▶ failed ──reopen──▶ todo
 *
 * Who may make each move is the rulebook's (core/state-machine.ts, TASK_MOVES);
 * a deferral runs out at read time (core/dates.ts, `wokenStatus`), so the ops
 * take the card as woken (`wokenMeta`). docs/model.md, "Deferred and failed"
 * and "Dates and repeats".
 */
import {ConflictError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {type Snapshot, keyedId, lookup} from '../snapshot'
import type {TaskMeta} from '../task'
import {checkNote} from '../validation'
import {parseDateInput, shiftDate, startMs, wokenMeta} from '../dates'
import {takesSubItems, taskMove} from '../state-machine'
import {assertMove, overrideTrailers} from './permission'
import {type CloseArgs, closeTask} from './finish-subtree'
import {NO_CLAIM, revise} from './revision'
import {assertRevision} from '../revision-guard'

export interface DeferArgs {
  id: string
  reason: string
  /** `--until`: as typed (YYYY-MM-DD, a timestamp, today, tomorrow, +3d); absent: until reopened. */
  until?: string
  epoch?: number
  ifRevision?: number
}

/** Park an item: not handed out by `next`, not stale, back to todo once `until` has come (or by `reopen`). */
export function deferTask(snap: Snapshot, ctx: OpContext, args: DeferArgs): Plan<{task: TaskMeta}> {
  const meta = wokenMeta(lookup(snap, args.id), ctx.now)
  assertRevision(meta, args.ifRevision)
  const reason = checkNote('reason', args.reason, snap.config)
  const until = args.until === undefined ? undefined : parseDateInput(args.until, ctx.now, '--until')
  if (until !== undefined && startMs(until) <= Date.parse(ctx.now)) {
    throw new ConflictError('until_passed', `--until ${until} has already come; give a later date, or leave --until out to defer ${meta.id} until it is reopened`, {id: meta.id, until})
  }
  const row = taskMove('defer', meta.status)
  if (!row) throw new ConflictError('not_open', `${meta.id} is ${meta.status}; only open items can be deferred${meta.status === 'done' || meta.status === 'failed' ? ' (reopen it first)' : ''}`, {id: meta.id, status: meta.status})
  const verdict = assertMove(snap, meta, ctx, 'defer', 'defer', args.epoch)
  // Someone else's lapsed claim deferred: its former holder is fenced out, as by a reopen.
  const fenced = verdict.lapsed && row.fences === true
  const next = revise(meta, ctx, {...NO_CLAIM, status: 'deferred', defer_reason: reason, defer_until: until, ...(fenced ? {epoch: meta.epoch + 1} : {})})
  return {
    op: 'defer',
    subject: {id: meta.id, title: meta.title},
    changes: [{kind: 'put-task', meta: next}],
    trailers: [['Tasks-Reason', reason], ...(until ? [['Tasks-Until', until] as [string, string]] : []), ...(verdict.overridden ? overrideTrailers(ctx) : [])],
    result: {task: next},
  }
}

export type FailArgs = CloseArgs

/**
 * Record that an item failed: terminal like cancelled (its dependents keep
 * waiting, its parent counts it as finished), but `reopen` brings it back.
 * Its unfinished sub-items are cancelled with it (they did not fail); the
 * op is cancel's, for the move `fail` (ops/finish-subtree.ts, closeTask).
 */
export function failTask(snap: Snapshot, ctx: OpContext, args: FailArgs): Plan<{task: TaskMeta; subitems: TaskMeta[]}> {
  return closeTask(snap, ctx, 'fail', args)
}

/** The idempotency key of the instance that follows `id` (one next instance per instance, on every clone). */
export function repeatKey(id: string): string {
  return `repeat:${id}`
}

/**
 * The next instance of a repeating item being finished (`every` set), or
 * null when there is none to make (not repeating, or made already by an
 * earlier finish of the same instance). Its id comes from the finished
 * instance's id (the idempotency key `repeat:<id>`), so two clones that
 * finish the same instance offline create the same card, which the merge
 * folds into one. Its dates move on by the interval until they lie after
 * the day it was finished (UTC), so both clones move them alike; an item
 * without dates is scheduled one interval after that day. The description
 * is not copied (the snapshot holds none): the instance says which one it
 * follows, in `previous` and in its description.
 */
export function nextInstance(snap: Snapshot, ctx: OpContext, meta: TaskMeta): TaskMeta | null {
  if (meta.every === undefined) return null
  const key = repeatKey(meta.id)
  const id = keyedId(snap, key)
  if (snap.tasks.has(id)) return null
  const today = ctx.now.slice(0, 10)
  const todayEnd = startMs(today) + 86_400_000
  const moved = (date: string): string => {
    let d = shiftDate(date, meta.every!)
    // At most a few thousand steps (a daily item left for years); each step moves on by at least a day.
    for (let i = 0; i < 20_000 && startMs(d) < todayEnd; i++) d = shiftDate(d, meta.every!)
    return d
  }
  const due = meta.due === undefined ? undefined : moved(meta.due)
  let scheduled = meta.scheduled === undefined ? undefined : moved(meta.scheduled)
  if (due === undefined && scheduled === undefined) scheduled = shiftDate(today, meta.every)
  const parent = meta.parent !== undefined && snap.tasks.get(meta.parent)?.meta && takesSubItems(snap.tasks.get(meta.parent)!.meta!.status) ? meta.parent : undefined
  const next: TaskMeta = {
    id,
    title: meta.title,
    status: 'todo',
    type: meta.type,
    priority: meta.priority,
    tags: meta.tags,
    parent,
    depends_on: meta.depends_on.filter((d) => snap.tasks.has(d)),
    assignee: meta.assignee,
    due,
    scheduled,
    every: meta.every,
    previous: meta.id,
    epoch: 0,
    key,
    collaborators: meta.collaborators,
    subscribers: meta.subscribers,
    created_at: ctx.now,
    created_by: ctx.actor,
    updated_at: ctx.now,
    updated_by: ctx.actor,
    revision: 1,
  }
  for (const k of Object.keys(next) as Array<keyof TaskMeta>) if (next[k] === undefined) delete next[k]
  return next
}

/** The description of a next instance: which one it follows (deterministic, so two clones write the same file). */
export function instanceBody(meta: TaskMeta): string {
  return `Repeats ${meta.id} (every ${meta.every}).\n`
}
