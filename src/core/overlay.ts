/**
 * A snapshot seen through a set of changed entries: what a list looks like
 * after a commit, without copying the 10,000 entries that did not change.
 * The store uses it to bring a cached index up to a newer commit, and the
 * core to show the result of a plan. Pure.
 */
import {lowerBound} from './ids'
import {QUEUED, cmp, compareForNext, mergeSorted, partitionPoint} from './order'
import {MergedOpenRows, baseOpenRowOf} from './merged-open-rows'
import type {TaskMeta} from './task'
import {type LeaseRow, compareLeaseRows, leasesIn, type OpenRow, type OpenRows, type Snapshot, type SnapshotTables, type TaskEntry, compareOpenRows, isFinishedStatus, isOpenStatus, openRowOf, pushTo, tablesOf} from './snapshot'

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

/**
 * The base's tables corrected for the changed entries: an answer from the
 * base loses every changed id, then gains the changed ids whose new entry
 * belongs in it.
 */
export class OverlayTables implements SnapshotTables {
  private ids: readonly string[] | undefined
  private queue: readonly string[] | undefined
  private reserved: ReadonlyMap<string, readonly string[]> | undefined
  private claimed: ReadonlyMap<string, readonly string[]> | undefined
  private open: OpenRows | undefined
  private redoneRows: {affected: ReadonlySet<string>; redone: readonly OpenRow[]; finished: number} | undefined
  private leaseRows: readonly LeaseRow[] | undefined
  /** Changed entries by the parent / the dependency they name (built once, on first use), so a lookup never scans every change. */
  private changedChildren: Map<string, string[]> | undefined
  private changedDependents: Map<string, string[]> | undefined

  constructor(
    readonly base: SnapshotTables,
    private readonly tasks: OverlayTasks,
  ) {}

  /** The base's answer without the changed ids, plus `gained` (changed ids that belong, sorted). */
  private correct(fromBase: readonly string[], gained: readonly string[]): readonly string[] {
    const changes = this.tasks.changes
    const kept = fromBase.filter((id) => !changes.has(id))
    if (gained.length === 0 && kept.length === fromBase.length) return fromBase
    return mergeSorted(kept, gained, cmp)
  }

  /** Changed live entries that satisfy `belongs`, sorted: one pass over the changes. */
  private gained(belongs: (entry: TaskEntry) => boolean): string[] {
    const out: string[] = []
    for (const [id, entry] of this.tasks.changes) if (entry && belongs(entry)) out.push(id)
    return out.sort()
  }

  private reverseEdges(): void {
    const children = new Map<string, string[]>()
    const dependents = new Map<string, string[]>()
    for (const [id, entry] of this.tasks.changes) {
      if (!entry?.status) continue
      if (entry.parent) pushTo(children, entry.parent, id)
      for (const dep of entry.depends_on ?? []) pushTo(dependents, dep, id)
    }
    for (const list of children.values()) list.sort()
    for (const list of dependents.values()) list.sort()
    this.changedChildren = children
    this.changedDependents = dependents
  }

  sortedIds(): readonly string[] {
    if (!this.ids) {
      const {removed, added} = this.tasks
      const base = this.base.sortedIds()
      this.ids = mergeSorted(removed.size > 0 ? base.filter((id) => !removed.has(id)) : base, added, cmp)
    }
    return this.ids
  }

  idsWithPrefix(prefix: string, limit: number): readonly string[] {
    const {removed, added} = this.tasks
    const fromBase = this.base.idsWithPrefix(prefix, limit + removed.size).filter((id) => !removed.has(id))
    const fromAdded: string[] = []
    for (let i = lowerBound(added, prefix); i < added.length && added[i]!.startsWith(prefix); i++) fromAdded.push(added[i]!)
    return mergeSorted(fromBase, fromAdded, cmp).slice(0, limit)
  }

  children(id: string): readonly string[] {
    if (!this.changedChildren) this.reverseEdges()
    return this.correct(this.base.children(id), this.changedChildren!.get(id) ?? [])
  }

  dependents(id: string): readonly string[] {
    if (!this.changedDependents) this.reverseEdges()
    return this.correct(this.base.dependents(id), this.changedDependents!.get(id) ?? [])
  }

  idsWithStatus(statuses: ReadonlySet<string>): readonly string[] {
    return this.correct(
      this.base.idsWithStatus(statuses),
      this.gained((e) => e.status !== undefined && statuses.has(e.status)),
    )
  }

  brokenIds(): readonly string[] {
    return this.correct(this.base.brokenIds(), this.gained((e) => !e.status))
  }

  /**
   * The base's queue without the changed ids, each changed queued item put
   * in place: its position is found by binary search in the kept queue
   * (a few decoded entries each), then one pass builds the result, so the
   * cost is linear in the queue plus k·log n for k changed items.
   */
  nextQueue(): readonly string[] {
    if (!this.queue) {
      const changed: TaskMeta[] = []
      for (const entry of this.tasks.changes.values()) if (entry?.meta && QUEUED.has(entry.meta.status)) changed.push(entry.meta)
      this.queue = this.inQueueOrder(this.base.nextQueue(), changed)
    }
    return this.queue
  }

  /**
   * nextQueue() merged lazily from its front: the base's queue read in order,
   * changed ids skipped, each changed queued item yielded before the first
   * kept item it sorts before (where inQueueOrder's binary search puts it).
   * `next` reads a few items of a queue of ~50,000 at 100,000 tasks, so
   * neither the filtered copy nor the merged array is built.
   */
  *nextQueueFront(): Iterable<string> {
    if (this.queue) {
      yield* this.queue
      return
    }
    const tasks = this.tasks
    const changed: TaskMeta[] = []
    for (const entry of tasks.changes.values()) if (entry?.meta && QUEUED.has(entry.meta.status)) changed.push(entry.meta)
    changed.sort(compareForNext)
    let j = 0
    for (const id of this.base.nextQueueFront?.() ?? this.base.nextQueue()) {
      if (tasks.changes.has(id)) continue
      if (j < changed.length) {
        const meta = tasks.get(id)!.meta!
        while (j < changed.length && compareForNext(meta, changed[j]!) >= 0) yield changed[j++]!.id
      }
      yield id
    }
    while (j < changed.length) yield changed[j++]!.id
  }

  /**
   * The base's reservations without the changed ids, each changed queued
   * item with an assignee put in place in its assignee's list (the same
   * binary search as the queue); lists of other assignees are the base's.
   */
  reservations(): ReadonlyMap<string, readonly string[]> {
    if (!this.reserved) {
      const changes = this.tasks.changes
      const byAssignee = new Map<string, TaskMeta[]>()
      for (const entry of changes.values()) {
        const meta = entry?.meta
        if (meta?.assignee && QUEUED.has(meta.status)) {
          const list = byAssignee.get(meta.assignee)
          if (list) list.push(meta)
          else byAssignee.set(meta.assignee, [meta])
        }
      }
      const out = new Map<string, readonly string[]>()
      for (const [who, ids] of this.base.reservations()) {
        const kept = ids.some((id) => changes.has(id)) || byAssignee.has(who) ? this.inQueueOrder(ids, byAssignee.get(who) ?? []) : ids
        if (kept.length > 0) out.set(who, kept)
      }
      for (const [who, metas] of byAssignee) if (!out.has(who)) out.set(who, this.inQueueOrder([], metas))
      this.reserved = out
    }
    return this.reserved
  }

  /** The base's claims without the changed ids, plus the changed items in progress, by owner (lists sorted by id). */
  claims(): ReadonlyMap<string, readonly string[]> {
    if (!this.claimed) {
      const changes = this.tasks.changes
      const gained = new Map<string, string[]>()
      for (const [id, entry] of changes) {
        const owner = entry?.status === 'in_progress' ? entry.meta?.owner : undefined
        if (owner) pushTo(gained, owner, id)
      }
      const out = new Map<string, readonly string[]>()
      for (const [who, ids] of this.base.claims()) {
        const kept = ids.some((id) => changes.has(id)) || gained.has(who) ? this.correct(ids, (gained.get(who) ?? []).sort()) : ids
        if (kept.length > 0) out.set(who, kept)
      }
      for (const [who, ids] of gained) if (!out.has(who)) out.set(who, ids.sort())
      this.claimed = out
    }
    return this.claimed
  }

  /** The base's lease rows without the changed ids, plus the changed items' rows, in order. */
  leases(): readonly LeaseRow[] {
    if (!this.leaseRows) {
      const changes = this.tasks.changes
      const gained = leasesIn([...changes.values()].filter((e): e is TaskEntry => e !== null))
      this.leaseRows = mergeSorted(this.base.leases().filter((r) => !changes.has(r[0])), gained, compareLeaseRows)
    }
    return this.leaseRows
  }

  /** The rows of leases() ending before `limitMs`: the base's front without the changed ids, merged with the changed items' rows. */
  leasesBefore(limitMs: number): readonly LeaseRow[] {
    const before = (r: LeaseRow) => r[1] < limitMs
    if (this.leaseRows) return this.leaseRows.filter(before)
    const changes = this.tasks.changes
    const gained = leasesIn([...changes.values()].filter((e): e is TaskEntry => e !== null)).filter(before)
    const front = this.base.leasesBefore ? this.base.leasesBefore(limitMs) : this.base.leases()
    const rows: LeaseRow[] = []
    let j = 0
    for (const r of front) {
      if (changes.has(r[0]) || !before(r)) continue
      while (j < gained.length && compareLeaseRows(gained[j]!, r) < 0) rows.push(gained[j++]!)
      rows.push(r)
    }
    while (j < gained.length) rows.push(gained[j++]!)
    return rows
  }

  /**
   * The base's open rows with every row a change can affect worked out
   * again: the changed items, their parents before and after (open
   * sub-items), their sub-items (a parent's dependencies make them wait),
   * the items that depend on them and those items' sub-items (waiting).
   * Nothing else's row reads a changed entry, so the rest are the base's.
   * Over a base with columns (the index cache file) those are read in
   * place, with no tuple per row (MergedOpenRows); otherwise the rows are
   * merged as tuples.
   */
  openRows(): OpenRows {
    if (!this.open) {
      const baseTasks = this.tasks.base
      const {affected, redone, finished: more} = this.redoneOpenRows()
      const baseOpen = this.base.openRows()
      const finished = baseOpen.finished + more
      const cols = baseOpen.columns
      if (cols) {
        // Read through the base's columns: no tuple per base row (see MergedOpenRows).
        const baseRowOf = (id: string): number => {
          const meta = baseTasks.get(id)?.meta
          return meta && isOpenStatus(meta.status) ? baseOpenRowOf(cols, id, meta.priority, meta.created_at) : -1
        }
        const dropped: number[] = []
        for (const id of affected) {
          const i = baseRowOf(id)
          if (i >= 0) dropped.push(i)
        }
        this.open = new MergedOpenRows(baseOpen, cols, dropped, redone, baseRowOf, finished, this.brokenIds())
        return this.open
      }
      this.open = {rows: mergeSorted(baseOpen.rows.filter((r) => !affected.has(r[0])), redone, compareOpenRows), finished, broken: this.brokenIds()}
    }
    return this.open
  }

  /**
   * The ids whose open row a change can affect (see openRows) and their
   * rows now (the open ones), sorted by compareOpenRows; `finished` is how
   * many more finished items there are than in the base. Reads nothing of
   * the base's open rows: what `list --all --json` merges into the cache
   * file's own open rows (src/app/list-stream.ts).
   */
  redoneOpenRows(): {affected: ReadonlySet<string>; redone: readonly OpenRow[]; finished: number} {
    if (!this.redoneRows) {
      const tasks = this.tasks
      const baseTasks = tasks.base
      const affected = new Set<string>()
      let finished = 0
      for (const [id, entry] of tasks.changes) {
        const before = baseTasks.get(id)
        if (isFinishedStatus(before?.status)) finished--
        if (entry && isFinishedStatus(entry.status)) finished++
        affected.add(id)
        if (before?.parent) affected.add(before.parent)
        if (entry?.parent) affected.add(entry.parent)
        for (const c of this.children(id)) affected.add(c)
        for (const d of this.dependents(id)) {
          affected.add(d)
          for (const c of this.children(d)) affected.add(c)
        }
      }
      const redone: OpenRow[] = []
      for (const id of affected) {
        const entry = tasks.get(id)
        const row = entry ? openRowOf(tasks, this, entry) : null
        if (row) redone.push(row)
      }
      redone.sort(compareOpenRows)
      this.redoneRows = {affected, redone, finished}
    }
    return this.redoneRows
  }

  /**
   * `base` (ids in next order) without the changed ids, with `inserted` put
   * in place: each position is found by binary search in the kept ids (a
   * few decoded entries each), then one pass builds the result, so the cost
   * is linear in the list plus k·log n for k inserted items.
   */
  private inQueueOrder(base: readonly string[], inserted: readonly TaskMeta[]): readonly string[] {
    const tasks = this.tasks
    const queue = base.filter((id) => !tasks.changes.has(id))
    const metaOf = (id: string): TaskMeta => tasks.get(id)!.meta!
    const inserts: Array<{at: number; meta: TaskMeta}> = []
    for (const meta of inserted) inserts.push({at: partitionPoint(0, queue.length, (i) => compareForNext(metaOf(queue[i]!), meta) < 0), meta})
    if (inserts.length === 0) return queue
    inserts.sort((a, b) => a.at - b.at || compareForNext(a.meta, b.meta))
    const out: string[] = []
    let j = 0
    for (let i = 0; i <= queue.length; i++) {
      while (j < inserts.length && inserts[j]!.at === i) out.push(inserts[j++]!.meta.id)
      if (i < queue.length) out.push(queue[i]!)
    }
    return out
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
  return {list: base.list, commit, config: base.config, tasks, tables: new OverlayTables(rootTables, tasks), ...(base.blockedShards ? {blockedShards: base.blockedShards} : {})}
}
