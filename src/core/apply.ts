/**
 * Apply a plan's task changes to a snapshot, giving the snapshot as it is
 * after the commit (used to render results against the new state, and by
 * anything that chains ops). Pure: the input snapshot is not changed.
 */
import {overlaySnapshot} from './overlay'
import type {Change} from './plan'
import {type Snapshot, type TaskEntry, entryOf} from './snapshot'
import {taskFilePath} from './store-layout'

export function withChanges(snap: Snapshot, changes: readonly Change[], commit: string | null = snap.commit): Snapshot {
  const changed = new Map<string, TaskEntry | null>()
  for (const c of changes) {
    if (c.kind === 'put-task') changed.set(c.meta.id, entryOf(c.meta, taskFilePath(c.meta.id)))
    else if (c.kind === 'delete-task') changed.set(c.id, null)
  }
  return overlaySnapshot(snap, changed, commit)
}
