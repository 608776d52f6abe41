/**
 * `list --json` of a whole list that takes in finished items (`--all`,
 * `--status done`, …), streamed from the index cache file without holding
 * the cards: the same bytes as building every view and `JSON.stringify`-ing
 * it, at a fraction of the cost. This module is the use case: which rows
 * are listed, in what order, and the JSON each one writes. The bytes of the
 * cache file (its list section and task lines) are read by refstore's
 * `ListSectionReader`, which gives rows, records and line fields.
 *
 * 1. `ListingRows` places every row: the open records in their order (their
 *    state depends on the clock and the caller, so it is worked out here
 *    from each record), the finished records as they come, the tasks
 *    changed since the file merged in by their keys; then it lays the
 *    listing out, top-level rows each followed by their listed sub-items,
 *    exactly as the listing of decoded cards orders them. No id, string or
 *    sort key is kept a task and nothing is sorted.
 * 2. `RowWriter` (list-stream-json.ts) produces the rows a batch at a time as they are written:
 *    each row's JSON is put together from the JSON text of its frontmatter
 *    values as the file holds them (written by JSON.stringify, so each
 *    value's text is what JSON.stringify of the view would write) and the
 *    derived fields (short id, sub-items, wait reasons, state). A row that
 *    does not have the usual shape, or that a change affects, is viewed and
 *    stringified the ordinary way.
 *
 * Memory is a few bytes a task in typed arrays (the section's line part,
 * each row's rank and facts, the order) and a few batches, whatever the
 * size of the list.
 */
import {type State, claimLiveAt} from '../core/readiness'
import {OverlayTables} from '../core/overlay'
import {OPEN_ROW_WAITING, type OpenRow, type OpenRowColumns, type Snapshot, type TaskEntry, openRowColumns, tablesOf} from '../core/snapshot'
import type {ListConfig} from '../core/task'
import type {TaskViewer} from '../core/task-view'
import {BROKEN, CANCELLED, DONE, NONE, createdNumbers, statusCodeOf} from '../refstore/list-section'
import {LONG_LIVED_PERSIST_AFTER} from '../refstore/list-store'
import {type IndexFile, ListSectionReader} from '../refstore/task-index'
import {IS_LIVE, IS_OPEN, IS_READY, IS_WAITING, type ListedRows, MISSING, RowWriter} from './list-stream-json'

/** A row's place in the order (state rank, priority, creation time, id), as `list` compares them. */
export type StreamKey = [number, number, string, string]

export interface StreamedListing {
  total: number
  byState: Partial<Record<State, number>>
  /**
   * The rows at [from, to) of the listing as UTF-8 JSON, separated by
   * commas: the bytes of JSON.stringify(view + depth) of each, joined.
   * `until` (at least `to`) is where the caller's run of calls ends: the
   * lines of rows up to it may be read now, with those of this batch.
   */
  bytes(from: number, to: number, until?: number): Buffer
  /** A buffer `bytes` returned has been written out: its memory serves a later batch. */
  written(batch: Buffer): void
  /** The key of the row at `at`, of its top-level row, and its depth (for next_cursor). */
  keysAt(at: number): {row: StreamKey; top: StreamKey; depth: number}
  /** Rows written so far by viewing their task the ordinary way, not from their line (the tests watch it). */
  viewed(): number
}

export interface StreamInput {
  file: IndexFile
  /** Tasks changed since the file's commit (null: removed): their rows, and the rows they affect, are viewed through `snap`. */
  changes: ReadonlyMap<string, TaskEntry | null>
  snap: Snapshot
  viewer: TaskViewer
  /** The state rank of open row i of `cols` (filters applied), or notListed; readyOut[0] is set to its readiness. */
  rankOf(cols: OpenRowColumns, i: number, readyOut: boolean[]): number
  notListed: number
  /** States by rank (open ranks first, then done, cancelled). */
  statesByRank: readonly State[]
  /** Which of done and cancelled are wanted. */
  done: boolean
  cancelled: boolean
  priorities: ReadonlySet<number>
  nowMs: number
  config: ListConfig
}

/**
 * Changes since the file beyond which the listing is not streamed (each one's rows are viewed the ordinary way):
 * as many as any process carries before it rewrites the file (persistAfterChanges, up to 317 at 100,000 tasks;
 * a long-lived one up to this), so a listing between two rewrites always streams.
 */
const MAX_CHANGES = LONG_LIVED_PERSIST_AFTER

/** A changed task with a row of its own: its entry, where its id goes among the file's, its line in the file (-1: added). */
interface ChangedEntry {
  id: string
  entry: TaskEntry
  idPos: number
  base: number
}

/**
 * The listing, or null when the file does not read as expected (the caller
 * then lists the ordinary way).
 */
export function streamedListing(input: StreamInput): StreamedListing | null {
  if (input.changes.size > MAX_CHANGES) return null
  const section = ListSectionReader.open(input.file)
  if (!section) return null
  const rows = new ListingRows(section, input)
  if (!rows.takeChanges() || !rows.placeOpenRows() || !rows.placeFinishedRows()) return null
  // Nothing is written from a section that does not match its sum (the ordinary path reads the lines instead).
  if (!section.sound()) return null
  rows.order()
  return new RowWriter(section, rows, input)
}

/**
 * What to list and in what order. Rows are the file's lines (by line
 * number), then one for each changed task that exists (viewed through the
 * snapshot). Each listed row gets its rank (state, filters applied) and
 * facts; `order` then lays the listing out: open rows state by state in
 * table order, then the finished rows, each top-level row followed by its
 * listed sub-items.
 */
class ListingRows implements ListedRows {
  readonly n: number
  /** Status code of each row (changed ones as they are now; MISSING: removed). */
  readonly status: Uint8Array
  readonly rank: Uint8Array
  /** IS_* facts of each listed row. */
  readonly bits: Uint8Array
  /** Rows written by viewing their task through the snapshot (changed, or affected by a change). */
  readonly viaView: Uint8Array
  readonly notListed: number
  /** Rank of `done` (then cancelled): the first rank after the open states. */
  readonly firstRank: number
  /** The current row of each base line that changed (-1: removed). */
  readonly replaced = new Map<number, number>()
  /** The row of each changed id (-1: removed). */
  readonly changedRow = new Map<string, number>()
  readonly changedEntries: ChangedEntry[] = []
  /** Whether a task was added since the file (then a parent the file lacks may exist now). */
  private added = false
  /** The changed rows by their parent's row now. */
  readonly changedKids = new Map<number, number[]>()
  /** The parent row now of each changed row. */
  changedParent = new Int32Array(0)
  /** A listing key of rows placed away from their stored place (changed and redone rows): fractional places between the file's. */
  readonly movedKey = new Map<number, number>()
  /** Listed open rows in the merged order, and listed finished rows in listing order. */
  openSeq = new Int32Array(0)
  openCount = 0
  finSeq = new Int32Array(0)
  finCount = 0
  /** The listing: each position's row and depth; counts. */
  slots = new Int32Array(0)
  depths = new Uint8Array(0)
  readonly byState: Partial<Record<State, number>> = {}
  total = 0

  constructor(readonly section: ListSectionReader, private readonly input: StreamInput) {
    const n = section.lines
    this.n = n
    const rows = n + input.changes.size
    this.status = new Uint8Array(rows)
    this.status.set(section.statuses)
    this.notListed = input.notListed
    this.rank = new Uint8Array(rows).fill(input.notListed)
    this.bits = new Uint8Array(rows)
    this.viaView = new Uint8Array(rows)
    this.firstRank = input.statesByRank.indexOf('done')
  }

  /** The current row of base line l. */
  cur(l: number): number {
    return this.replaced.size > 0 ? (this.replaced.get(l) ?? l) : l
  }

  /** The row of `id`, or -1. */
  rowOfId(id: string): number {
    const r = this.changedRow.get(id)
    if (r !== undefined) return r
    const at = this.section.linePosition(id)
    return at < this.n && this.section.idAt(at) === id ? at : -1
  }

  idOf(r: number): string {
    return r < this.n ? this.section.idAt(r) : this.changedEntries[r - this.n]!.id
  }

  /** The file's line of row r (-1: a task added since). */
  baseOf(r: number): number {
    return r < this.n ? r : this.changedEntries[r - this.n]!.base
  }

  /** Where row r's id goes among the file's ids. */
  idPosOf(r: number): number {
    return r < this.n ? r : this.changedEntries[r - this.n]!.idPos
  }

  /** The parent row of row r (-1: none, or not a row). */
  parentRowOf(r: number): number {
    if (r >= this.n) return this.changedParent[r - this.n]!
    const p = this.section.parentLine(r)
    if (p >= 0) return this.cur(p)
    if (p === -1 || !this.added) return -1
    // A parent the file does not have may have been added since.
    const parent = this.section.parentIdAt(r)
    return parent === null ? -1 : this.rowOfId(parent)
  }

  /**
   * Changes since the file's commit. A changed task gets a row of its own,
   * viewed through the snapshot (which reads through the changes), as do
   * the rows whose view they change: old and new parents (sub-items), the
   * neighbours in id order of a task added or removed (short ids). False
   * when a change cannot be listed this way.
   */
  takeChanges(): boolean {
    const {n, section, status, viaView} = this
    for (const [id, entry] of this.input.changes) {
      const idPos = section.linePosition(id)
      const base = idPos < n && section.idAt(idPos) === id ? idPos : -1
      if (base !== -1) {
        const p = section.parentLine(base)
        if (p >= 0) viaView[p] = 1
        if (!entry) {
          if (base > 0) viaView[base - 1] = 1
          if (base + 1 < n) viaView[base + 1] = 1
          status[base] = MISSING
        }
      } else if (entry) {
        this.added = true
        if (idPos > 0) viaView[idPos - 1] = 1
        if (idPos < n) viaView[idPos] = 1
      }
      if (!entry) {
        this.changedRow.set(id, -1)
        if (base !== -1) this.replaced.set(base, -1)
        continue
      }
      const row = n + this.changedEntries.length
      this.changedEntries.push({id, entry, idPos, base})
      this.changedRow.set(id, row)
      if (base !== -1) this.replaced.set(base, row)
      const meta = entry.meta
      const code = meta ? statusCodeOf(meta.status) : BROKEN
      // Issue 33: a deferred or failed card has no code in the section; a scheduled one a wake time it does not carry.
      if (code < 0 || (meta && code === BROKEN) || meta?.scheduled !== undefined) return false
      status[row] = code
      if (base !== -1) status[base] = code
      viaView[row] = 1
    }
    this.changedParent = new Int32Array(this.changedEntries.length).fill(-1)
    this.changedEntries.forEach((c, k) => {
      const parent = c.entry.meta?.parent
      if (parent === undefined) return
      const p = this.rowOfId(parent)
      this.changedParent[k] = p
      if (p === -1) return
      viaView[p] = 1
      const list = this.changedKids.get(p)
      if (list) list.push(n + k)
      else this.changedKids.set(p, [n + k])
    })
    return true
  }

  /** Rank and facts of open row i of `cols` as row `row`; listed rows are appended to openSeq. */
  private placeOpen(cols: OpenRowColumns, i: number, row: number, readyOut: boolean[]): void {
    const input = this.input
    const r = input.rankOf(cols, i, readyOut)
    if (r === this.notListed) return
    const st = cols.status(i)
    let b = IS_OPEN
    if (readyOut[0]) b |= IS_READY
    if (claimLiveAt(cols.owner(i), st, cols.leaseEnd(i), input.nowMs, input.config)) b |= IS_LIVE
    if ((cols.flags(i) & OPEN_ROW_WAITING) !== 0) b |= IS_WAITING
    this.rank[row] = r
    this.bits[row] = b
    this.openSeq[this.openCount++] = row
  }

  /**
   * The open rows: the file's, less those a change can affect, with those
   * rows as they are now (worked out again by the overlay) merged in by
   * (priority, creation time, id). False when the file or a change does not
   * read as expected.
   */
  placeOpenRows(): boolean {
    const {n, section, viaView} = this
    let redone: readonly OpenRow[] = []
    const dropped = new Set<number>()
    for (const l of this.replaced.keys()) dropped.add(l)
    if (this.input.changes.size > 0) {
      const tables = tablesOf(this.input.snap)
      if (!(tables instanceof OverlayTables)) return false
      const r = tables.redoneOpenRows()
      redone = r.redone
      for (const id of r.affected) {
        const row = this.rowOfId(id)
        if (row === -1) continue
        viaView[row] = 1
        if (row < n) dropped.add(row)
        else if (this.changedEntries[row - n]!.base !== -1) dropped.add(this.changedEntries[row - n]!.base)
      }
    }
    const redoneCols = openRowColumns({rows: redone, finished: 0, broken: []})
    const redoneRows = redone.map((row) => this.rowOfId(row[0]))
    const redoneKeys = redone.map((row) => {
      const [date, time] = createdNumbers(row[3])
      return {priority: row[2], date, time}
    })
    if (redoneRows.includes(-1) || redoneKeys.some((k) => k.date < 0)) return false
    const readyOut = [false]
    this.openSeq = new Int32Array(section.openCount + redone.length)
    let j = 0
    for (const records of section.openWindows()) {
      for (let i = records.first; i < records.length; i++) {
        const l = records.line(i)
        if (l >= n) return false
        if (dropped.size > 0 && dropped.has(l)) continue
        if (j < redone.length) {
          const p = records.priority(i)
          const date = records.createdDate(i)
          const time = records.createdTime(i)
          if (date < 0) return false
          for (; j < redone.length; j++) {
            const k = redoneKeys[j]!
            const before = k.priority - p || k.date - date || k.time - time || this.idPosOf(redoneRows[j]!) - l - 0.5
            if (before >= 0) break
            this.movedKey.set(redoneRows[j]!, i - 1 + (j + 1) / (redone.length + 1))
            this.placeOpen(redoneCols, j, redoneRows[j]!, readyOut)
          }
        }
        this.placeOpen(records, i, l, readyOut)
      }
    }
    for (; j < redone.length; j++) {
      this.movedKey.set(redoneRows[j]!, section.openCount - 1 + (j + 1) / (redone.length + 1))
      this.placeOpen(redoneCols, j, redoneRows[j]!, readyOut)
    }
    return true
  }

  /** The finished rows: the file's in listing order, the changed ones merged in by (status, priority, creation time, id). */
  placeFinishedRows(): boolean {
    const {input, section, status, n} = this
    const wanted = (code: number, priority: number): boolean => ((code === DONE && input.done) || (code === CANCELLED && input.cancelled)) && (input.priorities.size === 0 || input.priorities.has(priority))
    const changedFinished: Array<{row: number; id: string; code: number; priority: number; date: number; time: number}> = []
    for (const c of this.changedEntries) {
      const meta = c.entry.meta
      const row = this.changedRow.get(c.id)!
      if (!meta || (status[row] !== DONE && status[row] !== CANCELLED)) continue
      const [date, time] = createdNumbers(meta.created_at)
      if (date < 0) return false
      changedFinished.push({row, id: c.id, code: status[row]!, priority: meta.priority, date, time})
    }
    // Ties (the same priority and creation time) by id, as everywhere in the listing: not by the order of the changes.
    changedFinished.sort((a, b) => a.code - b.code || a.priority - b.priority || a.date - b.date || a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    this.finSeq = new Int32Array(section.finishedCount + changedFinished.length)
    const place = (row: number, code: number, priority: number): void => {
      if (!wanted(code, priority)) return
      this.rank[row] = code === DONE ? this.firstRank : this.firstRank + 1
      this.finSeq[this.finCount++] = row
    }
    let j = 0
    for (const records of section.finishedWindows()) {
      for (let k = records.first; k < records.length; k++) {
        const l = records.line(k)
        if (l >= n) return false
        if (this.replaced.size > 0 && this.replaced.has(l)) continue
        const code = status[l]!
        const p = records.priority(k)
        if (j < changedFinished.length) {
          const date = records.createdDate(k)
          const time = records.createdTime(k)
          if (date < 0) return false
          for (; j < changedFinished.length; j++) {
            const c = changedFinished[j]!
            const before = c.code - code || c.priority - p || c.date - date || c.time - time || this.idPosOf(c.row) - l - 0.5
            if (before >= 0) break
            this.movedKey.set(c.row, k - 1 + (j + 1) / (changedFinished.length + 1))
            place(c.row, c.code, c.priority)
          }
        }
        place(l, code, p)
      }
    }
    for (; j < changedFinished.length; j++) {
      const c = changedFinished[j]!
      this.movedKey.set(c.row, section.finishedCount - 1 + (j + 1) / (changedFinished.length + 1))
      place(c.row, c.code, c.priority)
    }
    return true
  }

  /** The listed sub-items of row r, in listing order (state, then their order in the tables). */
  private kidsOf(r: number): number[] {
    const {section, n, rank} = this
    const base = this.baseOf(r)
    const out: Array<{row: number; key: number}> = []
    const count = base === -1 ? 0 : section.subItemCount(base)
    for (let k = 0; k < count; k++) {
      const line = section.subItemLine(base, k)
      if (line === NONE || line >= n) continue
      const row = this.cur(line)
      // A changed sub-item is found below, by its parent now.
      if (row === -1 || row >= n || rank[row] === this.notListed) continue
      out.push({row, key: this.movedKey.get(row) ?? section.subItemPlace(base, k)})
    }
    for (const row of this.changedKids.get(r) ?? []) if (rank[row] !== this.notListed) out.push({row, key: this.movedKey.get(row)!})
    out.sort((a, b) => rank[a.row]! - rank[b.row]! || a.key - b.key)
    return out.map((k) => k.row)
  }

  /** Whether row r is listed under its parent (a sub-item's own sub-items are not listed). */
  private nested(r: number): boolean {
    const p = this.parentRowOf(r)
    return p !== -1 && this.rank[p] !== this.notListed
  }

  private put(l: number, depth: number): void {
    this.slots[this.total] = l
    this.depths[this.total++] = depth
    const st = this.input.statesByRank[this.rank[l]!]!
    this.byState[st] = (this.byState[st] ?? 0) + 1
  }

  /** A top-level row followed by its listed sub-items; nothing for a nested row. */
  private top(l: number): void {
    if (this.nested(l)) return
    this.put(l, 0)
    // Only a row with sub-items in the file or among the changes can have any.
    const base = this.baseOf(l)
    if (!this.changedKids.has(l) && (base === -1 || this.section.subItemCount(base) === 0)) return
    for (const c of this.kidsOf(l)) this.put(c, 1)
  }

  /**
   * Lay the listing out: the open rows state by state, each state's in table
   * order (a counting sort by rank: one pass to count, one to place), then
   * the finished rows, each top-level row followed by its sub-items.
   */
  order(): void {
    const {openSeq, openCount, finSeq, finCount, rank, firstRank} = this
    this.slots = new Int32Array(openCount + finCount)
    this.depths = new Uint8Array(openCount + finCount)
    const startOfRank = new Int32Array(firstRank + 1)
    for (let i = 0; i < openCount; i++) if (rank[openSeq[i]!]! < firstRank) startOfRank[rank[openSeq[i]!]! + 1]!++
    for (let r = 0; r < firstRank; r++) startOfRank[r + 1]! += startOfRank[r]!
    const byRank = new Int32Array(startOfRank[firstRank]!)
    for (let i = 0; i < openCount; i++) {
      const r = rank[openSeq[i]!]!
      if (r < firstRank) byRank[startOfRank[r]!++] = openSeq[i]!
    }
    for (let i = 0; i < byRank.length; i++) this.top(byRank[i]!)
    for (let i = 0; i < finCount; i++) this.top(finSeq[i]!)
  }

  /** The listing key of row l (for next_cursor). */
  keyOf(l: number): StreamKey {
    if (l >= this.n) {
      const meta = this.changedEntries[l - this.n]!.entry.meta!
      return [this.rank[l]!, meta.priority, meta.created_at, meta.id]
    }
    const key = this.section.listingKeyAt(l)
    return [this.rank[l]!, key.priority, key.created, key.id]
  }
}
