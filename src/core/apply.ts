/**
 * Apply a plan's task changes to a snapshot, giving the snapshot as it is
 * after the commit (used to render results against the new state, and by
 * anything that chains ops). Pure: the input snapshot is not changed.
 */
import type {Change} from './plan'
import {type Snapshot, type TaskEntry, entryOf, shareDerivedIfSameShape} from './snapshot'
import {taskFilePath} from './store-layout'

export function withChanges(snap: Snapshot, changes: readonly Change[], commit: string | null = snap.commit): Snapshot {
  const tasks = new Map<string, TaskEntry>(snap.tasks)
  for (const c of changes) {
    if (c.kind === 'put-task') tasks.set(c.meta.id, entryOf(c.meta, taskFilePath(c.meta.id)))
    else if (c.kind === 'delete-task') tasks.delete(c.id)
  }
  const next: Snapshot = {list: snap.list, commit, config: snap.config, tasks}
  if (changes.every((c) => c.kind !== 'delete-task')) {
    shareDerivedIfSameShape(snap, next, changes.flatMap((c) => (c.kind === 'put-task' ? [c.meta.id] : [])))
  }
  return next
}
