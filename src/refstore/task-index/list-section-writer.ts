/**
 * The writer of the cache file's list section (format in ../list-section.ts):
 * per line its offset, status, short id length and edges as line numbers,
 * then the open rows and the finished rows in listing order as fixed-width
 * records. A file brought forward carries the old section forward instead of
 * reading every task again: old lines are renumbered, old open records and
 * the old finished order are kept, and only the changed tasks are read.
 * `encodeListSection` runs the steps below in order; each step owns one part.
 */
import {lowerBound as lowerBoundOf} from '../../core/ids'
import {MergedOpenRows} from '../../core/merged-open-rows'
import {type OpenRowColumns, type OpenRows, type Snapshot, openRowColumns} from '../../core/snapshot'
import type {TaskMeta} from '../../core/task'
import {BROKEN, CANCELLED, DONE, FINISHED_RECORD, type ListSectionMeta, NONE, OPEN_RECORD, createdNumbers, lineBytesOf, sectionCrc, sectionLayout, statusCodeOf} from '../list-section'
import {IndexedTask} from './entry'
import {DIRECTORY_EVERY, LITTLE_ENDIAN, SHORTEST_ID, indexIn} from './format'
import type {IndexFile} from './index-file'

/** The line of an id among the new lines, or `none`. */
type LineOf = (id: string, none: number) => number

/** The old file's section as words, and each old line's new number (-1: gone). */
interface Previous {
  m: ListSectionMeta
  layout: ReturnType<typeof sectionLayout>
  sec: Uint8Array
  u32: Uint32Array
  i32: Int32Array
  f64: Float64Array
  remap: Int32Array
}

/** Per line: status code, parent line (-1 none, -2 not a line), and dependencies as lines, flat (depAt[l] to depAt[l + 1]). */
interface LineEdges {
  status: Uint8Array
  parents: Int32Array
  depAt: Int32Array
  deps: number[]
}

/** Per line: its sub-items' lines, flat (kidAt[l] to kidAt[l + 1]), in line order. */
interface SubItems {
  kidAt: Int32Array
  kids: Int32Array
}

/** Per open row: its old record (-1: worked out again) and its line. */
interface OpenPlaces {
  openOld: Int32Array
  openLine: Int32Array
}

/** The finished rows in listing order: line, priority, creation date and time of each of `count`. */
interface FinishedRows {
  line: Int32Array
  priority: Float64Array
  date: Int32Array
  time: Int32Array
  count: number
}

/** A finished row's sort fields (the line's status is read from the status codes). */
type Fin = {l: number; priority: number; date: number; time: number}

/**
 * The list section of the file being written: `ids` its lines, `lengths`
 * each line's byte length (newline included), `open` the open rows. Lines
 * copied from the old file (not `touched`) keep their status, parent and
 * dependencies from the old file's section, only renumbered; the others are
 * read from the tasks; sub-items follow from the parents. The open rows the
 * old file had keep their records, and its finished rows their order, with
 * the changed ones merged in.
 */
export function encodeListSection(
  snap: Snapshot,
  open: OpenRows,
  ids: readonly string[],
  lengths: Int32Array,
  old: IndexFile | undefined,
  changes: ReadonlyMap<string, IndexedTask | null>,
  touched: ReadonlySet<string> | undefined,
): {bytes: Buffer; meta: ListSectionMeta} {
  const n = ids.length
  const lineOr = lineLookup(ids, !old || changes.size > n / 64)
  const oldLineOf = new Int32Array(n).fill(-1)
  const prev = old ? carryForward(old, ids, changes, lineOr, oldLineOf) : undefined
  /** Lines of the tasks changed since the old file. */
  const changed = new Uint8Array(n)
  for (const [id, entry] of changes) if (entry) {
    const l = lineOr(id, -1)
    if (l >= 0) changed[l] = 1
  }
  const touchedLine = new Uint8Array(n)
  if (touched) for (const id of touched) {
    const l = lineOr(id, -1)
    if (l >= 0) touchedLine[l] = 1
  }
  const edges = lineEdges(snap, ids, prev, oldLineOf, touchedLine, lineOr)
  const subs = subItemsOf(edges)
  const cols = openRowColumns(open)
  const places = openRowPlaces(cols, open, old, prev, changed, lineOr)
  // Issue 33: the records carry no wake time (a deferred or scheduled item): such a line gets no status code, so the
  // reader declines the section (ListSectionReader.open) and the list is listed card by card.
  for (let i = 0; i < cols.length; i++) if (cols.wake(i) !== Number.NEGATIVE_INFINITY) edges.status[places.openLine[i]!] = 255
  /** Each line's static position: its place among the open rows, or the open count plus its place among the finished. */
  const position = new Uint32Array(n).fill(NONE)
  for (let i = 0; i < cols.length; i++) position[places.openLine[i]!] = i
  const fins = finishedRows(snap, ids, edges.status, changed, prev, position, cols.length)
  const extras = encodeExtras(edges, subs, position)
  const meta0 = {n, open: cols.length, finished: fins.count, lineBytes: lineBytesOf(n), extrasBytes: extras.length, people: [''], sum: 0}
  const layout = sectionLayout(meta0)
  const ab = new ArrayBuffer(layout.end)
  const bytes = Buffer.from(ab)
  const u32 = new Uint32Array(ab)
  writeLinePart(bytes, u32, lengths, extras.extrasAt, edges.status)
  writeShortIds(bytes, ids, prev, oldLineOf)
  extras.buf.copy(bytes, layout.extras, 0, extras.length)
  writeOpenRecords(ab, layout, cols, places, prev, meta0.people)
  writeFinishedRecords(ab, layout, fins)
  return {bytes, meta: {...meta0, sum: sectionCrc(bytes)}}
}

/**
 * The line of an id: a binary search when only the few lines not carried
 * forward ask, a map when most lines are made afresh (a cold build, a file
 * far behind).
 */
function lineLookup(ids: readonly string[], byMap: boolean): LineOf {
  const n = ids.length
  if (byMap) {
    const lineMap = new Map<string, number>()
    for (let l = 0; l < n; l++) lineMap.set(ids[l]!, l)
    return (id, none) => lineMap.get(id) ?? none
  }
  return (id, none) => {
    const l = lowerBoundOf(ids, id)
    return l < n && ids[l] === id ? l : none
  }
}

/**
 * Read the old file's section and renumber its lines: the new lines are the
 * old ones less the removed tasks, plus the added ones, so each old line
 * moves by the number added before it less the number removed before it (a
 * binary search a change, not a pass over ids). Fills `oldLineOf` (each new
 * line's old number, -1: new).
 */
function carryForward(old: IndexFile, ids: readonly string[], changes: ReadonlyMap<string, IndexedTask | null>, lineOr: LineOf, oldLineOf: Int32Array): Previous {
  const m = old.listMeta
  const layout = sectionLayout(m)
  const ab = new ArrayBuffer(layout.end)
  old.readListSection(Buffer.from(ab), 0, layout.end, 0)
  const oldIds = old.sortedIds()
  const removedAt: number[] = []
  const addedAt: number[] = []
  for (const [id, entry] of changes) {
    const o = lowerBoundOf(oldIds, id)
    const inOld = o < oldIds.length && oldIds[o] === id
    const inNew = entry !== null && lineOr(id, -1) >= 0
    if (inOld && !inNew) removedAt.push(o)
    else if (!inOld && inNew) addedAt.push(o)
  }
  removedAt.sort((x, y) => x - y)
  addedAt.sort((x, y) => x - y)
  const remap = new Int32Array(oldIds.length)
  let shift = 0
  for (let i = 0, r = 0, a = 0; i < oldIds.length; i++) {
    while (a < addedAt.length && addedAt[a]! <= i) {
      shift++
      a++
    }
    if (r < removedAt.length && removedAt[r] === i) {
      remap[i] = -1
      shift--
      r++
      continue
    }
    remap[i] = i + shift
  }
  for (let i = 0; i < oldIds.length; i++) if (remap[i]! >= 0) oldLineOf[remap[i]!] = i
  // Checked where it is cheap: the ends, and every DIRECTORY_EVERY-th line.
  for (let i = 0; i < oldIds.length; i += i + DIRECTORY_EVERY < oldIds.length ? DIRECTORY_EVERY : Math.max(1, oldIds.length - 1 - i)) {
    if (remap[i]! >= 0 && ids[remap[i]!] !== oldIds[i]) throw new Error('the old cache file does not match the index')
  }
  return {m, layout, sec: new Uint8Array(ab), u32: new Uint32Array(ab), i32: new Int32Array(ab), f64: new Float64Array(ab), remap}
}

/**
 * Each line's status, parent and dependencies: an untouched line carried
 * forward renumbers what the old section says (unless a line number was
 * missing there: a dangling parent or dependency may have come since);
 * every other line is read from its task.
 */
function lineEdges(snap: Snapshot, ids: readonly string[], prev: Previous | undefined, oldLineOf: Int32Array, touchedLine: Uint8Array, lineOr: LineOf): LineEdges {
  const n = ids.length
  const status = new Uint8Array(n)
  const parents = new Int32Array(n).fill(-1)
  const depAt = new Int32Array(n + 1)
  const deps: number[] = []
  for (let l = 0; l < n; l++) {
    depAt[l] = deps.length
    let done = false
    const o = oldLineOf[l]!
    if (prev && o >= 0 && touchedLine[l] === 0) {
      const {u32, i32, remap} = prev
      const oldN = prev.m.n
      const st = prev.sec[8 * oldN + 4 + o]!
      const ex = u32[oldN + 1 + o]!
      if (ex === NONE) {
        status[l] = st
        done = true
      } else {
        const at = (prev.layout.extras + ex) >> 2
        const p = i32[at]!
        const dc = u32[at + 1]!
        let whole = p !== -2 && (p < 0 || remap[p]! >= 0)
        for (let k = 0; k < dc && whole; k++) if (u32[at + 3 + k] === NONE) whole = false
        if (whole) {
          status[l] = st
          parents[l] = p < 0 ? p : remap[p]!
          for (let k = 0; k < dc; k++) deps.push(remap[u32[at + 3 + k]!]!)
          done = true
        }
      }
    }
    if (!done) {
      const id = ids[l]!
      const t = snap.tasks.get(id) as IndexedTask
      const code = statusCodeOf(t.statusText)
      status[l] = code < 0 ? 255 : code
      parents[l] = t.parentText ? lineOr(t.parentText, -2) : -1
      for (const d of t.deps) deps.push(lineOr(d, -1))
    }
    depAt[l + 1] = deps.length
  }
  return {status, parents, depAt, deps}
}

/** Sub-items: the readable lines naming each line as their parent, in id (line) order, as `children` lists them. */
function subItemsOf({status, parents}: LineEdges): SubItems {
  const n = status.length
  const kidAt = new Int32Array(n + 1)
  for (let l = 0; l < n; l++) if (parents[l]! >= 0 && status[l] !== BROKEN) kidAt[parents[l]! + 1]!++
  for (let l = 0; l < n; l++) kidAt[l + 1]! += kidAt[l]!
  const kids = new Int32Array(kidAt[n]!)
  const kidFill = kidAt.slice(0, n)
  for (let l = 0; l < n; l++) if (parents[l]! >= 0 && status[l] !== BROKEN) kids[kidFill[parents[l]!]!++] = l
  return {kidAt, kids}
}

/**
 * Each open row's line, and its old record when the old file had the row
 * and its task did not change since (the record is then copied, renumbered).
 */
function openRowPlaces(cols: OpenRowColumns, open: OpenRows, old: IndexFile | undefined, prev: Previous | undefined, changed: Uint8Array, lineOr: LineOf): OpenPlaces {
  const merged = open instanceof MergedOpenRows ? open : undefined
  const sameRows = prev !== undefined && old !== undefined && open === old.openRows()
  const openOld = new Int32Array(cols.length).fill(-1)
  const openLine = new Int32Array(cols.length)
  for (let i = 0; i < cols.length; i++) {
    const b = !prev ? -1 : sameRows ? i : merged ? merged.baseRow(i) : -1
    let l = -1
    if (b >= 0 && b < prev!.m.open) {
      l = prev!.remap[prev!.u32[(prev!.layout.open + b * OPEN_RECORD) >> 2]!]!
      if (l >= 0 && changed[l] === 0) openOld[i] = b
      else l = -1
    }
    if (l < 0) {
      const id = cols.id(i)
      l = lineOr(id, -1)
      if (l < 0) throw new Error(`open row ${id} has no line`)
    }
    openLine[i] = l
  }
  return {openOld, openLine}
}

/**
 * The finished rows in listing order (done before cancelled, priority,
 * creation time, line): the old file's, renumbered, without the changed
 * ones, which are sorted and merged in. Sets each one's static position in
 * `position` (after the `openCount` open rows).
 */
function finishedRows(snap: Snapshot, ids: readonly string[], status: Uint8Array, changed: Uint8Array, prev: Previous | undefined, position: Uint32Array, openCount: number): FinishedRows {
  const n = ids.length
  const createdOf = (l: number): string => (snap.tasks.get(ids[l]!)!.meta as TaskMeta).created_at
  const compare = (al: number, ap: number, ad: number, at: number, b: Fin): number => {
    const d = status[al]! - status[b.l]! || ap - b.priority
    if (d !== 0) return d
    if (ad >= 0 && b.date >= 0) {
      if (ad !== b.date) return ad - b.date
      if (at !== b.time) return at - b.time
    } else {
      const ca = createdOf(al)
      const cb = createdOf(b.l)
      if (ca !== cb) return ca < cb ? -1 : 1
    }
    return al - b.l
  }
  const finOf = (l: number): Fin => {
    const t = snap.tasks.get(ids[l]!)!
    const known = t instanceof IndexedTask ? t.finishedOrder : undefined
    if (known) return {l, ...known}
    const meta = t.meta as TaskMeta
    const [date, time] = createdNumbers(meta.created_at)
    return {l, priority: meta.priority, date, time}
  }
  const isFinished = (l: number) => status[l] === DONE || status[l] === CANCELLED
  let added: Fin[] = []
  if (prev) {
    for (let l = 0; l < n; l++) if (changed[l] === 1 && isFinished(l)) added.push(finOf(l))
  } else for (let l = 0; l < n; l++) if (isFinished(l)) added.push(finOf(l))
  if (!sortFinishedByNumber(added, status)) added.sort((a, b) => compare(a.l, a.priority, a.date, a.time, b))
  const max = (prev ? prev.m.finished : 0) + added.length
  const out: FinishedRows = {line: new Int32Array(max), priority: new Float64Array(max), date: new Int32Array(max), time: new Int32Array(max), count: 0}
  const put = (l: number, priority: number, date: number, time: number): void => {
    position[l] = openCount + out.count
    out.line[out.count] = l
    out.priority[out.count] = priority
    out.date[out.count] = date
    out.time[out.count++] = time
  }
  let j = 0
  if (prev) {
    const {u32, i32, f64, remap} = prev
    for (let k = 0; k < prev.m.finished; k++) {
      const r = (prev.layout.finished + k * FINISHED_RECORD) >> 2
      const l = remap[u32[r]!]!
      if (l < 0 || changed[l] === 1 || !isFinished(l)) continue
      const priority = f64[(r >> 1) + 2]!
      const date = i32[r + 1]!
      const time = i32[r + 2]!
      while (j < added.length && compare(l, priority, date, time, added[j]!) > 0) {
        const f = added[j++]!
        put(f.l, f.priority, f.date, f.time)
      }
      put(l, priority, date, time)
    }
  }
  for (; j < added.length; j++) put(added[j]!.l, added[j]!.priority, added[j]!.date, added[j]!.time)
  added = []
  return out
}

/**
 * Sort finished rows by (status, priority, creation time, line) as one
 * 64-bit number each (the engine's sort, no callback a comparison): status
 * and priority, the creation date less the earliest, the time of day, the
 * line. False (nothing done) when a priority is not one digit, a creation
 * time is not written the usual way, or the numbers do not fit.
 */
function sortFinishedByNumber(rows: Fin[], status: Uint8Array): boolean {
  const count = rows.length
  if (count < 2 || !LITTLE_ENDIAN) return count < 2
  let minDate = Infinity
  let maxDate = -Infinity
  let maxLine = 0
  for (const r of rows) {
    if (!Number.isInteger(r.priority) || r.priority < 0 || r.priority > 9 || r.date < 0) return false
    if (r.date < minDate) minDate = r.date
    if (r.date > maxDate) maxDate = r.date
    if (r.l > maxLine) maxLine = r.l
  }
  const lineBits = Math.max(1, Math.ceil(Math.log2(maxLine + 1)))
  const dateBits = Math.max(1, Math.ceil(Math.log2(maxDate - minDate + 1)))
  if (5 + dateBits + 30 + lineBits > 64 || 5 + dateBits + 30 > 53 || lineBits > 31) return false
  const keys = new BigUint64Array(count)
  const halves = new Uint32Array(keys.buffer)
  const lowRoom = 2 ** (32 - lineBits)
  const lineRoom = 2 ** lineBits
  for (let i = 0; i < count; i++) {
    const r = rows[i]!
    // Everything above the line number: below 2^(35 + dateBits) <= 2^53, exact as a double.
    const high = (((status[r.l] === DONE ? 0 : 1) * 10 + r.priority) * 2 ** dateBits + (r.date - minDate)) * 2 ** 30 + r.time
    halves[2 * i] = (high % lowRoom) * lineRoom + r.l
    halves[2 * i + 1] = Math.floor(high / lowRoom)
  }
  keys.sort()
  const at = new Int32Array(maxLine + 1)
  rows.forEach((r, i) => (at[r.l] = i))
  const before = rows.slice()
  const mask = lineRoom - 1
  for (let i = 0; i < count; i++) rows[i] = before[at[halves[2 * i]! & mask]!]!
  return true
}

/**
 * The extras part: for each line with a parent, dependencies or sub-items,
 * its parent line, the two counts, the dependency lines and each sub-item's
 * line with its static position; `extrasAt` says where each line's start
 * (NONE: it has none).
 */
function encodeExtras({parents, depAt, deps}: LineEdges, {kidAt, kids}: SubItems, position: Uint32Array): {extrasAt: Uint32Array; buf: Buffer; length: number} {
  const n = parents.length
  let words = 0
  for (let l = 0; l < n; l++) if (parents[l] !== -1 || depAt[l + 1]! > depAt[l]! || kidAt[l + 1]! > kidAt[l]!) words += 3
  const ex = new Uint32Array(words + deps.length + 2 * kids.length)
  const extrasAt = new Uint32Array(n).fill(NONE)
  let e = 0
  for (let l = 0; l < n; l++) {
    const dc = depAt[l + 1]! - depAt[l]!
    const kc = kidAt[l + 1]! - kidAt[l]!
    if (parents[l] === -1 && dc === 0 && kc === 0) continue
    extrasAt[l] = 4 * e
    ex[e++] = parents[l]! >>> 0
    ex[e++] = dc
    ex[e++] = kc
    for (let k = depAt[l]!; k < depAt[l + 1]!; k++) ex[e++] = deps[k]! < 0 ? NONE : deps[k]!
    for (let k = kidAt[l]!; k < kidAt[l + 1]!; k++) {
      const c = kids[k]!
      ex[e++] = c < 0 ? NONE : c
      ex[e++] = c < 0 ? NONE : position[c]!
    }
  }
  return {extrasAt, buf: Buffer.from(ex.buffer, ex.byteOffset, 4 * e), length: 4 * e}
}

/** The line part: each line's offset (and the body's length after the last), where its extras are, its status. */
function writeLinePart(bytes: Buffer, u32: Uint32Array, lengths: Int32Array, extrasAt: Uint32Array, status: Uint8Array): void {
  const n = status.length
  let offset = 0
  for (let l = 0; l < n; l++) {
    u32[l] = offset
    offset += lengths[l]!
  }
  u32[n] = offset
  u32.set(extrasAt, n + 1)
  bytes.set(status, 8 * n + 4)
}

/**
 * Short id lengths: one more than what the id shares with either neighbour
 * (shortIdBetween), at least the shortest. A line whose neighbours and
 * itself are as they were in the old file keeps its old length.
 */
function writeShortIds(bytes: Buffer, ids: readonly string[], prev: Previous | undefined, oldLineOf: Int32Array): void {
  const n = ids.length
  let before = 0
  for (let l = 0; l < n; l++) {
    const a = ids[l]!
    const o = oldLineOf[l]!
    if (prev && o >= 0 && (l === 0 ? o === 0 : oldLineOf[l - 1] === o - 1) && (l + 1 === n ? o + 1 === prev.m.n : oldLineOf[l + 1] === o + 1)) {
      bytes[9 * n + 4 + l] = prev.sec[9 * prev.m.n + 4 + o]!
      before = -1
      continue
    }
    if (before === -1 && l > 0) {
      const p = ids[l - 1]!
      const m = Math.min(a.length, p.length)
      before = 0
      while (before < m && a.charCodeAt(before) === p.charCodeAt(before)) before++
    }
    let after = 0
    if (l + 1 < n) {
      const b = ids[l + 1]!
      const m = Math.min(a.length, b.length)
      while (after < m && a.charCodeAt(after) === b.charCodeAt(after)) after++
    }
    const length = Math.min(a.length, Math.max(SHORTEST_ID, l > 0 ? before + 1 : 0, l + 1 < n ? after + 1 : 0))
    bytes[9 * n + 4 + l] = length > 255 ? 0 : length
    before = after
  }
}

/**
 * The open records in the open rows' order: an old record copied with its
 * line and people renumbered, any other made from the row's columns.
 * People are numbered in the order they first appear here (so a file
 * brought forward equals a cold build's), into `people`.
 */
function writeOpenRecords(ab: ArrayBuffer, layout: ReturnType<typeof sectionLayout>, cols: OpenRowColumns, {openOld, openLine}: OpenPlaces, prev: Previous | undefined, people: string[]): void {
  const bytes = Buffer.from(ab)
  const u32 = new Uint32Array(ab)
  const i32 = new Int32Array(ab)
  const f64 = new Float64Array(ab)
  const personOf = new Map<string, number>([['', 0]])
  const person = (who: string): number => indexIn(people, personOf, who)
  const oldPerson = new Int32Array(prev ? prev.m.people.length : 0).fill(-1)
  const personFromOld = (k: number): number => {
    if (oldPerson[k] === -1) oldPerson[k] = person(prev!.m.people[k] ?? '')
    return oldPerson[k]!
  }
  for (let i = 0; i < cols.length; i++) {
    const at = layout.open + i * OPEN_RECORD
    const w = at >> 2
    const b = openOld[i]!
    if (b >= 0) {
      const src = prev!.layout.open + b * OPEN_RECORD
      bytes.set(prev!.sec.subarray(src, src + OPEN_RECORD), at)
      u32[w] = openLine[i]!
      u32[w + 4] = personFromOld(u32[w + 4]!)
      u32[w + 5] = personFromOld(u32[w + 5]!)
      continue
    }
    const [date, time] = createdNumbers(cols.created(i))
    u32[w] = openLine[i]!
    bytes[at + 4] = statusCodeOf(cols.status(i))
    bytes[at + 5] = cols.flags(i)
    bytes[at + 6] = 0
    bytes[at + 7] = 0
    f64[(w >> 1) + 1] = cols.priority(i)
    u32[w + 4] = person(cols.owner(i))
    u32[w + 5] = person(cols.assignee(i))
    f64[(w >> 1) + 3] = cols.leaseEnd(i)
    i32[w + 8] = date
    i32[w + 9] = time
  }
}

/** The finished records, in listing order. */
function writeFinishedRecords(ab: ArrayBuffer, layout: ReturnType<typeof sectionLayout>, fins: FinishedRows): void {
  const u32 = new Uint32Array(ab)
  const i32 = new Int32Array(ab)
  const f64 = new Float64Array(ab)
  for (let k = 0; k < fins.count; k++) {
    const r = (layout.finished + k * FINISHED_RECORD) >> 2
    u32[r] = fins.line[k]!
    i32[r + 1] = fins.date[k]!
    i32[r + 2] = fins.time[k]!
    f64[(r >> 1) + 2] = fins.priority[k]!
  }
}
