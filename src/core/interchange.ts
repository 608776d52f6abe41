/**
 * The portable document of `tasks export` / `tasks import` (pure), and the
 * import of Taskwarrior's `task export` JSON into the same records.
 *
 * Document (format "git-tasks/export", version 1):
 *   {format, version, list, commit, exported_at, tasks: [ExportedTask]}
 * An exported task is every frontmatter field except the fencing tokens
 * (`epoch`, `claim_epochs`: they prove a live claim in one list and mean
 * nothing in another), so also the session, flag and roles (collaborators,
 * subscribers, notify_roles, notify_mute); plus `body`, `comments` (every
 * kind: id, kind, author, created_at, body, and a checkpoint's epoch,
 * session and next, and the key of one recorded with `comment --key`) and `checks` (each check file as `check list` shows
 * it; absent in documents written before checks existed). Unknown
 * frontmatter keys travel in `extra`. Inbox records, reminder latches and
 * the actor registry are not part of a card and are never exported.
 *
 * The import op is idempotent by key: a git-tasks document keeps its ids; a
 * Taskwarrior task gets the id its key `taskwarrior:<uuid>` gives (the same
 * rule as `add --key`). A card that already holds what the document says is
 * left alone, one that differs is rewritten (revision + 1), a comment
 * is added only when its id is not there yet, and a check is written only
 * when its file would differ from the one the card has; so a second import of the
 * same file changes nothing. Everything is one plan: one commit.
 */
import {createHash} from 'node:crypto'
import {InvalidError, NotPermittedError, TasksError} from './errors'
import {isStoredId} from './ids'
import type {OpContext, Plan, Change} from './plan'
import {type Snapshot, keyedId} from './snapshot'
import {CHECKPOINT_KIND, COMMENT_KINDS, STATUSES, TOOL_COMMENT_KINDS, TASK_KEYS, type Comment, type CommentKind, type ListConfig, type Status, type TaskMeta} from './task'
import {parseCommentFile, parseTaskFile, serialiseComment, serialiseTask} from './task-file'
import {byteLength, checkActor, checkBody, checkPriority, checkTags, checkText, checkTitle, checkType} from './validation'
import {compactTimestamp} from './ops/comment'
import {withChanges} from './apply'
import {type Check, parseCheckFile, serialiseCheck} from './check'
import {ancestorsOf, depthOf} from './nesting'
import {MAX_FIELDS, checkFieldsObject, storedFieldProblem} from './fields'

export const EXPORT_FORMAT = 'git-tasks/export'
export const EXPORT_VERSION = 1
/** The largest document `tasks import` reads by default (bytes; TASKS_IMPORT_MAX_BYTES sets another): the same as `tasks batch`. */
export const IMPORT_MAX_BYTES = 64 * 1024 * 1024
/** Frontmatter keys an export leaves out: the fencing tokens of claims. */
export const NOT_EXPORTED = ['epoch', 'claim_epochs'] as const

export interface ExportedComment {
  id: string
  kind: CommentKind
  author: string
  created_at: string
  body: string
  /** Checkpoints (kind `checkpoint`): the claim's epoch, the session and the next step. */
  epoch?: number
  session?: string
  next?: string
  /** `comment --key`: its idempotency key. */
  key?: string
}

/** Every comment kind a card may hold: the typed ones, checkpoints and the hooks' linked commits. */
const ALL_COMMENT_KINDS: readonly string[] = [...COMMENT_KINDS, CHECKPOINT_KIND, ...TOOL_COMMENT_KINDS]

/** One commit of a card's history, as `export ID` carries it (informational: import does not replay history). */
export interface ExportedEvent {
  commit: string
  actor: string
  date: string
  op: string
  subject: string
}

export type ExportedTask = Omit<TaskMeta, 'epoch' | 'claim_epochs'> & {
  body: string
  comments: ExportedComment[]
  checks?: Check[]
  /** `export ID`: every spec revision (show --revisions), read from the ref's history. */
  revisions?: unknown[]
  /** `export ID`: every commit that touched the card, oldest first. */
  events?: ExportedEvent[]
}

export interface ExportDocument {
  format: typeof EXPORT_FORMAT
  version: number
  list: string
  commit: string
  exported_at: string
  tasks: ExportedTask[]
}

export function exportedTask(meta: TaskMeta, body: string, comments: readonly Comment[], checks: readonly Check[] = []): ExportedTask {
  const out: Record<string, unknown> = {}
  for (const k of TASK_KEYS) if (!(NOT_EXPORTED as readonly string[]).includes(k) && meta[k] !== undefined) out[k] = meta[k]
  if (meta.extra) out.extra = meta.extra
  out.body = body
  out.comments = comments.map((c) => ({id: c.id, kind: c.kind, author: c.author, created_at: c.created_at, body: c.body, ...(c.epoch !== undefined ? {epoch: c.epoch} : {}), ...(c.session !== undefined ? {session: c.session} : {}), ...(c.next !== undefined ? {next: c.next} : {}), ...(c.key !== undefined ? {key: c.key} : {})}))
  out.checks = checks.map((c) => ({...c}))
  return out as ExportedTask
}

/** One card to import: its frontmatter (epoch filled in by the op), description and comments. */
export interface ImportRecord {
  meta: Omit<TaskMeta, 'epoch' | 'claim_epochs'>
  body: string
  comments: ExportedComment[]
  /** The card's checks (their `task` is the card's id, whatever the file says). */
  checks: Check[]
  /** Where it came from, for error messages (`tasks[3]`, `uuid …`). */
  origin: string
}

function bad(message: string, data: Record<string, unknown> = {}): InvalidError {
  return new InvalidError('bad_import', message, data)
}

/** What a JSON value is, for an error message (never the value itself: it may be long, or someone's file). */
function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return 'text'
  return `a ${typeof value}`
}

function wrongType(origin: string, field: string, expected: string, value: unknown, data: Record<string, unknown> = {}): InvalidError {
  return bad(`${origin}: "${field}" must be ${expected}, not ${jsonType(value)}`, {...data, origin, field})
}

/** The records of a git-tasks export document; refuses another format or a newer version. */
export function recordsOfDocument(doc: unknown): ImportRecord[] {
  const d = doc as Partial<ExportDocument>
  if (!d || typeof d !== 'object' || d.format !== EXPORT_FORMAT) throw bad(`not a git-tasks export document (format "${EXPORT_FORMAT}") nor a Taskwarrior export (a JSON array)`)
  if (typeof d.version !== 'number' || d.version > EXPORT_VERSION) throw bad(`export document version ${String(d.version)} is newer than this git-tasks reads (${EXPORT_VERSION}); upgrade git-tasks`, {version: d.version})
  if (!Array.isArray(d.tasks)) throw bad('the document has no "tasks" array')
  return d.tasks.map((t, i) => {
    if (!t || typeof t !== 'object') throw bad(`tasks[${i}] is not an object`, {index: i})
    // revisions and events are the exporting list's history: read, never replayed (the import is a change of its own).
    const {body, comments, checks, revisions: _revisions, events: _events, ...meta} = t as ExportedTask
    const origin = `tasks[${i}] (${String((meta as {id?: unknown}).id)})`
    // A field of the wrong type is refused, never read as something else.
    if (body !== undefined && typeof body !== 'string') throw wrongType(origin, 'body', 'text', body, {index: i})
    if (comments !== undefined && !Array.isArray(comments)) throw wrongType(origin, 'comments', 'a list', comments, {index: i})
    if (checks !== undefined && !Array.isArray(checks)) throw wrongType(origin, 'checks', 'a list', checks, {index: i})
    return {meta: meta as ImportRecord['meta'], body: body ?? '', comments: comments ?? [], checks: checks ?? [], origin}
  })
}

// ---------------------------------------------------------------- Taskwarrior

interface TwAnnotation {
  entry?: string
  description?: string
}

interface TwTask {
  uuid?: string
  description?: string
  status?: string
  entry?: string
  modified?: string
  end?: string
  start?: string
  priority?: string
  project?: string
  tags?: string[]
  depends?: string | string[]
  annotations?: TwAnnotation[]
  due?: string
  scheduled?: string
  wait?: string
  recur?: string
}

const TW_TIMES = ['entry', 'modified', 'end', 'start', 'due', 'wait', 'scheduled', 'until'] as const

/**
 * The fields a Taskwarrior task must hold as Taskwarrior writes them: a
 * field of another type (`"tags": "notalist"`, a number for a date) or a
 * date that does not read is an error naming the task and the field, not
 * something read another way.
 */
function checkTaskwarriorTypes(t: TwTask, origin: string, data: Record<string, unknown>): void {
  const raw = t as unknown as Record<string, unknown>
  const text = (field: string) => {
    if (raw[field] !== undefined && typeof raw[field] !== 'string') throw wrongType(origin, field, 'text', raw[field], data)
  }
  const texts = (field: string) => {
    const v = raw[field]
    if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))) throw wrongType(origin, field, 'a list of text', Array.isArray(v) ? v.find((x) => typeof x !== 'string') : v, data)
  }
  if (typeof t.description !== 'string') throw wrongType(origin, 'description', 'text', t.description, data)
  text('status')
  text('priority')
  text('project')
  texts('tags')
  if (t.depends !== undefined && typeof t.depends !== 'string') texts('depends')
  for (const field of TW_TIMES) {
    text(field)
    const v = raw[field] as string | undefined
    if (v !== undefined && taskwarriorTime(v, '') === '') throw bad(`${origin}: "${field}" is not a date (expected 20231201T120000Z or ISO-8601)`, {...data, origin, field})
  }
  if (t.annotations !== undefined) {
    if (!Array.isArray(t.annotations)) throw wrongType(origin, 'annotations', 'a list', t.annotations, data)
    t.annotations.forEach((a, j) => {
      const field = `annotations[${j}]`
      if (!a || typeof a !== 'object' || Array.isArray(a)) throw wrongType(origin, field, 'an object', a, data)
      if (typeof a.description !== 'string') throw wrongType(origin, `${field}.description`, 'text', a.description, data)
      if (a.entry !== undefined && (typeof a.entry !== 'string' || taskwarriorTime(a.entry, '') === '')) throw bad(`${origin}: "${field}.entry" is not a date`, {...data, origin, field: `${field}.entry`})
    })
  }
}

/** `20231201T120000Z` → `2023-12-01T12:00:00.000Z`; also accepts ISO-8601. */
export function taskwarriorTime(value: string | undefined, fallback: string): string {
  if (!value) return fallback
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value)
  const t = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Date.parse(value)
  return Number.isNaN(t) ? fallback : new Date(t).toISOString()
}

const TW_STATUS: Record<string, Status> = {pending: 'todo', waiting: 'todo', recurring: 'todo', completed: 'done', deleted: 'cancelled'}
const TW_PRIORITY: Record<string, number> = {H: 1, M: 2, L: 3}

/** Issue 33: a Taskwarrior `recur` (daily, weekly, monthly, yearly, 2weeks, 3d …) as `every`, or undefined for one it has no interval for. */
function twEvery(recur: string | undefined): string | undefined {
  const m = /^(\d{1,3})?\s*([a-z]+)$/i.exec(recur?.trim() ?? '')
  if (!m) return undefined
  const unit: Record<string, string> = {d: 'd', day: 'd', days: 'd', daily: 'd', w: 'w', wk: 'w', wks: 'w', week: 'w', weeks: 'w', weekly: 'w', mo: 'm', mos: 'm', month: 'm', months: 'm', monthly: 'm', y: 'y', yr: 'y', yrs: 'y', year: 'y', years: 'y', yearly: 'y', annual: 'y'}
  const u = unit[m[2]!.toLowerCase()]
  const n = m[1] ? Number(m[1]) : 1
  return u && n > 0 ? `${n}${u}` : undefined
}

function twTag(raw: string): string | null {
  // Tags are ASCII letters, digits and ._:/+- (schemas/task.schema.json), at most 64, starting with a letter or digit.
  const t = raw.trim().normalize('NFKD').replace(/[^A-Za-z0-9._:/+-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64).replace(/-+$/, '')
  return t ? t : null
}

/** Title: the first line of the description, cut to the byte limit (the rest goes to the body). */
function splitTitle(description: string, maxBytes: number): {title: string; rest: string} {
  const [first = '', ...more] = description.replace(/\r\n?/g, '\n').split('\n')
  // White space becomes a space; any other control character stays, for add's rule to refuse (control_character).
  let title = first.replace(/[\t\v\f]/g, ' ').trim() || '(no description)'
  let rest = more.join('\n').trim()
  if (byteLength(title) > maxBytes) {
    const full = title
    while (byteLength(`${title}…`) > maxBytes) title = title.slice(0, -1)
    title = `${title}…`
    rest = rest ? `${full}\n\n${rest}` : full
  }
  return {title, rest}
}

export function taskwarriorKey(uuid: string): string {
  return `taskwarrior:${uuid}`
}

/**
 * Records for a Taskwarrior `task export` array. Statuses: pending, waiting
 * and recurring → todo (waiting and recurring also tagged so), completed →
 * done, deleted → cancelled. Priorities H/M/L → 1/2/3 (none: 2). The
 * project becomes a tag `project:<name>`; annotations become note
 * comments; `depends` (uuids) becomes depends_on, for uuids in the file.
 */
export function recordsOfTaskwarrior(items: unknown[], snap: Snapshot, ctx: OpContext): {records: ImportRecord[]; warnings: string[]} {
  const warnings: string[] = []
  const idOf = new Map<string, string>()
  const taken = new Set<string>()
  const tasks = items as TwTask[]
  tasks.forEach((t, i) => {
    if (!t || typeof t !== 'object' || Array.isArray(t)) throw bad(`Taskwarrior item ${i} is ${jsonType(t)}, not a task object`, {index: i})
    if (typeof t.uuid !== 'string' || !t.uuid.trim()) throw bad(`Taskwarrior item ${i} has no uuid (text)`, {index: i, field: 'uuid'})
    checkTaskwarriorTypes(t, `Taskwarrior task ${t.uuid} (item ${i})`, {index: i, uuid: t.uuid})
    const key = taskwarriorKey(t.uuid)
    const id = keyedId(snap, key, (c) => taken.has(c))
    taken.add(id)
    idOf.set(t.uuid, id)
  })
  const records = tasks.map((t) => {
    const id = idOf.get(t.uuid!)!
    const existing = snap.tasks.get(id)?.meta
    const status = TW_STATUS[t.status ?? 'pending']
    if (!status) throw bad(`Taskwarrior task ${t.uuid} has status "${t.status}" (expected pending, waiting, recurring, completed or deleted)`, {uuid: t.uuid, field: 'status'})
    const created = taskwarriorTime(t.entry, ctx.now)
    const updated = taskwarriorTime(t.modified, created)
    if (t.priority !== undefined && TW_PRIORITY[t.priority] === undefined) warnings.push(`${t.uuid}: priority "${t.priority}" is not H, M or L; imported as 2`)
    const {title, rest} = splitTitle(t.description!, snap.config.max_title_bytes)
    const tags = new Set<string>()
    for (const tag of t.tags ?? []) {
      const clean = twTag(tag)
      if (clean) tags.add(clean)
    }
    if (t.project) {
      const p = twTag(`project:${t.project}`)
      if (p) tags.add(p)
    }
    if (t.status === 'waiting' || t.status === 'recurring') tags.add(t.status)
    const depUuids = Array.isArray(t.depends) ? t.depends : typeof t.depends === 'string' ? t.depends.split(',') : []
    const depends: string[] = []
    for (const u of depUuids.map((s) => s.trim()).filter(Boolean)) {
      const dep = idOf.get(u)
      if (dep) depends.push(dep)
      else warnings.push(`${t.uuid}: dependency ${u} is not in the file; dropped`)
    }
    const meta: ImportRecord['meta'] = {
      id,
      title,
      status,
      priority: TW_PRIORITY[t.priority ?? ''] ?? 2,
      tags: [...tags].sort(),
      depends_on: depends,
      key: taskwarriorKey(t.uuid!),
      created_at: created,
      // Taskwarrior has no authors: the importer, or whoever the card already names (so that another
      // actor importing the same export changes nothing).
      created_by: existing?.created_by ?? ctx.actor,
      updated_at: updated,
      updated_by: existing?.updated_by ?? ctx.actor,
      revision: existing?.revision ?? 1,
    }
    if (status === 'done' || status === 'cancelled') meta.closed_at = taskwarriorTime(t.end, updated)
    if (status === 'cancelled') meta.cancel_reason = 'deleted in Taskwarrior'
    // Issue 33: Taskwarrior's due and scheduled dates; a waiting task (hidden until its wait date) is deferred until it.
    if (t.due) meta.due = taskwarriorTime(t.due, updated)
    if (t.scheduled) meta.scheduled = taskwarriorTime(t.scheduled, updated)
    if (t.status === 'waiting' && t.wait) {
      meta.status = 'deferred'
      meta.defer_until = taskwarriorTime(t.wait, updated)
      meta.defer_reason = 'waiting in Taskwarrior'
    }
    const every = twEvery(t.recur)
    if (every) meta.every = every
    const comments: ExportedComment[] = (t.annotations ?? [])
      .filter((a) => a.description!.trim())
      .map((a) => {
        const at = taskwarriorTime(a.entry, created)
        const hash = createHash('sha256').update(`${id}\0${at}\0${a.description}`).digest('hex').slice(0, 8)
        return {id: `${compactTimestamp(at)}-${hash}`, kind: 'note', author: 'taskwarrior', created_at: at, body: a.description!.trim()}
      })
    return {meta, body: rest, comments, checks: [], origin: `Taskwarrior task ${t.uuid}`}
  })
  return {records, warnings}
}

// ---------------------------------------------------------------- the import op

export interface ImportResultItem {
  id: string
  title: string
  /** created, updated, or unchanged; comments_added counts new comments. */
  action: 'created' | 'updated' | 'unchanged'
  comments_added: number
  /** Check files written (new, or different from the card's). */
  checks_written: number
}

/** Existing cards' descriptions, comment ids and check files (id → text), read by the caller (the snapshot holds none of them). */
export type ExistingDetails = ReadonlyMap<string, {body: string; commentIds: ReadonlySet<string>; checks?: ReadonlyMap<string, string>}>

function sameMeta(a: Omit<TaskMeta, 'epoch' | 'claim_epochs'>, b: TaskMeta): boolean {
  for (const k of TASK_KEYS) {
    if (k === 'epoch' || k === 'claim_epochs') continue
    if (JSON.stringify((a as TaskMeta)[k] ?? null) !== JSON.stringify(b[k] ?? null)) return false
  }
  return JSON.stringify(a.extra ?? null) === JSON.stringify(b.extra ?? null)
}

/** Runs one of add's checks on a field of a record; its error names the card and the field, with add's code. */
function asAdd<T>(r: ImportRecord, field: string, check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (!(error instanceof TasksError)) throw error
    error.message = `${r.origin}: ${field}: ${error.message}`
    Object.assign(error.data, {origin: r.origin, field, ...(typeof r.meta.id === 'string' ? {id: r.meta.id} : {})})
    throw error
  }
}

/**
 * The rules `add` and `edit` apply to what a person types, applied to a
 * card of the document: the title (one line, no control characters, within
 * the list's max_title_bytes; trimmed), the description (max_body_bytes, no
 * conflict block), tags, priority, the assignee, the key. A field of the
 * wrong type is `bad_import` naming the card and the field. Returns the
 * frontmatter with the title and tags as `add` would store them.
 */
export function checkImportedCard(r: ImportRecord, config: ListConfig): ImportRecord['meta'] {
  const m = r.meta as unknown as Record<string, unknown>
  const data = {origin: r.origin, ...(typeof m.id === 'string' ? {id: m.id} : {})}
  const must = (field: string, ok: boolean, expected: string) => {
    if (!ok) throw wrongType(r.origin, field, expected, m[field], data)
  }
  const isTexts = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string')
  must('title', typeof m.title === 'string', 'text')
  must('status', typeof m.status === 'string', 'text')
  must('priority', typeof m.priority === 'number', 'a number')
  must('tags', m.tags === undefined || isTexts(m.tags), 'a list of text')
  must('depends_on', m.depends_on === undefined || isTexts(m.depends_on), 'a list of text')
  for (const field of ['parent', 'assignee', 'owner', 'key', 'created_by', 'updated_by', 'created_at', 'updated_at'] as const) must(field, m[field] === undefined || typeof m[field] === 'string', 'text')
  const title = asAdd(r, 'title', () => checkTitle(m.title as string, config))
  asAdd(r, 'body', () => checkBody(r.body, config))
  const given = (m.tags as string[] | undefined) ?? []
  const tags = asAdd(r, 'tags', () => {
    // Each tag as it is: add would split "a,b" or drop a leading #, an import does not reinterpret.
    for (const tag of given) if (checkTags([tag]).join('\n') !== tag) throw new InvalidError('bad_tag', `"${tag}" is not a tag: use letters, digits and . _ : / + - (at most 64)`, {tag})
    return checkTags(given)
  })
  asAdd(r, 'priority', () => checkPriority(m.priority as number))
  must('type', m.type === undefined || typeof m.type === 'string', 'text')
  const type = m.type === undefined ? undefined : asAdd(r, 'type', () => checkType(m.type as string, config))
  // Issue 33: custom fields as stored, each judged by the predicate add, edit and the guard use.
  const fields = m.fields === undefined ? undefined : asAdd(r, 'fields', () => checkStoredFields(m.fields, config))
  if (m.assignee !== undefined) asAdd(r, 'assignee', () => checkActor(m.assignee as string, 'assignee'))
  if (m.key !== undefined && !(m.key as string).trim()) asAdd(r, 'key', () => {
    throw new InvalidError('empty_key', 'the idempotency key is empty')
  })
  return {...r.meta, title, tags, type, fields}
}

/** A document's `fields` (issue 33): an object of field names to values that fit the list's declared types; sorted, undefined when empty. */
function checkStoredFields(value: unknown, config: ListConfig): TaskMeta['fields'] {
  const entries = Object.entries(checkFieldsObject(value))
  if (entries.length > MAX_FIELDS) throw new InvalidError('bad_field', `a card holds at most ${MAX_FIELDS} fields, not ${entries.length}`, {count: entries.length, limit: MAX_FIELDS})
  // Each field by the guard's rule (fieldProblems), the first that cannot be stored refused.
  for (const [key, v] of entries) {
    const problem = storedFieldProblem(key, v, config)
    if (problem) throw new InvalidError(problem.code, problem.message, {key, ...(problem.type ? {type: problem.type} : {})})
  }
  if (entries.length === 0) return undefined
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as TaskMeta['fields']
}

/** add's limits on a comment and a check of a record (the kinds people write: notes, checkpoints, checks). */
function checkImportedComment(r: ImportRecord, c: ExportedComment, config: ListConfig): void {
  const field = `comment ${String(c.id)}`
  if (typeof c.body !== 'string') throw wrongType(r.origin, `${field}.body`, 'text', c.body, {origin: r.origin})
  if (c.kind === CHECKPOINT_KIND) {
    asAdd(r, field, () => checkText('summary', c.body.replace(/\s+$/, ''), config.max_comment_bytes, true))
    if (c.next !== undefined) asAdd(r, field, () => checkText('next', String(c.next).replace(/\s+$/, ''), config.max_comment_bytes, true))
  } else if ((COMMENT_KINDS as readonly string[]).includes(c.kind)) {
    asAdd(r, field, () => checkText('comment', c.body.replace(/\s+$/, ''), config.max_comment_bytes, true))
  }
}

function checkImportedCheck(r: ImportRecord, c: Check, config: ListConfig): void {
  const field = `check ${String(c.id)}`
  if (typeof c.text !== 'string') throw wrongType(r.origin, `${field}.text`, 'text', c.text, {origin: r.origin})
  asAdd(r, field, () => checkText('check', c.text, config.max_comment_bytes, true))
  if (c.evidence !== undefined) {
    if (typeof c.evidence !== 'string') throw wrongType(r.origin, `${field}.evidence`, 'text', c.evidence, {origin: r.origin})
    asAdd(r, field, () => checkText('evidence', c.evidence!, config.max_comment_bytes, true))
  }
}

/** Whether a record's card would be written and read back as it is (the reader's own rules); throws bad_import. */
export function checkRecord(r: ImportRecord): void {
  const id = r.meta.id
  if (typeof id !== 'string' || !isStoredId(id)) throw bad(`${r.origin}: "${String(id)}" is not a task id`, {origin: r.origin})
  const parsed = parseTaskFile(serialiseTask({...r.meta, epoch: r.meta.owner ? 1 : 0} as TaskMeta, r.body), id)
  if (!parsed.ok) throw bad(`${r.origin}: ${parsed.error}`, {id, origin: r.origin})
}

export function importTasks(snap: Snapshot, ctx: OpContext, records: readonly ImportRecord[], existing: ExistingDetails): Plan<{items: ImportResultItem[]}> {
  // An import writes cards as the document recorded them (authors, holders, checks): an administrative write,
  // like a setting, and the server guard judges it so (docs/verify.md, "Imports").
  const admins = snap.config.admins
  if (admins.length > 0 && !admins.includes(ctx.actor)) {
    throw new NotPermittedError('not_admin', `only the admins listed in config.yaml (${admins.join(', ')}) may import`, {admins})
  }
  const changes: Change[] = []
  const items: ImportResultItem[] = []
  const seen = new Set<string>()
  for (const given of records) {
    const id = given.meta.id
    if (typeof id !== 'string' || !isStoredId(id)) throw bad(`${given.origin}: "${String(id)}" is not a task id`, {origin: given.origin})
    if (seen.has(id)) throw bad(`${given.origin}: ${id} appears twice in the file`, {id})
    seen.add(id)
    // add's rules on what people type, before anything is compared or written.
    const r: ImportRecord = {...given, meta: checkImportedCard(given, snap.config)}
    const old = snap.tasks.get(id)?.meta
    // The epoch is this list's own: kept for a card that exists, 1 for a new card someone holds, else 0.
    const meta = {...r.meta, epoch: old ? old.epoch : r.meta.owner ? 1 : 0} as TaskMeta
    if (old?.claim_epochs) meta.claim_epochs = old.claim_epochs
    const before = existing.get(id)
    let action: ImportResultItem['action'] = 'unchanged'
    if (!old) action = 'created'
    else if (!sameMeta(r.meta, old) || (before?.body ?? '').trimEnd() !== r.body.trimEnd()) {
      action = 'updated'
      meta.revision = old.revision + 1
    }
    if (action !== 'unchanged') {
      // Checked as the reader checks it: what is written can be read back.
      const text = serialiseTask(meta, r.body)
      const parsed = parseTaskFile(text, id)
      if (!parsed.ok) throw bad(`${r.origin}: ${parsed.error}`, {id, origin: r.origin})
      changes.push({kind: 'put-task', meta: parsed.value.meta, body: r.body})
    }
    let added = 0
    for (const c of r.comments) {
      if (before?.commentIds.has(c.id)) continue
      if (!ALL_COMMENT_KINDS.includes(c.kind)) throw bad(`${r.origin}: comment ${c.id} has kind "${c.kind}"`, {id})
      if (!/^[0-9TZ.]+-[0-9a-z]+$/i.test(String(c.id))) throw bad(`${r.origin}: "${String(c.id)}" is not a comment id`, {id})
      checkImportedComment(r, c, snap.config)
      const comment: Comment = {id: c.id, task: id, kind: c.kind, author: c.author, created_at: c.created_at, body: c.body, ...(c.epoch !== undefined ? {epoch: c.epoch} : {}), ...(c.session !== undefined ? {session: c.session} : {}), ...(c.next !== undefined ? {next: c.next} : {}), ...(typeof c.key === 'string' ? {key: c.key} : {})}
      const parsed = parseCommentFile(serialiseComment(comment), id, c.id)
      if (!parsed.ok) throw bad(`${r.origin}: comment ${c.id}: ${parsed.error}`, {id})
      changes.push({kind: 'add-comment', comment})
      added++
    }
    let checksWritten = 0
    const checkIds = new Set<string>()
    for (const raw of r.checks) {
      const c = {...raw, task: id} as Check
      if (typeof c.id !== 'string' || checkIds.has(c.id)) throw bad(`${r.origin}: check ${String(c.id)} is not a check id, or appears twice`, {id})
      checkIds.add(c.id)
      checkImportedCheck(r, c, snap.config)
      // Checked as the reader checks it: the file must read back as this check.
      const text = serialiseCheck(c)
      const parsed = parseCheckFile(text, id, c.id)
      if (!parsed.ok) throw bad(`${r.origin}: check ${c.id}: ${parsed.error}`, {id})
      if (before?.checks?.get(c.id) === text) continue
      changes.push({kind: 'put-check', check: parsed.value})
      checksWritten++
    }
    items.push({id, title: meta.title, action, comments_added: added, checks_written: checksWritten})
  }
  // References must land on cards that exist after the import.
  const after = withChanges(snap, changes, snap.commit ?? '')
  for (const r of records) {
    const refs = [...(r.meta.depends_on ?? []), ...(r.meta.parent ? [r.meta.parent] : [])]
    for (const ref of refs) if (!after.tasks.get(ref)?.meta) throw bad(`${r.origin}: refers to ${ref}, which is neither in the file nor in the list`, {id: r.meta.id, missing: ref})
    // Sub-items nest at most max_depth levels, as add keeps them.
    if (r.meta.parent && depthOf(after, r.meta.id) > snap.config.max_depth) {
      const chain = ancestorsOf(after, r.meta.id)
      throw new InvalidError('nesting_too_deep', `${r.origin}: it would be nested ${chain.length} levels deep (under ${chain.join(' → ')}); this list nests sub-items at most ${snap.config.max_depth} deep (max_depth)`, {id: r.meta.id, parent: r.meta.parent, grandparent: chain[1] ?? null, origin: r.origin})
    }
  }
  checkNoCycle(after, records)
  const n = items.filter((i) => i.action !== 'unchanged' || i.comments_added > 0 || i.checks_written > 0).length
  return {op: 'import', summary: `import ${n} task${n === 1 ? '' : 's'}`, changes, trailers: [['Tasks-Imported', String(n)]], result: {items}}
}

function checkNoCycle(snap: Snapshot, records: readonly ImportRecord[]): void {
  const state = new Map<string, 1 | 2>()
  const deps = (id: string) => snap.tasks.get(id)?.meta?.depends_on ?? []
  const visit = (start: string): void => {
    const stack: Array<{id: string; i: number}> = [{id: start, i: 0}]
    state.set(start, 1)
    while (stack.length) {
      const top = stack[stack.length - 1]!
      const d = deps(top.id)
      if (top.i >= d.length) {
        state.set(top.id, 2)
        stack.pop()
        continue
      }
      const next = d[top.i++]!
      const s = state.get(next)
      if (s === 1) throw new InvalidError('dependency_cycle', `the import would make a dependency cycle through ${next}`, {id: next})
      if (s === undefined) {
        state.set(next, 1)
        stack.push({id: next, i: 0})
      }
    }
  }
  for (const r of records) if (!state.has(r.meta.id)) visit(r.meta.id)
}

export {STATUSES}
