/**
 * Changing what a task says rather than where it is in its life: `edit`
 * (title, body, type, priority, tags), `assign` and `deps`. The spec
 * (title, body, type, dependencies) of an item someone else holds live is
 * theirs: changing it needs --force --reason (`assertMayRevise`).
 */
import {ConflictError, UsageError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {checkDependencies} from '../dependency-graph'
import {type Snapshot, lookup} from '../snapshot'
import {FINISHED, type TaskMeta} from '../task'
import {parseDateInput, parseEvery} from '../dates'
import {checkActor, checkBody, checkNote, checkPriority, checkTags, checkTitle, checkType} from '../validation'
import {assertMayRevise, reasonTrailers} from './permission'
import {revise} from './revision'
import {assertRevision} from '../revision-guard'
import {resetChecks} from './checks'
import {assertFence} from './permission'
import {type FieldArgs, applyFieldEdits, asksFieldEdits} from '../fields'

export interface EditArgs extends FieldArgs {
  id: string
  title?: string
  body?: string
  priority?: string | number
  addTags?: string[]
  removeTags?: string[]
  /** The task type (TASK_TYPES, as the list allows). */
  type?: string
  /** Why (recorded in the commit as Tasks-Reason; `show --revisions` shows it). */
  reason?: string
  /** Apply only while the card is at this revision (`--if-revision`). */
  ifRevision?: number
  /** A coordination session asked for: refused unless it is the one the task already belongs to (a task never moves). */
  session?: string
  /** The fencing token of the actor's claim (`--epoch`). */
  epoch?: number
  /** Issue 33: new dates (core/dates.ts) or repeat interval; `none` clears one. */
  due?: string
  scheduled?: string
  every?: string
}

/** The spec fields among `fields` (what `edit` changed): those the holder of a live claim owns. */
const SPEC_EDIT_FIELDS: ReadonlySet<string> = new Set(['title', 'body', 'type'])

/** A reason, checked like a note (empty: none). */
function reasonOf(reason: string | undefined, snap: Snapshot): string | undefined {
  if (reason === undefined || reason.trim() === '') return undefined
  return checkNote('reason', reason, snap.config)
}

export function editTask(snap: Snapshot, ctx: OpContext, args: EditArgs): Plan<{task: TaskMeta; fields: string[]; checks_reset: string[]}> {
  const meta = lookup(snap, args.id)
  assertRevision(meta, args.ifRevision)
  if (args.session !== undefined) assertSameSession(meta, args.session)
  assertFence(snap, meta, ctx, args.epoch, 'edit')
  const changes: Partial<TaskMeta> = {}
  const fields: string[] = []
  if (args.title !== undefined) {
    const title = checkTitle(args.title, snap.config)
    if (title !== meta.title) (changes.title = title), fields.push('title')
  }
  if (args.type !== undefined) {
    const type = checkType(args.type, snap.config)
    if (type !== meta.type) (changes.type = type), fields.push('type')
  }
  if (args.priority !== undefined) {
    const priority = checkPriority(args.priority)
    if (priority !== meta.priority) (changes.priority = priority), fields.push('priority')
  }
  if (args.addTags?.length || args.removeTags?.length) {
    const remove = new Set(checkTags(args.removeTags ?? []))
    const tags = checkTags([...meta.tags.filter((t) => !remove.has(t)), ...(args.addTags ?? [])])
    if (tags.join(',') !== meta.tags.join(',')) (changes.tags = tags), fields.push('tags')
  }
  // Issue 33: custom fields (not the spec: anyone may keep them up to date, as a CI watcher does).
  const fieldEdits = asksFieldEdits(args)
  if (fieldEdits) {
    const custom = applyFieldEdits(meta.fields, args, snap.config)
    if (custom.changed.length > 0) (changes.fields = custom.fields), fields.push('fields')
  }
  // Issue 33: dates and the repeat interval (`none` clears one); not part of the spec.
  for (const k of ['due', 'scheduled', 'every'] as const) {
    const given = args[k]
    if (given === undefined) continue
    const value = given.trim() === 'none' ? undefined : k === 'every' ? parseEvery(given) : parseDateInput(given, ctx.now, `--${k}`)
    if (value !== meta[k]) (changes[k] = value), fields.push(k)
  }
  let body: string | undefined
  if (args.body !== undefined) {
    body = checkBody(args.body, snap.config)
    fields.push('body')
  }
  if (args.title === undefined && args.priority === undefined && args.body === undefined && args.type === undefined && !args.addTags?.length && !args.removeTags?.length && args.due === undefined && args.scheduled === undefined && args.every === undefined && !fieldEdits) {
    if (args.session !== undefined) return {op: 'edit', subject: {id: meta.id, title: meta.title}, changes: [], trailers: [], result: {task: meta, fields: [], checks_reset: []}}
    throw new UsageError('nothing to edit: pass --title, --body, --body-file, --type, --priority, --tag, --untag, --due, --scheduled, --every, --field or --unset-field')
  }
  const reason = reasonOf(args.reason, snap)
  // The spec is the holder's: checked before anything else is decided, so a refusal writes nothing.
  const spec = fields.some((f) => SPEC_EDIT_FIELDS.has(f))
  const forced = spec ? assertMayRevise(snap, meta, ctx, 'edit') : false
  if (fields.length === 0) {
    return {op: 'edit', subject: {id: meta.id, title: meta.title}, changes: [], trailers: [], result: {task: meta, fields, checks_reset: []}}
  }
  const next = revise(meta, ctx, changes)
  // A new title, description or type is a new spec revision: checks that passed or failed go back to pending, in this commit.
  // Not on a finished card, whose checks no longer change (a done card stays done with its checks passed: doctor).
  const open = !FINISHED.has(next.status)
  const reset = open && (fields.includes('title') || fields.includes('body') || fields.includes('type')) ? resetChecks(snap, ctx, next) : {changes: [], reset: []}
  return {
    op: 'edit',
    subject: {id: meta.id, title: next.title},
    changes: [{kind: 'put-task', meta: next, body}, ...reset.changes],
    trailers: [['Tasks-Fields', fields.join(', ')], ...(reset.reset.length ? [['Tasks-Checks-Reset', reset.reset.join(' ')] as [string, string]] : []), ...reasonTrailers(ctx, reason, forced)],
    result: {task: next, fields, checks_reset: reset.reset},
  }
}

/** Reserve an item for an actor (or clear the reservation with `null`). */
export function assignTask(snap: Snapshot, ctx: OpContext, args: {id: string; assignee: string | null; ifRevision?: number}): Plan<{task: TaskMeta}> {
  const meta = lookup(snap, args.id)
  assertRevision(meta, args.ifRevision)
  const assignee = args.assignee === null ? undefined : checkActor(args.assignee, 'assignee')
  const subject = {id: meta.id, title: meta.title}
  if (assignee === meta.assignee) return {op: 'assign', subject, changes: [], trailers: [], result: {task: meta}}
  const next = revise(meta, ctx, {assignee})
  return {op: 'assign', subject, changes: [{kind: 'put-task', meta: next}], trailers: [['Tasks-Assignee', assignee ?? '(none)']], result: {task: next}}
}

/** Replace an item's dependency set (an empty list clears it). */
export function setDependencies(snap: Snapshot, ctx: OpContext, args: {id: string; deps: string[]; reason?: string; ifRevision?: number; epoch?: number}): Plan<{task: TaskMeta}> {
  const meta = lookup(snap, args.id)
  assertRevision(meta, args.ifRevision)
  assertFence(snap, meta, ctx, args.epoch, 'change the dependencies of')
  const reason = reasonOf(args.reason, snap)
  const deps = checkDependencies(snap, meta.id, args.deps)
  const changing = deps.join(',') !== meta.depends_on.join(',')
  // The dependencies are part of the spec: someone else's live claim needs --force --reason (nothing is written otherwise).
  const forced = changing ? assertMayRevise(snap, meta, ctx, 'change the dependencies of') : false
  const subject = {id: meta.id, title: meta.title}
  if (meta.status === 'done') {
    const open = deps.filter((d) => snap.tasks.get(d)?.status !== 'done')
    if (open.length > 0) {
      throw new ConflictError('done_with_open_dependency', `${meta.id} is done; it cannot depend on unfinished ${open.join(', ')} (reopen it first)`, {
        id: meta.id,
        open,
      })
    }
  }
  if (!changing) return {op: 'deps', subject, changes: [], trailers: [], result: {task: meta}}
  const next = revise(meta, ctx, {depends_on: deps})
  return {op: 'deps', subject, changes: [{kind: 'put-task', meta: next}], trailers: [['Tasks-Depends-On', deps.join(' ') || '(none)'], ...reasonTrailers(ctx, reason, forced)], result: {task: next}}
}

/**
 * A task never moves between sessions: `edit --session S` is accepted only
 * when S names the session the task already belongs to (its id or a prefix
 * of it), else exit 4 `session_fixed`, nothing written.
 */
export function assertSameSession(meta: TaskMeta, asked: string): void {
  const want = asked.trim().toLowerCase()
  const have = meta.work_session
  const same = have !== undefined && want.length >= 8 && (have === want || have.startsWith(want.startsWith('ses-') ? want : `ses-${want}`))
  if (same) return
  throw new ConflictError('session_fixed', `${meta.id} belongs to ${have ? `session ${have}` : 'no session'}; a task never moves between sessions (asked: ${asked})`, {
    id: meta.id,
    session: have ?? null,
    asked,
  })
}
