/**
 * `undo`: take back one earlier commit as a new commit. The app layer reads
 * the commit's changed files (each before and after it) and checks that no
 * later commit touched the same tasks; this op puts every file back as it
 * was before the commit (a task file as a new revision, so merges and the
 * fencing epoch still move forward), deletes what the commit added, and
 * refuses (`undo_conflict`) when the list no longer holds what the commit
 * left: a later change to one of its tasks (seen here on a lost race too),
 * a task added since under a parent it would remove, or a restored task
 * whose parent or dependencies are gone or would close a cycle. Undoing an
 * undo redoes.
 */
import {withChanges} from '../apply'
import {assertRemovable, findPathTo} from '../dependency-graph'
import {ConflictError} from '../errors'
import type {Change, OpContext, Plan} from '../plan'
import {type Snapshot, childIds} from '../snapshot'
import type {TaskMeta} from '../task'
import {parseTaskFile, serialiseTask} from '../task-file'

/** One file the undone commit changed: text before and after it (null: absent). */
export interface UndoFile {
  path: string
  before: string | null
  after: string | null
}

export interface UndoArgs {
  /** The commit to take back. */
  commit: string
  /** Its subject line, for the message. */
  subject: string
  files: readonly UndoFile[]
}

export interface UndoResult {
  undone: string
  subject: string
  /** Tasks put back to their earlier version (or brought back after a removal). */
  restored: Array<{id: string; title: string}>
  /** Tasks the undone commit had created, removed again (the same shape as `rm`'s result). */
  removed: Array<{id: string; title: string}>
  /** Other files (comments, config.yaml): put back as they were, or removed because the commit added them. */
  files: Array<{path: string; change: 'put_back' | 'removed'}>
}

const TASK_FILE_RE = /^tasks\/[^/]+\/([^/]+)\/task\.md$/
const IN_TASK_RE = /^tasks\/[^/]+\/([^/]+)\//

function conflict(args: UndoArgs, message: string, data: Record<string, unknown> = {}): ConflictError {
  return new ConflictError('undo_conflict', `cannot undo ${args.commit.slice(0, 10)} (${args.subject}): ${message}`, {commit: args.commit, ...data})
}

/** Whether the snapshot still holds the task exactly as the undone commit left it. */
function unchangedSince(snap: Snapshot, id: string, after: string | null): boolean {
  const entry = snap.tasks.get(id)
  if (after === null) return entry === undefined
  if (!entry) return false
  const left = parseTaskFile(after, id)
  if (!left.ok) return !entry.meta
  return !!entry.meta && serialiseTask(entry.meta, '') === serialiseTask(left.value.meta, '')
}

export function undoCommit(snap: Snapshot, ctx: OpContext, args: UndoArgs): Plan<UndoResult> {
  const changes: Change[] = []
  const restored: TaskMeta[] = []
  const removed = new Map<string, string>()
  const files: UndoResult['files'] = []
  const taskFiles = args.files.filter((f) => TASK_FILE_RE.test(f.path))
  const changedSince = taskFiles.map((f) => TASK_FILE_RE.exec(f.path)![1]!).filter((id, i) => !unchangedSince(snap, id, taskFiles[i]!.after))
  if (changedSince.length > 0) throw conflict(args, `${changedSince.join(', ')} changed since; undo only the newest change of a task`, {tasks: changedSince})
  for (const f of taskFiles) {
    const id = TASK_FILE_RE.exec(f.path)![1]!
    if (f.before === null) {
      changes.push({kind: 'delete-task', id})
      removed.set(id, snap.tasks.get(id)?.meta?.title ?? id)
      continue
    }
    const old = parseTaskFile(f.before, id)
    if (!old.ok) {
      changes.push({kind: 'put-file', path: f.path, content: f.before})
      continue
    }
    const now = snap.tasks.get(id)?.meta
    const meta: TaskMeta = {
      ...old.value.meta,
      // A new revision of the task, not the old one again: merges and the fencing epoch only move forward.
      revision: Math.max(old.value.meta.revision, now?.revision ?? 0) + 1,
      epoch: Math.max(old.value.meta.epoch, now?.epoch ?? 0),
      updated_at: ctx.now,
      updated_by: ctx.actor,
    }
    changes.push({kind: 'put-task', meta, body: old.value.body})
    restored.push(meta)
  }
  for (const f of args.files) {
    if (TASK_FILE_RE.test(f.path)) continue
    const owner = IN_TASK_RE.exec(f.path)?.[1]
    if (owner && removed.has(owner)) continue // went with its task's directory
    changes.push(f.before === null ? {kind: 'delete-file', path: f.path} : {kind: 'put-file', path: f.path, content: f.before})
    files.push({path: f.path, change: f.before === null ? 'removed' : 'put_back'})
  }
  if (removed.size > 0) {
    const orphans = [...removed.keys()].flatMap((id) => childIds(snap, id).filter((c) => !removed.has(c)))
    if (orphans.length > 0) throw conflict(args, `sub-items were added since: ${orphans.join(', ')}`, {tasks: orphans})
    try {
      assertRemovable(snap, new Set(removed.keys()))
    } catch (error) {
      throw conflict(args, `${(error as Error).message}`, {dependents: (error as ConflictError).data.dependents})
    }
  }
  const after = withChanges(snap, changes)
  for (const meta of restored) {
    const gone = [...(meta.parent ? [meta.parent] : []), ...meta.depends_on].filter((ref) => !after.tasks.has(ref))
    if (gone.length > 0) throw conflict(args, `${meta.id} refers to ${gone.join(', ')}, which no longer exist`, {tasks: [meta.id], missing: gone})
    const loop = findPathTo(after, meta.depends_on, meta.id)
    if (loop) throw conflict(args, `${meta.id}'s dependencies would make a cycle: ${[meta.id, ...loop].join(' → ')}`, {tasks: [meta.id], cycle: [meta.id, ...loop]})
  }
  return {
    op: 'undo',
    summary: args.subject,
    changes,
    trailers: [['Tasks-Undo', args.commit]],
    result: {undone: args.commit, subject: args.subject, restored: restored.map((m) => ({id: m.id, title: m.title})), removed: [...removed].map(([id, title]) => ({id, title})), files},
  }
}
