/**
 * Apply a plan's task changes to a snapshot, giving the snapshot as it is
 * after the commit (used to render results against the new state, and by
 * anything that chains ops). Pure: the input snapshot is not changed.
 */
import type {Check} from './check'
import type {Comment} from './task'
import {overlaySnapshot} from './overlay'
import type {Change} from './plan'
import {type Snapshot, type TaskEntry, entryOf} from './snapshot'
import {taskFilePath} from './store-layout'

export function withChanges(snap: Snapshot, changes: readonly Change[], commit: string | null = snap.commit): Snapshot {
  const changed = new Map<string, TaskEntry | null>()
  let checks: Map<string, readonly Check[]> | undefined
  let comments: Map<string, readonly Comment[]> | undefined
  for (const c of changes) {
    if (c.kind === 'put-task') {
      changed.set(c.meta.id, entryOf(c.meta, taskFilePath(c.meta.id)))
      // A task new in this plan has no comments yet, as far as comments read for the command go.
      if (snap.comments && !snap.comments.has(c.meta.id) && !snap.tasks.has(c.meta.id)) (comments ??= new Map(snap.comments)).set(c.meta.id, [])
    }
    else if (c.kind === 'delete-task') {
      changed.set(c.id, null)
      if (snap.checks?.has(c.id)) (checks ??= new Map(snap.checks)).delete(c.id)
    } else if (c.kind === 'put-check') {
      checks ??= new Map(snap.checks ?? [])
      checks.set(c.check.task, putCheck(checks.get(c.check.task) ?? [], c.check))
    } else if (c.kind === 'add-comment' && (comments ?? snap.comments)?.has(c.comment.task)) {
      // Comments read for the command (comment --key) see the ones added before them in the same plan.
      comments ??= new Map(snap.comments)
      comments.set(c.comment.task, [...(comments.get(c.comment.task) ?? []), c.comment])
    }
  }
  const out = overlaySnapshot(snap, changed, commit)
  const table = checks ?? snap.checks
  const said = comments ?? snap.comments
  return {...out, ...(table ? {checks: table} : {}), ...(said ? {comments: said} : {})}
}

/** A task's checks with `check` added or replacing the one with its id. */
export function putCheck(list: readonly Check[], check: Check): Check[] {
  const at = list.findIndex((c) => c.id === check.id)
  if (at === -1) return [...list, check]
  const out = [...list]
  out[at] = check
  return out
}

/**
 * The same changes with every path written once: the last version of each
 * task file (keeping the last description given, since a later `put-task`
 * without a body keeps the current one), of each check and other file; a
 * task removed drops what was written under it before. Applying the result
 * gives the same tree as applying `changes` in order, with fewer objects
 * (a batch that creates, claims and finishes an item writes its task.md
 * once instead of three times).
 */
export function collapseChanges(changes: readonly Change[]): Change[] {
  const slots = new Map<string, Change>()
  /** Keys written under each task directory, so removing a task drops them without a scan. */
  const byDir = new Map<string, string[]>()
  const dirOf = (id: string) => taskFilePath(id).slice(0, -'/task.md'.length)
  let unique = 0
  const put = (key: string, c: Change, dir?: string): void => {
    slots.delete(key)
    slots.set(key, c)
    if (dir !== undefined) {
      const keys = byDir.get(dir)
      if (keys) keys.push(key)
      else byDir.set(dir, [key])
    }
  }
  for (const c of changes) {
    if (c.kind === 'put-task') {
      const key = `task:${c.meta.id}`
      const prev = slots.get(key)
      put(key, prev?.kind === 'put-task' ? {kind: 'put-task', meta: c.meta, body: c.body ?? prev.body} : c, dirOf(c.meta.id))
    } else if (c.kind === 'delete-task') {
      const dir = dirOf(c.id)
      for (const key of byDir.get(dir) ?? []) slots.delete(key)
      byDir.delete(dir)
      put(`delete:${c.id}:${unique++}`, c)
    } else if (c.kind === 'put-check') put(`check:${c.check.task}/${c.check.id}`, c, dirOf(c.check.task))
    else if (c.kind === 'add-comment') put(`comment:${unique++}`, c, dirOf(c.comment.task))
    else {
      const inTask = /^(tasks\/[^/]+\/[^/]+)\//.exec(c.path)
      put(`file:${c.path}`, c, inTask?.[1])
    }
  }
  return [...slots.values()]
}
