/**
 * Apply a plan's task changes to a snapshot, giving the snapshot as it is
 * after the commit (used to render results against the new state, and by
 * anything that chains ops). Pure: the input snapshot is not changed.
 */
import type {Check} from './check'
import {overlaySnapshot} from './overlay'
import type {Change} from './plan'
import {type Snapshot, type TaskEntry, entryOf} from './snapshot'
import {taskFilePath} from './store-layout'

export function withChanges(snap: Snapshot, changes: readonly Change[], commit: string | null = snap.commit): Snapshot {
  const changed = new Map<string, TaskEntry | null>()
  let checks: Map<string, readonly Check[]> | undefined
  for (const c of changes) {
    if (c.kind === 'put-task') changed.set(c.meta.id, entryOf(c.meta, taskFilePath(c.meta.id)))
    else if (c.kind === 'delete-task') {
      changed.set(c.id, null)
      if (snap.checks?.has(c.id)) (checks ??= new Map(snap.checks)).delete(c.id)
    } else if (c.kind === 'put-check') {
      checks ??= new Map(snap.checks ?? [])
      checks.set(c.check.task, putCheck(checks.get(c.check.task) ?? [], c.check))
    }
  }
  const out = overlaySnapshot(snap, changed, commit)
  const table = checks ?? snap.checks
  return table ? {...out, checks: table} : out
}

/** A task's checks with `check` added or replacing the one with its id. */
export function putCheck(list: readonly Check[], check: Check): Check[] {
  const at = list.findIndex((c) => c.id === check.id)
  if (at === -1) return [...list, check]
  const out = [...list]
  out[at] = check
  return out
}
