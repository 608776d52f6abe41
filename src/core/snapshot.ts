/**
 * A snapshot is the whole of one list at one commit, as values: every task's
 * frontmatter (bodies and comments are read on demand by the layer below),
 * the list's config, and the files that failed to parse. Ops read snapshots
 * and never change them.
 */
import {InvalidError} from './errors'
import {resolveId} from './ids'
import type {ListConfig, TaskMeta} from './task'

export interface TaskEntry {
  id: string
  /** Path of the task file on the ref, e.g. tasks/3f/tsk-k3v9…/task.md. */
  path: string
  meta?: TaskMeta
  /** Why the file could not be read, when `meta` is absent. */
  error?: string
}

export interface Snapshot {
  list: string
  /** Commit id the snapshot was read from; null before the list exists. */
  commit: string | null
  config: ListConfig
  tasks: ReadonlyMap<string, TaskEntry>
}

interface Derived {
  sortedIds: string[]
  children: Map<string, string[]>
  dependents: Map<string, string[]>
}

const derivedCache = new WeakMap<Snapshot, Derived>()

/** Sorted ids, children by parent and dependents by dependency, computed once per snapshot. */
export function derived(snap: Snapshot): Derived {
  let d = derivedCache.get(snap)
  if (d) return d
  const sortedIds = [...snap.tasks.keys()].sort()
  const children = new Map<string, string[]>()
  const dependents = new Map<string, string[]>()
  for (const id of sortedIds) {
    const meta = snap.tasks.get(id)!.meta
    if (!meta) continue
    if (meta.parent) push(children, meta.parent, id)
    for (const dep of meta.depends_on) push(dependents, dep, id)
  }
  d = {sortedIds, children, dependents}
  derivedCache.set(snap, d)
  return d
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

/** Resolve a typed id or prefix to a stored id (throws not found / ambiguous). */
export function resolve(snap: Snapshot, input: string): string {
  return resolveId(input, derived(snap).sortedIds)
}

/** The frontmatter of a task that exists; a broken file is an invalid-input error naming its path. */
export function taskMeta(snap: Snapshot, id: string): TaskMeta {
  const entry = snap.tasks.get(id)
  if (!entry) throw new Error(`internal: ${id} is not in the snapshot`)
  if (!entry.meta) {
    throw new InvalidError('broken_task_file', `${entry.path} cannot be read: ${entry.error}. Fix or remove the file on the ref.`, {
      id,
      path: entry.path,
      reason: entry.error,
    })
  }
  return entry.meta
}

/** Resolve input and return the task's frontmatter. */
export function lookup(snap: Snapshot, input: string): TaskMeta {
  return taskMeta(snap, resolve(snap, input))
}

export function childrenOf(snap: Snapshot, id: string): TaskMeta[] {
  return (derived(snap).children.get(id) ?? []).map((c) => snap.tasks.get(c)?.meta).filter((m): m is TaskMeta => !!m)
}

export function dependentsOf(snap: Snapshot, id: string): TaskMeta[] {
  return (derived(snap).dependents.get(id) ?? []).map((c) => snap.tasks.get(c)?.meta).filter((m): m is TaskMeta => !!m)
}

/** Every readable task, in id order. */
export function allTasks(snap: Snapshot): TaskMeta[] {
  const out: TaskMeta[] = []
  for (const id of derived(snap).sortedIds) {
    const meta = snap.tasks.get(id)!.meta
    if (meta) out.push(meta)
  }
  return out
}

/** Files that could not be read, for reporting by path. */
export function brokenEntries(snap: Snapshot): TaskEntry[] {
  return [...snap.tasks.values()].filter((e) => !e.meta).sort((a, b) => a.path.localeCompare(b.path))
}
