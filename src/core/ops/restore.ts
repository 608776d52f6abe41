/**
 * `restore`: bring back a removed task, with the sub-items and comments
 * removed with it, as they were just before the removal (read by the app
 * layer from the removal commit's parent and passed in as values). Pure:
 * the current snapshot decides what may come back.
 *
 * Rules (docs/model.md, "Removing and restoring"): refused when the id is
 * in the list again, or when the item's parent is gone or finished (restore
 * the parent first). A dependency on an item that is gone is dropped and
 * reported: the restored item would otherwise point at nothing.
 */
import {takesSubItems} from '../state-machine'
import {ConflictError} from '../errors'
import type {Change, OpContext, Plan} from '../plan'
import type {Snapshot} from '../snapshot'
import type {Check} from '../check'
import {type Comment, FINISHED, type TaskMeta} from '../task'
import {revise} from './revision'

export interface RemovedItem {
  meta: TaskMeta
  body: string
  comments: Comment[]
  /** Its check files as they were (readable ones); absent: none read. */
  checks?: Check[]
}

export interface RestoreArgs {
  /** The commit that removed the task. */
  removedIn: string
  /** The task first, then its sub-items, as they were before the removal. */
  items: RemovedItem[]
}

export interface RestoreResult {
  restored: TaskMeta[]
  removed_in: string
  /** Dependencies on items that are gone, left out of the restored items. */
  dropped_dependencies: Array<{id: string; dependency: string}>
  comments: number
}

/** Put the removed task (and its sub-items and comments) back, as one commit. */
export function restoreTask(snap: Snapshot, ctx: OpContext, args: RestoreArgs): Plan<RestoreResult> {
  const root = args.items[0]!.meta
  if (snap.tasks.has(root.id)) {
    throw new ConflictError('already_exists', `${root.id} is in the list again; there is nothing to restore`, {id: root.id})
  }
  if (root.parent) {
    const parent = snap.tasks.get(root.parent)
    if (!parent) {
      throw new ConflictError('parent_missing', `${root.id} was a sub-item of ${root.parent}, which is gone: restore ${root.parent} first`, {id: root.id, parent: root.parent})
    }
    const p = parent.meta
    const open = !FINISHED.has(root.status)
    if (p && open && !takesSubItems(p.status)) {
      throw new ConflictError('parent_finished', `${root.parent} is ${p.status}; reopen it before restoring its sub-item ${root.id}`, {id: root.id, parent: root.parent, status: p.status})
    }
  }
  // Sub-items that are somehow back already stay as they are.
  const items = args.items.filter((item, i) => i === 0 || !snap.tasks.has(item.meta.id))
  const coming = new Set(items.map((i) => i.meta.id))
  const dropped: RestoreResult['dropped_dependencies'] = []
  const changes: Change[] = []
  const restored: TaskMeta[] = []
  let comments = 0
  for (const item of items) {
    const kept = item.meta.depends_on.filter((d) => snap.tasks.has(d) || coming.has(d))
    for (const d of item.meta.depends_on) if (!kept.includes(d)) dropped.push({id: item.meta.id, dependency: d})
    const meta = revise(item.meta, ctx, {depends_on: kept})
    restored.push(meta)
    changes.push({kind: 'put-task', meta, body: item.body})
    for (const comment of item.comments) changes.push({kind: 'add-comment', comment})
    for (const check of item.checks ?? []) changes.push({kind: 'put-check', check})
    comments += item.comments.length
  }
  const trailers: Array<[string, string]> = [['Tasks-Restored-From', args.removedIn]]
  for (const d of dropped) trailers.push(['Tasks-Dropped-Dependency', `${d.id} ${d.dependency}`])
  return {
    op: 'restore',
    subject: {id: root.id, title: root.title},
    changes,
    trailers,
    result: {restored, removed_in: args.removedIn, dropped_dependencies: dropped, comments},
  }
}
