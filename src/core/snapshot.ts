/**
 * A snapshot is the whole of one list at one commit, as values: every task's
 * frontmatter (bodies and comments are read on demand by the layer below),
 * the list's config, and the files that failed to parse. Ops read snapshots
 * and never change them.
 */
import {InvalidError} from './errors'
import {resolveId} from './ids'
import type {ListConfig, Status, TaskMeta} from './task'

/**
 * One task of a snapshot. `status`, `parent` and `depends_on` are copies of
 * the frontmatter fields, present whenever `meta` is: the graph and the
 * status filters read them without touching `meta`, which the store may
 * decode lazily (a 10,000-task list then decodes only what a command uses).
 */
export interface TaskEntry {
  id: string
  /** Path of the task file on the ref, e.g. tasks/3f/tsk-k3v9…/task.md. */
  path: string
  meta?: TaskMeta
  /** Why the file could not be read, when `meta` is absent. */
  error?: string
  status?: Status
  parent?: string
  depends_on?: readonly string[]
}

/** A readable entry built from a parsed frontmatter. */
export function entryOf(meta: TaskMeta, path: string): TaskEntry {
  return {id: meta.id, path, meta, status: meta.status, parent: meta.parent, depends_on: meta.depends_on}
}

export interface Snapshot {
  list: string
  /** Commit id the snapshot was read from; null before the list exists. */
  commit: string | null
  config: ListConfig
  tasks: ReadonlyMap<string, TaskEntry>
  /** Every id in `tasks`, sorted, when the store already has them in order. */
  sortedIds?: readonly string[]
}

interface Derived {
  sortedIds: readonly string[]
  children: Map<string, string[]>
  dependents: Map<string, string[]>
}

/** Lazily computed tables: a command that needs only ids never builds the maps. */
class DerivedTables implements Derived {
  private childMap: Map<string, string[]> | undefined
  private dependentMap: Map<string, string[]> | undefined

  constructor(
    private readonly snap: Snapshot,
    readonly sortedIds: readonly string[],
  ) {}

  get children(): Map<string, string[]> {
    if (!this.childMap) {
      const map = new Map<string, string[]>()
      for (const entry of this.snap.tasks.values()) {
        const parent = entry.parent
        if (parent && entry.status) push(map, parent, entry.id)
      }
      for (const list of map.values()) list.sort()
      this.childMap = map
    }
    return this.childMap
  }

  get dependents(): Map<string, string[]> {
    if (!this.dependentMap) {
      const map = new Map<string, string[]>()
      for (const entry of this.snap.tasks.values()) {
        const deps = entry.depends_on
        if (deps && deps.length > 0) for (const dep of deps) push(map, dep, entry.id)
      }
      for (const list of map.values()) list.sort()
      this.dependentMap = map
    }
    return this.dependentMap
  }
}

const derivedCache = new WeakMap<Snapshot, Derived>()

/** Sorted ids, children by parent and dependents by dependency, computed once per snapshot. */
export function derived(snap: Snapshot): Derived {
  let d = derivedCache.get(snap)
  if (d) return d
  d = new DerivedTables(snap, snap.sortedIds ?? [...snap.tasks.keys()].sort())
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

/** Readable tasks whose status is in `statuses`, in id order; others are not decoded. */
export function tasksWithStatus(snap: Snapshot, statuses: ReadonlySet<string>): TaskMeta[] {
  const out: TaskMeta[] = []
  for (const id of derived(snap).sortedIds) {
    const entry = snap.tasks.get(id)!
    if (entry.status && statuses.has(entry.status) && entry.meta) out.push(entry.meta)
  }
  return out
}

/** Ids of a task's sub-items (no decoding). */
export function childIds(snap: Snapshot, id: string): readonly string[] {
  return derived(snap).children.get(id) ?? []
}

/** Files that could not be read, for reporting by path. */
export function brokenEntries(snap: Snapshot): TaskEntry[] {
  return [...snap.tasks.values()].filter((e) => !e.status).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/**
 * Let `to` reuse `from`'s derived tables (sorted ids, children, dependents)
 * when the changes between them kept every id, parent and dependency: the
 * common case of a status change, which then costs no re-sort of the list.
 */
export function shareDerivedIfSameShape(from: Snapshot, to: Snapshot, changedIds: readonly string[]): void {
  const d = derivedCache.get(from)
  if (!d || from.tasks.size !== to.tasks.size) return
  for (const id of changedIds) {
    const a = from.tasks.get(id)
    const b = to.tasks.get(id)
    if (!a || !b || a.parent !== b.parent || (a.depends_on ?? []).join(' ') !== (b.depends_on ?? []).join(' ')) return
  }
  derivedCache.set(to, d)
}
