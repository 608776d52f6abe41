/**
 * A snapshot seen through a set of changed entries: what a list looks like
 * after a commit, without copying the 10,000 entries that did not change.
 * The store uses it to bring a cached index up to a newer commit, and the
 * core to show the result of a plan. Pure.
 */
import {lowerBound} from './ids'
import {QUEUED, compareForNext} from './order'
import type {TaskMeta} from './task'
import {type Snapshot, type SnapshotTables, type TaskEntry, tablesOf} from './snapshot'

/** Entry per changed id; null: the task is gone. */
export type EntryChanges = ReadonlyMap<string, TaskEntry | null>

/** `base` with `changes` applied: a Map-like view that reads through to the base. */
export class OverlayTasks<E extends TaskEntry = TaskEntry> implements ReadonlyMap<string, E> {
  readonly size: number
  /** Changed ids that are new (not in the base), sorted. */
  readonly added: readonly string[]
  /** Ids of the base that are gone. */
  readonly removed: ReadonlySet<string>

  constructor(
    readonly base: ReadonlyMap<string, E>,
    readonly changes: ReadonlyMap<string, E | null>,
  ) {
    const added: string[] = []
    const removed = new Set<string>()
    for (const [id, entry] of changes) {
      const inBase = base.has(id)
      if (entry && !inBase) added.push(id)
      else if (!entry && inBase) removed.add(id)
    }
    this.added = added.sort()
    this.removed = removed
    this.size = base.size + added.length - removed.size
  }

  get(id: string): E | undefined {
    const changed = this.changes.get(id)
    if (changed !== undefined) return changed ?? undefined
    return this.base.get(id)
  }

  has(id: string): boolean {
    return this.get(id) !== undefined
  }

  *entries(): MapIterator<[string, E]> {
    for (const [id, entry] of this.base) if (!this.changes.has(id)) yield [id, entry]
    for (const [id, entry] of this.changes) if (entry) yield [id, entry]
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id
  }

  *values(): MapIterator<E> {
    for (const [, entry] of this.entries()) yield entry
  }

  [Symbol.iterator](): MapIterator<[string, E]> {
    return this.entries()
  }

  forEach(fn: (value: E, key: string, map: ReadonlyMap<string, E>) => void): void {
    for (const [id, entry] of this.entries()) fn(entry, id, this)
  }
}

/** Merge two sorted id lists into one sorted list. */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  if (b.length === 0) return [...a]
  if (a.length === 0) return [...b]
  const out: string[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) out.push(a[i]! <= b[j]! ? a[i++]! : b[j++]!)
  while (i < a.length) out.push(a[i++]!)
  while (j < b.length) out.push(b[j++]!)
  return out
}

/**
 * The base's tables corrected for the changed entries: an answer from the
 * base loses every changed id, then gains the changed ids whose new entry
 * belongs in it.
 */
export class OverlayTables implements SnapshotTables {
  private ids: readonly string[] | undefined
  private queue: readonly string[] | undefined

  constructor(
    readonly base: SnapshotTables,
    private readonly tasks: OverlayTasks,
  ) {}

  private correct(fromBase: readonly string[], belongs: (entry: TaskEntry) => boolean): readonly string[] {
    const changes = this.tasks.changes
    const kept = fromBase.filter((id) => !changes.has(id))
    const gained: string[] = []
    for (const [id, entry] of changes) if (entry && belongs(entry)) gained.push(id)
    if (gained.length === 0 && kept.length === fromBase.length) return fromBase
    return mergeSorted(kept, gained.sort())
  }

  sortedIds(): readonly string[] {
    if (!this.ids) {
      const {removed, added} = this.tasks
      const base = this.base.sortedIds()
      this.ids = mergeSorted(removed.size > 0 ? base.filter((id) => !removed.has(id)) : base, added)
    }
    return this.ids
  }

  idsWithPrefix(prefix: string, limit: number): readonly string[] {
    const {removed, added} = this.tasks
    const fromBase = this.base.idsWithPrefix(prefix, limit + removed.size).filter((id) => !removed.has(id))
    const fromAdded: string[] = []
    for (let i = lowerBound(added, prefix); i < added.length && added[i]!.startsWith(prefix); i++) fromAdded.push(added[i]!)
    return mergeSorted(fromBase, fromAdded).slice(0, limit)
  }

  children(id: string): readonly string[] {
    return this.correct(this.base.children(id), (e) => !!e.status && e.parent === id)
  }

  dependents(id: string): readonly string[] {
    return this.correct(this.base.dependents(id), (e) => !!e.status && !!e.depends_on?.includes(id))
  }

  idsWithStatus(statuses: ReadonlySet<string>): readonly string[] {
    return this.correct(this.base.idsWithStatus(statuses), (e) => e.status !== undefined && statuses.has(e.status))
  }

  brokenIds(): readonly string[] {
    return this.correct(this.base.brokenIds(), (e) => !e.status)
  }

  /** The base's queue without the changed ids, each changed queued item put in place by binary search. */
  nextQueue(): readonly string[] {
    if (!this.queue) {
      const tasks = this.tasks
      const base = this.base.nextQueue()
      const queue = base.filter((id) => !tasks.changes.has(id))
      const metaOf = (id: string): TaskMeta => tasks.get(id)!.meta!
      for (const entry of tasks.changes.values()) {
        const meta = entry?.meta
        if (!meta || !QUEUED.has(meta.status)) continue
        let lo = 0
        let hi = queue.length
        while (lo < hi) {
          const mid = (lo + hi) >>> 1
          if (compareForNext(metaOf(queue[mid]!), meta) < 0) lo = mid + 1
          else hi = mid
        }
        queue.splice(lo, 0, meta.id)
      }
      this.queue = queue
    }
    return this.queue
  }
}

/**
 * `base` with `changes` applied, as a snapshot at `commit`. Overlays do not
 * stack: a change set over an overlay is folded into one over its base.
 */
export function overlaySnapshot(base: Snapshot, changes: EntryChanges, commit: string | null): Snapshot {
  let rootTasks = base.tasks
  let rootTables: SnapshotTables
  let all: ReadonlyMap<string, TaskEntry | null> = changes
  if (base.tasks instanceof OverlayTasks && base.tables instanceof OverlayTables) {
    rootTasks = base.tasks.base
    rootTables = base.tables.base
    all = new Map([...base.tasks.changes, ...changes])
  } else {
    rootTables = tablesOf(base)
  }
  const tasks = new OverlayTasks(rootTasks, all)
  return {list: base.list, commit, config: base.config, tasks, tables: new OverlayTables(rootTables, tasks)}
}
