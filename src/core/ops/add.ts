/**
 * `add`: create a task (optionally a sub-item, with dependencies, tags,
 * priority and an assignee). With an idempotency key the id is derived from
 * the key, and adding again with the same key returns the existing task.
 */
import {parseDateInput, parseEvery} from '../dates'
import {ConflictError, InvalidError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {type Snapshot, freshId, keyedId, openRowColumns, resolve, tablesOf, taskMeta} from '../snapshot'
import {checkDependencies} from '../dependency-graph'
import {DEFAULT_PRIORITY, DEFAULT_TASK_TYPE, FINISHED, type TaskMeta} from '../task'
import {canonicalTitle, hashOfCanonical} from '../title'
import {sessionForNewTask} from './work-sessions'
import {takesSubItems} from '../state-machine'
import {checkActor, checkBody, checkPriority, checkTags, checkTitle, checkType} from '../validation'
import {nestingError} from '../nesting'
import {type FieldArgs, applyFieldEdits} from '../fields'

export interface AddArgs extends FieldArgs {
  title: string
  body?: string
  tags?: string[]
  parent?: string
  dependsOn?: string[]
  priority?: string | number
  assignee?: string
  key?: string
  /**
   * Without a key, what an open item with the same title (canonically, and
   * under the same parent) means: `reuse` returns it instead of a new one
   * (the fallback idempotency key of batch and MCP creates), `warn` creates
   * anyway and names it in `warnings` (the command line); absent: not looked for.
   */
  sameTitle?: 'reuse' | 'warn'
  /** --session: the coordination session to join (an id or prefix; exit 3 when none). */
  session?: string
  /** TASKS_SESSION: joined only when it is the full id of an existing session (else an agent-run label, ignored). */
  sessionFromEnv?: string
  /** The task type (TASK_TYPES, as the list allows); default `task`. */
  type?: string
  /** Issue 33: `--due`, `--scheduled` (dates as typed: core/dates.ts) and `--every` (a repeat interval). */
  due?: string
  scheduled?: string
  every?: string
}

export interface AddResult {
  task: TaskMeta
  /** False when --key matched an existing task and nothing was written. */
  created: boolean
  /** With `created: false`: the description asked for, for the caller to compare with the stored one (not in the snapshot). */
  body?: string
  /** Open items with the same title, said to the caller (`sameTitle`). */
  warnings?: string[]
}

/**
 * The open items (todo, in progress, blocked) under `parent` (undefined:
 * top-level) whose title is canonically `title`, oldest first. It reads
 * the open rows table, and the frontmatter only of the rows whose title
 * hash (`OpenRow`, core/title.ts) is the wanted title's: the titles of
 * those are compared, since different titles can share a hash.
 */
export function openItemsTitled(snap: Snapshot, title: string, parent: string | undefined): TaskMeta[] {
  const want = canonicalTitle(title)
  const hash = hashOfCanonical(want)
  const out: TaskMeta[] = []
  const tables = tablesOf(snap)
  const candidates = tables.openTitled?.(hash)
  if (candidates) {
    for (const id of candidates) {
      const meta = snap.tasks.get(id)?.meta
      if (meta && (meta.parent ?? '') === (parent ?? '') && !FINISHED.has(meta.status) && canonicalTitle(meta.title) === want) out.push(meta)
    }
    return out.sort(byCreation)
  }
  const cols = openRowColumns(tables.openRows())
  for (let i = 0; i < cols.length; i++) {
    if (cols.titleHash(i) !== hash || cols.parent(i) !== (parent ?? '')) continue
    const meta = snap.tasks.get(cols.id(i))?.meta
    if (meta && !FINISHED.has(meta.status) && canonicalTitle(meta.title) === want) out.push(meta)
  }
  return out.sort(byCreation)
}

function byCreation(a: TaskMeta, b: TaskMeta): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1
}

/** Fields of an existing keyed item that differ from what this add asks for. */
function keyDifferences(snap: Snapshot, existing: TaskMeta, want: {title: string; type?: string; tags: string[]; priority: number; assignee?: string; parent?: string; dependsOn: string[]; fields?: TaskMeta['fields']}): string[] {
  const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i])
  const out: string[] = []
  if (existing.title !== want.title) out.push('title')
  if (existing.type !== want.type) out.push('type')
  if (!sameSet(existing.tags, want.tags)) out.push('tags')
  if (existing.priority !== want.priority) out.push('priority')
  if ((existing.assignee ?? undefined) !== want.assignee) out.push('assignee')
  const parent = want.parent === undefined ? undefined : resolve(snap, want.parent)
  if ((existing.parent ?? undefined) !== parent) out.push('parent')
  if (!sameSet(existing.depends_on, want.dependsOn.map((d) => resolve(snap, d)))) out.push('depends_on')
  // Fields given with the retry must be the card's (a watcher may have set others since: those are not compared).
  if (want.fields && Object.entries(want.fields).some(([k, v]) => existing.fields?.[k] !== v)) out.push('fields')
  return out
}

/** The conflict of reusing an idempotency key for a different item. */
export function keyMismatch(existing: TaskMeta, key: string, fields: readonly string[]): ConflictError {
  return new ConflictError('key_mismatch', `key "${key}" already made ${existing.id} ("${existing.title}") with a different ${fields.join(', ')}; use another key, or edit ${existing.id}`, {
    id: existing.id,
    key,
    fields,
  })
}

export function addTask(snap: Snapshot, ctx: OpContext, args: AddArgs): Plan<AddResult> {
  const title = checkTitle(args.title, snap.config)
  const body = checkBody(args.body ?? '', snap.config)
  const tags = checkTags(args.tags ?? [])
  const priority = args.priority === undefined ? DEFAULT_PRIORITY : checkPriority(args.priority)
  const assignee = args.assignee === undefined ? undefined : checkActor(args.assignee, 'assignee')
  // The default type is checked too: a list whose `types` leaves out `task` wants every item typed.
  const type = checkType(args.type ?? DEFAULT_TASK_TYPE, snap.config)
  // Issue 33: custom fields, each read by its declared type (bad_field, bad_field_value: nothing written).
  const fields = applyFieldEdits(undefined, {field: args.field, fields: args.fields}, snap.config).fields
  const key = args.key?.trim()
  if (args.key !== undefined && !key) throw new InvalidError('empty_key', 'the idempotency key is empty')
  const dates = datesOf(args, ctx.now)

  let id: string
  if (key) {
    id = keyedId(snap, key)
    const existing = snap.tasks.get(id)?.meta
    if (existing) {
      // A retry with the same parameters gets the item back; the same key for something else is a conflict.
      const differs = keyDifferences(snap, existing, {title, type, tags, priority, assignee, parent: args.parent, dependsOn: args.dependsOn ?? [], fields})
      if (differs.length > 0) throw keyMismatch(existing, key, differs)
      return {op: 'add', subject: {id, title: existing.title}, changes: [], trailers: [], result: {task: existing, created: false, body}}
    }
  } else {
    if (args.sameTitle === 'reuse') {
      // The fallback idempotency key: an open item with this title under the same parent is this item.
      const same = openItemsTitled(snap, title, args.parent === undefined ? undefined : resolve(snap, args.parent))[0]
      if (same) {
        const warnings = [`an open item has this title: ${same.id} ("${same.title}") was returned instead of a new one (give a key to create another)`]
        return {op: 'add', subject: {id: same.id, title: same.title}, changes: [], trailers: [], result: {task: same, created: false, warnings}}
      }
    }
    id = freshId(snap, ctx.entropy)
  }

  let parent: string | undefined
  if (args.parent !== undefined) {
    parent = resolve(snap, args.parent)
    const p = taskMeta(snap, parent)
    const tooDeep = nestingError(snap, parent, snap.config)
    if (tooDeep) throw tooDeep
    if (!takesSubItems(p.status)) {
      throw new ConflictError('parent_finished', `${parent} is ${p.status}; reopen it before adding sub-items`, {parent, status: p.status})
    }
  }
  const depends_on = checkDependencies(snap, id, args.dependsOn ?? [])
  const work_session = sessionForNewTask(snap, {explicit: args.session, fromEnv: args.sessionFromEnv, parent: parent === undefined ? undefined : taskMeta(snap, parent)})

  const meta: TaskMeta = {
    id,
    title,
    status: 'todo',
    type,
    priority,
    tags,
    parent,
    work_session,
    depends_on,
    assignee,
    ...dates,
    epoch: 0,
    key,
    created_at: ctx.now,
    created_by: ctx.actor,
    updated_at: ctx.now,
    updated_by: ctx.actor,
    revision: 1,
    fields,
  }
  return {
    op: 'add',
    subject: {id, title},
    changes: [{kind: 'put-task', meta, body}],
    trailers: [],
    result: {task: meta, created: true, ...warnedOf(snap, args, title, parent)},
  }
}

/** Issue 33: the dates an add asks for, as stored (absent ones left out); `bad_date`/`bad_every` (exit 2) for text that is not one. */
export function datesOf(args: {due?: string; scheduled?: string; every?: string}, now: string): Pick<TaskMeta, 'due' | 'scheduled' | 'every'> {
  const out: Pick<TaskMeta, 'due' | 'scheduled' | 'every'> = {}
  if (args.due !== undefined) out.due = parseDateInput(args.due, now, '--due')
  if (args.scheduled !== undefined) out.scheduled = parseDateInput(args.scheduled, now, '--scheduled')
  if (args.every !== undefined) out.every = parseEvery(args.every)
  return out
}

/** With `sameTitle: 'warn'`: the open items this new one shares its title with, as a warning. */
function warnedOf(snap: Snapshot, args: AddArgs, title: string, parent: string | undefined): {warnings?: string[]} {
  if (args.sameTitle !== 'warn' || args.key !== undefined) return {}
  const same = openItemsTitled(snap, title, parent)
  if (same.length === 0) return {}
  return {warnings: [`an open item already has this title: ${same.map((t) => t.id).join(', ')}; created another (tasks rm it if it was a repeat)`]}
}
