/**
 * A snapshot that a long run of ops changes in place: what `tasks batch`
 * runs its operations on, each on the list as the previous ones left it.
 * `withChanges` builds a new overlay per step, which folds every earlier
 * change again (fine for a few ids, quadratic for 10,000 operations); this
 * one keeps its answers up to date as changes arrive, so every step costs
 * about what the op itself reads. Pure in the sense that matters: it is
 * created, changed and dropped inside one op; nothing outside sees it
 * change.
 */
import {lowerBound} from './ids'
import {QUEUED, cmp, compareForNext, mergeSorted, partitionPoint} from './order'
import type {Check} from './check'
import type {Change} from './plan'
import {compareLeaseRows, type LeaseRow, leaseRowOf, leasesIn, type OpenRows, type Snapshot, type SnapshotTables, type TaskEntry, entryOf, openRowColumns, reservationsIn, tablesOf} from './snapshot'
import {taskFilePath} from './store-layout'
import {type Comment, FINISHED, type TaskMeta} from './task'
import {putCheck} from './apply'
import {overlaySnapshot} from './overlay'
import {titleHash} from './title'

function insertSorted(list: string[], id: string): void {
  const at = lowerBound(list, id)
  if (list[at] !== id) list.splice(at, 0, id)
}

function removeSorted(list: string[], id: string): void {
  const at = lowerBound(list, id)
  if (list[at] === id) list.splice(at, 1)
}

function index(map: Map<string, Set<string>>, key: string, id: string, add: boolean): void {
  let set = map.get(key)
  if (add) {
    if (!set) map.set(key, (set = new Set()))
    set.add(id)
  } else set?.delete(id)
}

export class LiveOverlay implements ReadonlyMap<string, TaskEntry>, SnapshotTables {
  private readonly changes = new Map<string, TaskEntry | null>()
  /** Live ids not in the base, sorted. */
  private readonly added: string[] = []
  private readonly removed = new Set<string>()
  private readonly childIdx = new Map<string, Set<string>>()
  private readonly depIdx = new Map<string, Set<string>>()
  private idsCache: readonly string[] | undefined
  private queueCache: readonly string[] | undefined
  private reservedCache: ReadonlyMap<string, readonly string[]> | undefined
  private claimedCache: ReadonlyMap<string, readonly string[]> | undefined
  private openCache: OpenRows | undefined
  /** The base's open items by title hash, built at the first same-title question (one pass over the base's open rows). */
  private baseTitles: Map<number, string[]> | undefined
  /** The open items this batch wrote, by title hash, kept up to date by each change. */
  private readonly ownTitles = new Map<number, Set<string>>()
  /** The lease order, once asked for (then updated in place by each change). */
  private leaseRows: LeaseRow[] | undefined
  private leaseRowsShared = false
  private readonly baseTables: SnapshotTables
  private readonly checks: Map<string, readonly Check[]>
  /** The comments read for the command (comment --key), as they stand; undefined when none were read. */
  private readonly comments: Map<string, readonly Comment[]> | undefined
  /** The snapshot ops run on: this overlay as tasks and tables, and the checks as they stand. */
  readonly snapshot: Snapshot

  constructor(private readonly base: Snapshot) {
    this.baseTables = tablesOf(base)
    this.checks = new Map(base.checks ?? [])
    this.comments = base.comments ? new Map(base.comments) : undefined
    this.snapshot = {list: base.list, commit: base.commit, config: base.config, tasks: this, tables: this, checks: this.checks, ...(this.comments ? {comments: this.comments} : {}), ...(base.blockedShards ? {blockedShards: base.blockedShards} : {}), ...(base.sessions ? {sessions: base.sessions} : {})}
  }

  /** Apply a plan's changes (in order). */
  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      if (c.kind === 'put-task') {
        // A task new in this batch has no comments yet.
        if (this.comments && !this.comments.has(c.meta.id) && !this.has(c.meta.id)) this.comments.set(c.meta.id, [])
        this.set(c.meta.id, entryOf(c.meta, taskFilePath(c.meta.id)))
      } else if (c.kind === 'add-comment') {
        const said = this.comments?.get(c.comment.task)
        if (said) this.comments!.set(c.comment.task, [...said, c.comment])
      } else if (c.kind === 'delete-task') {
        this.set(c.id, null)
        this.checks.delete(c.id)
      } else if (c.kind === 'put-check') this.checks.set(c.check.task, putCheck(this.checks.get(c.check.task) ?? [], c.check))
    }
  }

  private set(id: string, entry: TaskEntry | null): void {
    this.moveLease(this.get(id), entry)
    const prev = this.changes.has(id) ? this.changes.get(id)! : undefined
    if (prev?.status) {
      if (prev.parent) index(this.childIdx, prev.parent, id, false)
      for (const d of prev.depends_on ?? []) index(this.depIdx, d, id, false)
    }
    this.indexTitle(prev, id, false)
    this.changes.set(id, entry)
    this.indexTitle(entry, id, true)
    if (entry?.status) {
      if (entry.parent) index(this.childIdx, entry.parent, id, true)
      for (const d of entry.depends_on ?? []) index(this.depIdx, d, id, true)
    }
    if (this.base.tasks.has(id)) {
      if (entry) this.removed.delete(id)
      else this.removed.add(id)
    } else if (entry) insertSorted(this.added, id)
    else removeSorted(this.added, id)
    this.idsCache = undefined
    this.queueCache = undefined
    this.reservedCache = undefined
    this.claimedCache = undefined
    this.openCache = undefined
  }

  // ---- ReadonlyMap

  get size(): number {
    return this.base.tasks.size + this.added.length - this.removed.size
  }

  get(id: string): TaskEntry | undefined {
    const c = this.changes.get(id)
    if (c !== undefined) return c ?? undefined
    return this.base.tasks.get(id)
  }

  has(id: string): boolean {
    return this.get(id) !== undefined
  }

  *entries(): MapIterator<[string, TaskEntry]> {
    for (const [id, entry] of this.base.tasks) if (!this.changes.has(id)) yield [id, entry]
    for (const [id, entry] of this.changes) if (entry) yield [id, entry]
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id
  }

  *values(): MapIterator<TaskEntry> {
    for (const [, entry] of this.entries()) yield entry
  }

  [Symbol.iterator](): MapIterator<[string, TaskEntry]> {
    return this.entries()
  }

  forEach(fn: (value: TaskEntry, key: string, map: ReadonlyMap<string, TaskEntry>) => void): void {
    for (const [id, entry] of this.entries()) fn(entry, id, this)
  }

  // ---- SnapshotTables

  private correct(fromBase: readonly string[], gained: Iterable<string>): readonly string[] {
    const kept = fromBase.filter((id) => !this.changes.has(id))
    const more = [...gained].sort()
    if (more.length === 0 && kept.length === fromBase.length) return fromBase
    return mergeSorted(kept, more, cmp)
  }

  sortedIds(): readonly string[] {
    if (!this.idsCache) {
      const base = this.baseTables.sortedIds()
      this.idsCache = mergeSorted(this.removed.size > 0 ? base.filter((id) => !this.removed.has(id)) : base, this.added, cmp)
    }
    return this.idsCache
  }

  idsWithPrefix(prefix: string, limit: number): readonly string[] {
    const fromBase = this.baseTables.idsWithPrefix(prefix, limit + this.removed.size).filter((id) => !this.removed.has(id))
    const fromAdded: string[] = []
    for (let i = lowerBound(this.added, prefix); i < this.added.length && this.added[i]!.startsWith(prefix) && fromAdded.length < limit; i++) fromAdded.push(this.added[i]!)
    return mergeSorted(fromBase, fromAdded, cmp).slice(0, limit)
  }

  children(id: string): readonly string[] {
    return this.correct(this.baseTables.children(id), this.childIdx.get(id) ?? [])
  }

  dependents(id: string): readonly string[] {
    return this.correct(this.baseTables.dependents(id), this.depIdx.get(id) ?? [])
  }

  idsWithStatus(statuses: ReadonlySet<string>): readonly string[] {
    const gained: string[] = []
    for (const [id, entry] of this.changes) if (entry?.status !== undefined && statuses.has(entry.status)) gained.push(id)
    return this.correct(this.baseTables.idsWithStatus(statuses), gained)
  }

  brokenIds(): readonly string[] {
    const gained: string[] = []
    for (const [id, entry] of this.changes) if (entry && !entry.status) gained.push(id)
    return this.correct(this.baseTables.brokenIds(), gained)
  }

  nextQueue(): readonly string[] {
    if (!this.queueCache) {
      const queue = this.baseTables.nextQueue().filter((id) => !this.changes.has(id))
      const metaOf = (id: string): TaskMeta => this.get(id)!.meta!
      const inserts: Array<{at: number; meta: TaskMeta}> = []
      for (const entry of this.changes.values()) {
        const meta = entry?.meta
        if (!meta || !QUEUED.has(meta.status)) continue
        inserts.push({at: partitionPoint(0, queue.length, (i) => compareForNext(metaOf(queue[i]!), meta) < 0), meta})
      }
      inserts.sort((a, b) => a.at - b.at || compareForNext(a.meta, b.meta))
      const out: string[] = []
      let j = 0
      for (let i = 0; i <= queue.length; i++) {
        while (j < inserts.length && inserts[j]!.at === i) out.push(inserts[j++]!.meta.id)
        if (i < queue.length) out.push(queue[i]!)
      }
      this.queueCache = out
    }
    return this.queueCache
  }

  /** Queued items by assignee, in next order (computed from the queue; cached until the next change). */
  reservations(): ReadonlyMap<string, readonly string[]> {
    this.reservedCache ??= reservationsIn(this.nextQueue(), (id) => this.get(id)?.meta?.assignee)
    return this.reservedCache
  }

  /** Items in progress by owner, sorted by id (cached until the next change). */
  claims(): ReadonlyMap<string, readonly string[]> {
    this.claimedCache ??= reservationsIn(this.idsWithStatus(IN_PROGRESS), (id) => this.get(id)?.meta?.owner)
    return this.claimedCache
  }

  /** The lease order: built once from the base's, then kept up to date row by row as changes arrive. */
  leases(): readonly LeaseRow[] {
    if (!this.leaseRows) {
      const kept = this.baseTables.leases().filter(([id]) => !this.changes.has(id))
      const more = leasesIn([...this.changes.values()].filter((e): e is TaskEntry => e !== null))
      this.leaseRows = mergeSorted(kept, more, compareLeaseRows)
    }
    this.leaseRowsShared = true
    return this.leaseRows
  }

  private moveLease(before: TaskEntry | undefined, after: TaskEntry | null): void {
    if (!this.leaseRows) return
    // Copied once before the first change after a caller got the array, so what it got never changes under it.
    if (this.leaseRowsShared) {
      this.leaseRows = [...this.leaseRows]
      this.leaseRowsShared = false
    }
    const rows = this.leaseRows
    const at = (row: LeaseRow): number => partitionPoint(0, rows.length, (i) => compareLeaseRows(rows[i]!, row) < 0)
    const old = before ? leaseRowOf(before) : null
    if (old) {
      const i = at(old)
      if (rows[i]?.[0] === old[0]) rows.splice(i, 1)
    }
    const row = after ? leaseRowOf(after) : null
    if (row) rows.splice(at(row), 0, row)
  }

  /**
   * The base's open rows with the rows the batch's changes can affect worked
   * out again (`OverlayTables.openRows`: over the cache file's columns, no
   * tuple per row), kept until the next change. Every create without a key
   * asks (the same-title check of `add`): a pass over every entry a step, as
   * this was, cost ~20 ms a create at 10,000 tasks.
   */
  openRows(): OpenRows {
    this.openCache ??= tablesOf(overlaySnapshot(this.base, new Map(this.changes), this.base.commit)).openRows()
    return this.openCache
  }

  /**
   * Open items whose title hashes to `hash`: the base's (from an index
   * built once, less the ids this batch changed) and this batch's own (kept
   * up to date by each change), so a batch of N creates asks N cheap
   * questions instead of redoing the open rows N times.
   */
  *openTitled(hash: number): Iterable<string> {
    if (!this.baseTitles) {
      this.baseTitles = new Map()
      const cols = openRowColumns(this.baseTables.openRows())
      for (let i = 0; i < cols.length; i++) {
        const h = cols.titleHash(i)
        const id = cols.id(i)
        const list = this.baseTitles.get(h)
        if (list) list.push(id)
        else this.baseTitles.set(h, [id])
      }
    }
    for (const id of this.baseTitles.get(hash) ?? []) if (!this.changes.has(id)) yield id
    yield* this.ownTitles.get(hash) ?? []
  }

  private indexTitle(entry: TaskEntry | null | undefined, id: string, add: boolean): void {
    const meta = entry?.meta
    if (!meta || FINISHED.has(meta.status)) return
    const h = titleHash(meta.title)
    let set = this.ownTitles.get(h)
    if (add) {
      if (!set) this.ownTitles.set(h, (set = new Set()))
      set.add(id)
    } else set?.delete(id)
  }
}

const IN_PROGRESS: ReadonlySet<string> = new Set(['in_progress'])
