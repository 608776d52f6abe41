/**
 * The compact documents of the read commands (`list`, `show`, `next`,
 * `log`), built with CompactWriter from the same typed results that are
 * the --json output. Ids are written without `tsk-`, as the shortest unique
 * prefix when the result knows it (a task's `short_id`) and in full
 * otherwise; every command accepts them as typed. docs/compact.md has the
 * grammar and each document's fields.
 */
import type {HistoryEvent} from '../refstore/history'
import type {ListResult} from '../app/list-query'
import type {NextOutput} from '../app/claim-actions'
import type {LogResult} from '../app/history-actions'
import type {Comment} from '../core/task'
import {CHECK_KEYS, type Check} from '../core/check'
import type {TaskBrief, TaskDetail, TaskView} from '../core/task-view'
import type {WaitReason} from '../core/readiness'
import {compactTimestamp} from '../core/ops/comment'
import {type CompactValue, CompactWriter} from './compact'

/** The version of the compact documents; the first line names it. */
export const COMPACT_VERSION = 1

/** Ids as compact output writes them: known short ids, else the full id, both without `tsk-`. */
class IdWriter {
  private readonly shorts = new Map<string, string>()

  know(id: string, shortId: string): void {
    this.shorts.set(id, shortId)
  }

  ref = (id: string | null | undefined): string | undefined => (id ? (this.shorts.get(id) ?? id).replace(/^tsk-/, '') : undefined)
  refs = (ids: readonly string[]): string[] => ids.map((id) => this.ref(id)!)
}

function header(w: CompactWriter, what: string): void {
  w.comment(`git-tasks compact ${COMPACT_VERSION}: ${what} (docs/compact.md; ids without tsk-)`)
}

/** A wait reason as `id:status` (`id:status@via` for a parent's dependency). */
function waitCell(ids: IdWriter, w: WaitReason): string {
  return `${ids.ref(w.id)}:${w.status}${w.via ? `@${ids.ref(w.via)}` : ''}`
}

type Field<T> = readonly [string, (row: T) => CompactValue]

/** The columns of a task, in table order: the TaskView's keys, minus short_id (the id is short) and status (implied by state). */
function taskFields(ids: IdWriter): Array<Field<TaskView>> {
  return [
    ['id', (t) => ids.ref(t.id)],
    ['state', (t) => t.state],
    // Empty for the default type, so a list of plain tasks has no type column.
    ['type', (t) => (t.type === 'task' ? undefined : t.type)],
    ['priority', (t) => t.priority],
    ['title', (t) => t.title],
    ['tags', (t) => t.tags],
    ['parent', (t) => ids.ref(t.parent)],
    ['subitems', (t) => ids.refs(t.subitems)],
    // A parent's done/total of its sub-items not cancelled (`2/5`); empty for an item without sub-items.
    ['progress', (t) => (t.progress ? `${t.progress.done}/${t.progress.total}` : undefined)],
    ['depends_on', (t) => ids.refs(t.depends_on)],
    ['blocked_by', (t) => t.blocked_by.map((w) => waitCell(ids, w))],
    ['ready', (t) => t.ready],
    ['waiting', (t) => t.waiting],
    ['assignee', (t) => t.assignee],
    ['owner', (t) => t.owner],
    ['epoch', (t) => t.epoch],
    ['claimed_at', (t) => t.claimed_at],
    ['lease_expires', (t) => t.lease_expires],
    ['claim_live', (t) => t.claim_live],
    ['session', (t) => t.session],
    // The coordination session the task belongs to (a ses-… id, written whole: it is not a task id).
    ['work_session', (t) => t.work_session],
    ['flag', (t) => t.flag?.reason],
    ['flagged_by', (t) => t.flag?.by],
    ['flagged_at', (t) => t.flag?.at],
    ['block_note', (t) => t.block_note],
    ['blocked_on', (t) => t.blocked_on],
    ['cancel_reason', (t) => t.cancel_reason],
    ['closed_at', (t) => t.closed_at],
    ['key', (t) => t.key],
    ['collaborators', (t) => t.collaborators],
    ['subscribers', (t) => t.subscribers],
    ['notify_roles', (t) => t.notify_roles],
    ['notify_mute', (t) => t.notify_mute],
    ['created_at', (t) => t.created_at],
    ['created_by', (t) => t.created_by],
    ['updated_at', (t) => t.updated_at],
    ['updated_by', (t) => t.updated_by],
    ['revision', (t) => t.revision],
    // Issue 33: states and dates (empty columns drop out of a table).
    ['defer_reason', (t) => t.defer_reason],
    ['defer_until', (t) => t.defer_until],
    ['fail_reason', (t) => t.fail_reason],
    ['due', (t) => t.due],
    ['scheduled', (t) => t.scheduled],
    ['every', (t) => t.every],
    ['previous', (t) => ids.ref(t.previous)],
    ['overdue', (t) => (t.overdue ? true : undefined)],
  ]
}

/** One task as `key: value` lines (show, next). */
function taskScalars(w: CompactWriter, ids: IdWriter, t: TaskView): void {
  for (const [name, get] of taskFields(ids)) w.scalar(name, get(t))
}

/** Comment columns. The id is written as its hash when it is `<created_at, compacted>-<hash>`, as comment files are named. */
function commentFields(): Array<Field<Comment>> {
  return [
    ['id', (c) => (c.id.startsWith(`${compactTimestamp(c.created_at)}-`) ? c.id.slice(compactTimestamp(c.created_at).length + 1) : c.id)],
    ['kind', (c) => c.kind],
    ['author', (c) => c.author],
    ['created_at', (c) => c.created_at],
    ['session', (c) => c.session],
    ['epoch', (c) => c.epoch],
    ['body', (c) => c.body],
    ['next', (c) => c.next],
  ]
}

/** Check columns: every stored key (CHECK_KEYS order), the task implied. */
function checkFields(): Array<Field<Check>> {
  return CHECK_KEYS.map((k) => [k, (c: Check) => c[k as keyof Check] as CompactValue] as const)
}

function briefFields(ids: IdWriter): Array<Field<TaskBrief>> {
  return [
    ['id', (b) => ids.ref(b.id)],
    ['status', (b) => b.status],
    ['title', (b) => b.title],
  ]
}

/**
 * A table of tasks under `name`, for any read command that returns
 * TaskViews (search, inbox, …): the same columns and short ids as `list`.
 */
export function writeTaskTable(w: CompactWriter, name: string, tasks: readonly TaskView[]): void {
  const ids = new IdWriter()
  for (const t of tasks) ids.know(t.id, t.short_id)
  w.table(name, taskFields(ids), tasks)
}

/** The `# git-tasks compact 1: <command>` first line every document starts with. */
export function startDocument(command: string): CompactWriter {
  const w = new CompactWriter()
  header(w, command)
  return w
}

/** `list --format compact`. */
/** A read of a past state (--at) says which, first: `at: DATE COMMIT (input)`. */
function atScalar(w: CompactWriter, r: object): void {
  const at = (r as {at?: import('../app/at').AtPoint}).at
  if (at) w.scalar('at', `${at.date} ${at.commit} (${at.input})`)
}

export function compactList(r: ListResult): string {
  const ids = new IdWriter()
  for (const t of r.tasks) ids.know(t.id, t.short_id)
  const w = new CompactWriter()
  header(w, 'list')
  atScalar(w, r)
  w.scalar('list', r.list)
  w.scalar('commit', r.commit)
  w.scalar('total', r.total)
  if (r.offset) w.scalar('offset', r.offset)
  w.scalar('limit', r.limit)
  if (r.next_cursor) w.scalar('next_cursor', r.next_cursor)
  w.scalar(
    'by_state',
    Object.entries(r.summary.by_state).map(([k, v]) => `${k}=${v}`),
  )
  w.scalar('hidden_finished', r.summary.hidden_finished)
  w.table('tasks', taskFields(ids), r.tasks)
  w.table('broken', [['path', (b) => b.path], ['error', (b) => b.error]] as Array<Field<{path: string; error: string}>>, r.broken)
  w.table('warnings', [['text', (s) => s]] as Array<Field<string>>, r.warnings)
  return w.toString()
}

/** Issue 33: a card's custom fields as a text block, one `KEY=VALUE` a line (a value may hold `,` and `|`, which a cell's list may not). */
function fieldsText(w: CompactWriter, t: TaskView): void {
  const fields = t.fields ?? {}
  w.text('fields', Object.keys(fields).sort().map((k) => `${k}=${String(fields[k])}`).join('\n'))
}

function detailSections(w: CompactWriter, ids: IdWriter, body: string, comments: readonly Comment[]): void {
  w.text('body', body)
  w.table('comments', commentFields(), comments)
}

/** `show --format compact`: the newest checkpoint first, then the task's fields, text, comments and neighbours. */
export function compactShow(r: TaskDetail): string {
  const ids = new IdWriter()
  ids.know(r.task.id, r.task.short_id)
  for (const b of [...r.dependencies, ...r.dependents, ...r.subitems]) ids.know(b.id, b.short_id)
  const w = new CompactWriter()
  header(w, 'show')
  atScalar(w, r)
  w.table('checkpoint', commentFields(), r.checkpoint ? [r.checkpoint] : [])
  taskScalars(w, ids, r.task)
  fieldsText(w, r.task)
  detailSections(w, ids, r.body, r.comments)
  w.table('checks', checkFields(), r.checks ?? [])
  w.table('dependencies', briefFields(ids), r.dependencies)
  w.table('dependents', briefFields(ids), r.dependents)
  w.table('subitems', briefFields(ids), r.subitems)
  w.table('broken', [['path', (b) => b.path], ['error', (b) => b.error]] as Array<Field<{path: string; error: string}>>, r.broken)
  return w.toString()
}

/** `next --format compact`: the newest checkpoint first, how the claim went, then the task, its text and newest comments. */
export function compactNext(r: NextOutput & {published?: boolean}): string {
  const ids = new IdWriter()
  ids.know(r.task.id, r.task.short_id)
  const w = new CompactWriter()
  header(w, 'next')
  w.table('checkpoint', commentFields(), r.checkpoint ? [r.checkpoint] : [])
  w.scalar('resumed', r.resumed)
  w.scalar('already_owned', r.already_owned)
  w.scalar('took_over_from', r.took_over_from)
  w.scalar('commit', r.commit)
  w.scalar('published', r.published)
  w.scalar('comment_count', r.comment_count)
  taskScalars(w, ids, r.task)
  fieldsText(w, r.task)
  detailSections(w, ids, r.body, r.comments)
  w.table('checks', checkFields(), r.checks ?? [])
  return w.toString()
}

/** Event details as `key=value` items (lists joined by `+`). */
function detailsCell(e: HistoryEvent): string[] {
  return Object.entries(e.details).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v === null ? '(none)' : String(v)}`)
}

/** `log --format compact`: one row per event; raw trailers are left to --json. */
export function compactLog(r: LogResult): string {
  const w = new CompactWriter()
  header(w, 'log')
  w.scalar('list', r.list)
  w.scalar('task', r.task?.replace(/^tsk-/, ''))
  w.scalar('removed', r.removed)
  const fields: Array<Field<HistoryEvent>> = [
    ['commit', (e) => e.commit.slice(0, 12)],
    ['date', (e) => e.date],
    ['actor', (e) => e.actor],
    ['author', (e) => (e.author === e.actor ? undefined : e.author)],
    ['op', (e) => e.op],
    ['tasks', (e) => e.tasks.map((t) => t.replace(/^tsk-/, ''))],
    ['initial', (e) => e.initial],
    ['details', (e) => detailsCell(e).join(';')],
    ['subject', (e) => e.subject],
  ]
  w.table('events', fields, r.events)
  return w.toString()
}

/** `search --format compact`: the hits in rank order (score, where it matched, the snippet), then their tasks as `list` writes them. */
export function compactSearch(r: import('../app/search').SearchOutput): string {
  const ids = new IdWriter()
  for (const h of r.results) ids.know(h.task.id, h.task.short_id)
  const w = startDocument('search')
  atScalar(w, r)
  w.scalar('list', r.list)
  w.scalar('commit', r.commit)
  w.scalar('query', r.query)
  w.scalar('total', r.total)
  if (r.offset) w.scalar('offset', r.offset)
  if (r.next_cursor) w.scalar('next_cursor', r.next_cursor)
  w.scalar('index', `${r.index.state} reindexed=${r.index.reindexed} tasks=${r.index.tasks}`)
  type Hit = import('../app/search').SearchHit
  const fields: Array<Field<Hit>> = [
    ['id', (h) => ids.ref(h.task.id)],
    ['score', (h) => Math.round(h.score * 100) / 100],
    ['fields', (h) => h.fields],
    ['snippet_field', (h) => h.snippet?.field],
    ['snippet', (h) => h.snippet?.text],
  ]
  w.table('results', fields, r.results)
  writeTaskTable(w, 'tasks', r.results.map((h) => h.task))
  return w.toString()
}

/** `inbox --format compact`: the actor, counts, and one row per record (oldest first), card ids short. */
export function compactInbox(r: import('../app/inbox-actions').InboxResult): string {
  const w = startDocument('inbox')
  w.scalar('actor', r.actor)
  w.scalar('unseen', r.unseen)
  w.scalar('total', r.total)
  type Entry = import('../app/inbox-actions').InboxEntry
  const fields: Array<Field<Entry>> = [
    ['id', (e) => e.id],
    ['seen', (e) => e.seen],
    ['event', (e) => e.event],
    ['task', (e) => e.task.replace(/^tsk-/, '')],
    ['tasks', (e) => (e.tasks.length > 1 ? e.tasks.map((t) => t.replace(/^tsk-/, '')) : undefined)],
    ['actor', (e) => e.actor],
    ['created_at', (e) => e.created_at],
    ['roles', (e) => e.roles],
    ['body', (e) => e.body],
  ]
  w.table('records', fields, r.records)
  w.table('broken', [['path', (b) => b.path], ['error', (b) => b.error]] as Array<Field<{path: string; error: string}>>, r.broken)
  return w.toString()
}
