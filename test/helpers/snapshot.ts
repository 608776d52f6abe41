/** Build in-memory snapshots for unit tests of the pure core. */
import type {OpContext} from '../../src/core/plan'
import {type Snapshot, type TaskEntry, entryOf} from '../../src/core/snapshot'
import {DEFAULT_CONFIG, type TaskMeta} from '../../src/core/task'
import {taskFilePath} from '../../src/core/store-layout'
import {withChanges} from '../../src/core/apply'
import type {Plan} from '../../src/core/plan'

export const T0 = '2026-11-29T12:00:00.000Z'

export function ctx(actor = 'alice', now = T0, extra: Partial<OpContext> = {}): OpContext {
  return {actor, now, entropy: `${actor}-${now}-${Math.random()}`, ...extra}
}

let counter = 0
/** A task with sensible defaults; ids are valid stored ids. */
export function task(partial: Partial<TaskMeta> & {id?: string} = {}): TaskMeta {
  counter++
  const id = partial.id ?? `tsk-${String(counter).padStart(10, '0')}`
  return {
    id,
    title: `task ${counter}`,
    status: 'todo',
    priority: 2,
    tags: [],
    depends_on: [],
    epoch: 0,
    created_at: new Date(Date.parse(T0) - 1_000_000 + counter * 1000).toISOString(),
    created_by: 'alice',
    updated_at: T0,
    updated_by: 'alice',
    revision: 1,
    ...partial,
  }
}

export function snapshot(tasks: TaskMeta[], broken: Array<{id: string; error: string}> = []): Snapshot {
  const map = new Map<string, TaskEntry>()
  for (const t of tasks) map.set(t.id, entryOf(t, taskFilePath(t.id)))
  for (const b of broken) map.set(b.id, {id: b.id, path: taskFilePath(b.id), error: b.error})
  return {list: 'main', commit: 'c0', config: {...DEFAULT_CONFIG}, tasks: map}
}

/** Apply a plan's changes, as a commit would. */
export function after(snap: Snapshot, plan: Plan<unknown>): Snapshot {
  return withChanges(snap, plan.changes)
}

/** `base` with `changes` applied (null: removed): what a scan of the changed tasks sees. */
export function applied(base: ReadonlyMap<string, TaskEntry>, changes: ReadonlyMap<string, TaskEntry | null>): Map<string, TaskEntry> {
  const out = new Map(base)
  for (const [id, e] of changes) {
    if (e) out.set(id, e)
    else out.delete(id)
  }
  return out
}
