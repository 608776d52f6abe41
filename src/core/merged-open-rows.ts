/**
 * Open rows of an overlay read through to its base's columns: the base's
 * rows that no change can affect, in their order, with the few rows worked
 * out again put in place. What is built is a typed array of positions (and
 * one of parent positions), never a tuple per row: at 100,000 tasks the base
 * holds ~50,000 open rows, and every command that reads the cache file with
 * its delta goes through here. The rows as tuples are made only if a caller
 * asks for `rows` (writing the cache file). Pure.
 */
import {cmp, partitionPoint} from './order'
import {type OpenRow, type OpenRowColumns, type OpenRows, openRowColumns} from './snapshot'

/** How a base row compares with `row` in the open rows' order (priority, creation time, id). */
function compareBaseRow(cols: OpenRowColumns, i: number, row: OpenRow): number {
  return cols.priority(i) - row[2] || cmp(cols.created(i), row[3]) || cmp(cols.id(i), row[0])
}

/**
 * The position of the base row of `id`, an item whose base entry is open
 * with `priority` and `created`: a binary search in the base's order; a
 * pass over the ids should the row not be where its fields put it. -1: no
 * such row.
 */
export function baseOpenRowOf(cols: OpenRowColumns, id: string, priority: number, created: string): number {
  const probe: OpenRow = [id, '', priority, created, '', '', '', '', 0, 0, Number.NEGATIVE_INFINITY]
  const at = partitionPoint(0, cols.length, (i) => compareBaseRow(cols, i, probe) < 0)
  if (at < cols.length && cols.id(at) === id) return at
  for (let i = 0; i < cols.length; i++) if (cols.id(i) === id) return i
  return -1
}

export class MergedOpenRows implements OpenRows, OpenRowColumns {
  readonly length: number
  /** Per merged position: the base row (>= 0) or ~ the index in `redone`. */
  private readonly at: Int32Array
  /** Per merged position: the parent's merged position, -1 when none or not open. */
  private readonly parents: Int32Array
  private tuples: OpenRow[] | undefined
  /** The redone rows read field by field, as any tuples are (snapshot.ts RowColumns). */
  private readonly redoneCols: OpenRowColumns

  /**
   * @param base the base's open rows, `cols` their columns
   * @param dropped positions of the base rows that were worked out again (affected by a change)
   * @param redone the affected items' rows now, sorted by compareOpenRows
   * @param baseRowOf position of an item's base row (-1: it had none), asked only about parents of redone rows
   */
  constructor(
    private readonly base: OpenRows,
    private readonly cols: OpenRowColumns,
    dropped: Iterable<number>,
    private readonly redone: readonly OpenRow[],
    baseRowOf: (id: string) => number,
    readonly finished: number,
    readonly broken: readonly string[],
  ) {
    this.redoneCols = openRowColumns({rows: redone, finished: 0, broken: []})
    const n = cols.length
    const k = redone.length
    const drop = new Uint8Array(n)
    let nDropped = 0
    for (const i of dropped) {
      if (drop[i] === 0) nDropped++
      drop[i] = 1
    }
    // Where each redone row goes among the base rows: the first base row after it (the dropped ones in the way do not matter).
    const insertAt = new Int32Array(k)
    let lo = 0
    for (let j = 0; j < k; j++) {
      const row = redone[j]!
      lo = partitionPoint(lo, n, (i) => compareBaseRow(cols, i, row) < 0)
      insertAt[j] = lo
    }
    this.length = n - nDropped + k
    const at = new Int32Array(this.length)
    const mergedOfBase = new Int32Array(n).fill(-1)
    const mergedOfRedone = new Int32Array(k)
    let m = 0
    let j = 0
    for (let i = 0; i < n; i++) {
      while (j < k && insertAt[j] === i) {
        mergedOfRedone[j] = m
        at[m++] = ~j++
      }
      if (drop[i] === 0) {
        mergedOfBase[i] = m
        at[m++] = i
      }
    }
    while (j < k) {
      mergedOfRedone[j] = m
      at[m++] = ~j++
    }
    this.at = at
    // A dropped base row's item, when still open, is now at its redone row's position (a kept row's parent may be one).
    const redoneOf = new Map<string, number>()
    redone.forEach((r, jj) => redoneOf.set(r[0], jj))
    for (let i = 0; i < n; i++) {
      if (drop[i] === 0) continue
      const jj = redoneOf.get(cols.id(i))
      if (jj !== undefined) mergedOfBase[i] = mergedOfRedone[jj]!
    }
    const parents = new Int32Array(this.length)
    for (let p = 0; p < this.length; p++) {
      const a = at[p]!
      if (a >= 0) {
        const b = cols.parentRow(a)
        parents[p] = b < 0 ? -1 : mergedOfBase[b]!
        continue
      }
      const parent = redone[~a]![4]
      if (parent === '') {
        parents[p] = -1
        continue
      }
      const jj = redoneOf.get(parent)
      if (jj !== undefined) parents[p] = mergedOfRedone[jj]!
      else {
        const b = baseRowOf(parent)
        parents[p] = b < 0 ? -1 : mergedOfBase[b]!
      }
    }
    this.parents = parents
  }

  get columns(): OpenRowColumns {
    return this
  }

  /** The base row at merged position i, or -1 for a row worked out again (writing the cache file renumbers the base's). */
  baseRow(i: number): number {
    const a = this.at[i]!
    return a >= 0 ? a : -1
  }

  get rows(): readonly OpenRow[] {
    if (!this.tuples) {
      const baseRows = this.length > this.redone.length ? this.base.rows : []
      const out: OpenRow[] = new Array(this.length)
      for (let p = 0; p < this.length; p++) {
        const a = this.at[p]!
        out[p] = a >= 0 ? baseRows[a]! : this.redone[~a]!
      }
      this.tuples = out
    }
    return this.tuples
  }

  id(i: number): string {
    const a = this.at[i]!
    return a >= 0 ? this.cols.id(a) : this.redoneCols.id(~a)
  }

  status(i: number): string {
    const a = this.at[i]!
    return a >= 0 ? this.cols.status(a) : this.redoneCols.status(~a)
  }

  priority(i: number): number {
    const a = this.at[i]!
    return a >= 0 ? this.cols.priority(a) : this.redoneCols.priority(~a)
  }

  created(i: number): string {
    const a = this.at[i]!
    return a >= 0 ? this.cols.created(a) : this.redoneCols.created(~a)
  }

  owner(i: number): string {
    const a = this.at[i]!
    return a >= 0 ? this.cols.owner(a) : this.redoneCols.owner(~a)
  }

  assignee(i: number): string {
    const a = this.at[i]!
    return a >= 0 ? this.cols.assignee(a) : this.redoneCols.assignee(~a)
  }

  leaseEnd(i: number): number {
    const a = this.at[i]!
    return a >= 0 ? this.cols.leaseEnd(a) : this.redoneCols.leaseEnd(~a)
  }

  flags(i: number): number {
    const a = this.at[i]!
    return a >= 0 ? this.cols.flags(a) : this.redoneCols.flags(~a)
  }

  parentRow(i: number): number {
    return this.parents[i]!
  }

  parent(i: number): string {
    const a = this.at[i]!
    return a >= 0 ? this.cols.parent(a) : this.redoneCols.parent(~a)
  }

  leaseText(i: number): string {
    const a = this.at[i]!
    return a >= 0 ? this.cols.leaseText(a) : this.redoneCols.leaseText(~a)
  }

  titleHash(i: number): number {
    const a = this.at[i]!
    return a >= 0 ? this.cols.titleHash(a) : this.redoneCols.titleHash(~a)
  }

  wake(i: number): number {
    const a = this.at[i]!
    return a >= 0 ? this.cols.wake(a) : this.redoneCols.wake(~a)
  }
}
