/**
 * The audit log and its undo for removals: `tasks log` (events from the
 * ref's commits, their trailers read as structured fields, filtered by
 * actor, time and op; the history of an id no longer in the list found
 * through the `Task:` trailers) and `tasks restore` (a removed task read
 * from the commit before its removal, put back by a pure op through the
 * transaction).
 */
import {ConflictError, NotFoundError, UsageError} from '../core/errors'
import {actorsNamed, splitValues} from '../core/flag-values'
import {parseTimePoint} from '../core/history-event'
import {normaliseIdInput, taskDir} from '../core/ids'
import {type RemovedItem, restoreTask} from '../core/ops/restore'
import {checkPath} from '../core/check'
import {childIds, lookup, type Snapshot} from '../core/snapshot'
import {taskFilePath} from '../core/store-layout'
import {TaskViewer, type TaskView} from '../core/task-view'
import {type HistoryEvent, idsInHistory, readCardCommits, readHistory, removalCommit} from '../refstore/history'
import {type SpecRevision, specRevisions} from '../core/spec-revisions'
import {refreshCommitGraph} from '../refstore/housekeeping'
import type {Session} from './session'
import {mutate} from './transaction'

export type {HistoryEvent}

export interface LogFilters {
  limit?: number
  /** Actors (the Actor trailer or the author); `@me` for the current one. Repeatable, comma-separated. */
  actor?: string[]
  /** A date, a time or a duration back from now (`2h`, `3d`). */
  since?: string
  until?: string
  /** Op names (claim, done, rm, …). Repeatable, comma-separated. */
  op?: string[]
}

export interface LogResult {
  list: string
  /** The full id when the log is of one task, else null. */
  task: string | null
  /** True when that task is no longer in the list (its history is shown from the commits that named it). */
  removed: boolean
  events: HistoryEvent[]
}

function timePoint(flag: string, text: string | undefined, now: number): number | undefined {
  if (text === undefined) return undefined
  const t = parseTimePoint(text, now)
  if (t === null) throw new UsageError(`--${flag} expects a date (2026-11-30), a time (2026-11-30 14:00) or a duration back from now (2h, 3d, 1w), not "${text}"`, {flag, input: text}, 'bad_time')
  return t
}

/**
 * The id `input` names: a task in the list, or else one that history names
 * in its `Task:` trailers (a removed one). Ambiguous among removed ids is a
 * usage error, as for ids in the list.
 */
export async function resolveInHistory(session: Session, snap: Snapshot, input: string): Promise<{id: string; removed: boolean}> {
  try {
    return {id: lookup(snap, input).id, removed: false}
  } catch (error) {
    if (!(error instanceof NotFoundError) || error.code !== 'task_not_found') throw error
    const prefix = normaliseIdInput(input)
    const ids = await idsInHistory(session.store.repo.cwd, session.store.ref, prefix)
    const gone = ids.filter((id) => !snap.tasks.has(id))
    const exact = gone.find((id) => id === prefix)
    if (exact) return {id: exact, removed: true}
    if (gone.length === 1) return {id: gone[0]!, removed: true}
    if (gone.length === 0) throw error
    throw new UsageError(`"${input}" is ambiguous: it matches the removed items ${gone.slice(0, 5).join(', ')}${gone.length > 5 ? ', …' : ''}`, {input, candidates: gone.slice(0, 20)}, 'ambiguous_id')
  }
}

/** `tasks log [ID]`: newest first; with ID, the events of that card (also a removed one). */
export async function log(session: Session, {id, ...f}: LogFilters & {id?: string} = {}): Promise<LogResult> {
  const now = Date.parse(session.now())
  const since = timePoint('since', f.since, now)
  const until = timePoint('until', f.until, now)
  const ops = new Set(splitValues(f.op))
  for (const op of ops) {
    if (!/^[a-z][a-z-]*$/.test(op)) throw new UsageError(`"${op}" is not an op name (claim, done, rm, …)`, {op}, 'usage')
  }
  const actors = await actorsNamed(f.actor, () => session.actor())
  const loaded = await session.store.load() // raises "not initialised"
  let task: string | null = null
  let removed = false
  if (id !== undefined) ({id: task, removed} = await resolveInHistory(session, loaded.snapshot, id))
  const filtering = since !== undefined || until !== undefined || ops.size > 0 || actors.size > 0
  const keep = (e: HistoryEvent): boolean => {
    const t = Date.parse(e.date)
    if (since !== undefined && (e.initial || t < since)) return false
    if (until !== undefined && t > until) return false
    if (ops.size > 0 && !ops.has(e.op)) return false
    if (actors.size > 0 && !actors.has(e.actor) && !actors.has(e.author)) return false
    return true
  }
  const events = await readHistory(session.store.repo.cwd, loaded.index.commit, {path: task ? taskDir(task) : undefined, limit: f.limit, filter: filtering ? keep : undefined})
  // A card's history reads fast on a long list only with changed-path filters: keep the commit-graph current, in the background.
  if (task) refreshCommitGraph(session.store.repo, loaded.index.commit)
  return {list: session.list, task, removed, events}
}

/**
 * `show ID --revisions`: every change to the item's spec (title,
 * description, type, dependencies, checks added or superseded), oldest
 * first, read from the commits that touched its directory: nothing about
 * them is stored twice.
 */
export async function revisions(session: Session, {id: input}: {id: string}): Promise<{task: string; revisions: SpecRevision[]}> {
  const loaded = await session.store.load()
  const {id} = await resolveInHistory(session, loaded.snapshot, input)
  if (!loaded.index.commit) return {task: id, revisions: []}
  const commits = await readCardCommits(session.store.repo.cwd, loaded.index.commit, taskDir(id))
  return {task: id, revisions: specRevisions(id, commits)}
}

export interface RestoreOutput {
  /** The restored task first, then its sub-items. */
  restored: TaskView[]
  /** The commit that had removed them. */
  removed_in: string
  dropped_dependencies: Array<{id: string; dependency: string}>
  /** Comments brought back with them. */
  comments: number
  commit: string | null
}

/**
 * `tasks restore ID`: the removed task, its sub-items and comments as they
 * were in the parent of the commit that removed it, put back as one new
 * commit (the op decides whether it may, on the current list).
 */
export async function restore(session: Session, {id: input}: {id: string}): Promise<RestoreOutput> {
  const store = session.store
  const loaded = await store.load()
  const {id, removed} = await resolveInHistory(session, loaded.snapshot, input)
  if (!removed) throw new ConflictError('already_exists', `${id} is in the list; there is nothing to restore`, {id})
  const removal = await removalCommit(store.repo.cwd, loaded.index.commit, taskFilePath(id))
  if (!removal) throw new NotFoundError('task_not_found', `no removal of ${id} found in the history of ${store.ref}`, {input, id})
  const before = await store.loadCommit(removal.parent, false)
  const items: RemovedItem[] = []
  const ids = [id, ...childIds(before.snapshot, id)]
  // Checks come back too; a check file that could not be read is not restored (it is in the history).
  const {checks, broken} = await store.readChecks(removal.parent, ids)
  const unreadable = new Set(broken.map((b) => b.path))
  for (const itemId of ids) {
    const meta = before.snapshot.tasks.get(itemId)?.meta
    if (!meta) continue
    const detail = await store.readDetail(removal.parent, itemId)
    const readable = (checks.get(itemId) ?? []).filter((c) => !unreadable.has(checkPath(itemId, c.id)))
    items.push({meta, body: detail.body, comments: detail.comments, checks: readable})
  }
  if (items[0]?.meta.id !== id) throw new NotFoundError('task_not_found', `${id} could not be read as it was before ${removal.commit.slice(0, 10)}`, {input, id})
  const done = await mutate(session, (snap, ctx) => restoreTask(snap, ctx, {removedIn: removal.commit, items}))
  const v = new TaskViewer(done.after, await session.actor(), session.now())
  return {
    restored: done.result.restored.map((t) => v.view(done.after.tasks.get(t.id)?.meta ?? t)),
    removed_in: done.result.removed_in,
    dropped_dependencies: done.result.dropped_dependencies,
    comments: done.result.comments,
    commit: done.commit,
  }
}
