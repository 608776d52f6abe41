/**
 * `tasks undo`: take back the actor's newest commit on the list as a new
 * commit (`Tasks-Undo: <sha>`), when nothing depends on it since. Reads the
 * commit and the later history (src/refstore/commit-changes.ts), refuses
 * with `undo_conflict` naming the later commits that touched the same tasks,
 * and otherwise runs the pure undo op through the ordinary transaction
 * (which re-checks the tasks on a lost race). Undoing an undo redoes.
 */
import {ConflictError, NotFoundError} from '../core/errors'
import {taskDir} from '../core/ids'
import {type UndoResult, undoCommit} from '../core/ops/undo'
import {commitFileChanges, laterCommitsTouching, lastCommitBy} from '../refstore/commit-changes'
import {trackingRef} from '../refstore/remote'
import type {Session} from './session'
import {mutate} from './transaction'

export interface UndoOutput extends UndoResult {
  commit: string | null
}

const IN_TASK_RE = /^tasks\/[^/]+\/([^/]+)\//

export async function undo(session: Session): Promise<UndoOutput> {
  const store = session.store
  const cwd = store.repo.cwd
  const actor = await session.actor()
  await store.load() // not_initialised, newer_format
  const tip = (await store.refreshTip())!
  const target = await lastCommitBy(cwd, store.ref, actor)
  if (!target) throw new NotFoundError('nothing_to_undo', `${actor} has no change on ${store.ref} to undo`, {actor})
  if (target.parents.length !== 1) {
    const what = target.parents.length === 0 ? 'the list’s first commit' : 'a merge (tasks sync)'
    throw new ConflictError('not_undoable', `your last change, ${target.commit.slice(0, 10)} (${target.subject}), is ${what}, which undo does not take back`, {commit: target.commit})
  }
  const files = sideEffectsDropped(await commitFileChanges(store, target.commit, target.parents[0]!))
  const scopes = [...new Set(files.map((f) => (IN_TASK_RE.test(f.path) ? taskDir(IN_TASK_RE.exec(f.path)![1]!) : f.path)))]
  // With a remote, what was last fetched from it counts too (the op itself runs on the remote's tip).
  const remote = await session.configuredRemote()
  const tracked = remote ? await store.readRef(trackingRef(remote, session.list)) : null
  const later = await laterCommitsTouching(cwd, target.commit, [tip, ...(tracked ? [tracked] : [])], scopes)
  if (later.length > 0) {
    const shown = later.slice(0, 5).map((c) => `${c.commit.slice(0, 10)} ${c.subject}`)
    throw new ConflictError(
      'undo_conflict',
      `cannot undo ${target.commit.slice(0, 10)} (${target.subject}): later changes touched the same tasks: ${shown.join('; ')}${later.length > 5 ? `; and ${later.length - 5} more` : ''}. Undo those first, or change the tasks by hand.`,
      {
        commit: target.commit,
        later: later.map((c) => ({commit: c.commit, subject: c.subject, tasks: c.trailers.filter(([k]) => k === 'Task').map(([, v]) => v)})),
      },
    )
  }
  const done = await mutate(session, (snap, ctx) => undoCommit(snap, ctx, {commit: target.commit, subject: target.subject, files}))
  return {...done.result, commit: done.commit}
}

/**
 * The inbox records a change wrote for others and its actor's last_seen are
 * side effects, not the change: undo leaves them (a record someone may have
 * read stays; the undo writes its own). A commit made of nothing else (an
 * `actor` change) is undone whole.
 */
function sideEffectsDropped<F extends {path: string}>(files: F[]): F[] {
  const side = (p: string): boolean => /^inbox\/[^/]+\/[^/]+\.md$/.test(p) || /^actors\//.test(p)
  const rest = files.filter((f) => !side(f.path))
  return rest.length > 0 ? rest : files
}
