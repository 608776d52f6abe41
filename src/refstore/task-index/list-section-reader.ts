/**
 * The cache file's list section and task lines read back for the streamed
 * listing (src/app/list-stream.ts), which asks for rows and never parses
 * bytes itself. `ListSectionReader` owns the byte layout (../list-section.ts):
 * the line part and extras read whole, the open and finished records a
 * window at a time (the open ones as `OpenRowColumns`), every byte checked
 * against the section's CRC-32; and the task lines (TAB-separated fields,
 * then the frontmatter as a JSON array in TASK_KEYS order) read alone or a
 * batch at a time in file order and split into fields and values in place.
 * Nothing here depends on the clock or on who asks.
 */
import type {OpenRowColumns} from '../../core/snapshot'
import {TASK_KEYS} from '../../core/task'
import {CANCELLED, FINISHED_RECORD, NONE, OPEN_RECORD, STATUS_TEXT, type ListSectionMeta, sectionCrc, sectionLayout} from '../list-section'
import {LITTLE_ENDIAN} from './format'
import type {IndexFile} from './index-file'

const TAB = 0x09
const QUOTE = 0x22
const COMMA = 0x2c
const BACKSLASH = 0x5c
/** Fields of a task line before its frontmatter: id, status, shard, dir, parent, deps, sub-items, dependents. */
export const LINE_FIELDS = 8
/** Field numbers of a task line. */
export const F_ID = 0
export const F_PARENT = 4
export const F_DEPS = 5
export const F_SUBITEMS = 6
/** Places of priority and created_at in the frontmatter array (TASK_KEYS order). */
const PRIORITY_AT = TASK_KEYS.indexOf('priority')
const CREATED_AT_AT = TASK_KEYS.indexOf('created_at')
/** Keys after the revision (issue 33's custom fields, appended): finishedKey reads them as null or declines. */
const AFTER_REVISION = TASK_KEYS.length - 1 - TASK_KEYS.indexOf('revision')
const NULL_TAIL = Buffer.from(',null')
/** Open or finished records read from the section at once. */
const WINDOW_ROWS = 1024
/** Lines read together when they lie this close in the file (one read instead of two). */
const READ_GAP = 8 * 1024
/** Largest single read of neighbouring lines. */
const READ_MAX = 1 << 20

/** A DataView over the bytes of `b`. */
export function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength)
}

/** Just past the JSON string starting at `q` (a quote), or -1 when it does not end before `end`. */
function stringEnd(buf: Buffer, q: number, end: number): number {
  let j = q
  for (;;) {
    j = buf.indexOf(QUOTE, j + 1)
    if (j === -1 || j >= end) return -1
    let b = j - 1
    while (buf[b] === BACKSLASH) b--
    if ((j - 1 - b) % 2 === 0) return j + 1
  }
}

/**
 * The opening quote of the JSON string whose closing quote is at `close`:
 * inside a string every quote is escaped (preceded by a backslash), and the
 * opening one follows a comma. -1 when none is found after `floor`.
 */
function stringStart(buf: Buffer, close: number, floor: number): number {
  let j = close
  for (;;) {
    j = buf.lastIndexOf(QUOTE, j - 1)
    if (j <= floor) return -1
    if (buf[j - 1] !== BACKSLASH) return j
  }
}

/**
 * Priority and creation time of a finished item from the bytes of its
 * frontmatter array [from, to) (TASK_KEYS order: id, title, status,
 * priority, …, created_at, created_by, updated_at, updated_by, revision,
 * fields); null when the array does not have that usual shape (custom
 * fields or an `extra` object at the end, a value missing), and the
 * caller decodes it.
 */
export function finishedKey(buf: Buffer, from: number, to: number): {priority: number; created: string} | null {
  if (buf[from] !== 0x5b || buf[to - 1] !== 0x5d) return null
  let p = from + 1
  for (let k = 0; k < 3; k++) {
    if (buf[p] !== QUOTE) return null
    p = stringEnd(buf, p, to)
    if (p === -1 || buf[p] !== COMMA) return null
    p++
  }
  const pc = buf.indexOf(COMMA, p)
  if (pc === -1 || pc >= to) return null
  const priority = Number(buf.toString('latin1', p, pc))
  // From the end: the keys after the revision, each null (a card with custom fields is decoded instead),
  let end = to - 1
  for (let k = 0; k < AFTER_REVISION; k++) {
    if (end - NULL_TAIL.length <= pc || buf.compare(NULL_TAIL, 0, NULL_TAIL.length, end - NULL_TAIL.length, end) !== 0) return null
    end -= NULL_TAIL.length
  }
  // then the revision (digits), then four strings back to created_at.
  const c = buf.lastIndexOf(COMMA, end - 1)
  if (c <= pc || c + 1 >= end) return null
  for (let i = c + 1; i < end; i++) if (buf[i]! < 0x30 || buf[i]! > 0x39) return null
  let close = c - 1
  let open = -1
  for (let k = 0; k < 4; k++) {
    if (buf[close] !== QUOTE) return null
    open = stringStart(buf, close, pc)
    if (open === -1 || buf[open - 1] !== COMMA) return null
    if (k < 3) close = open - 2
  }
  const text = buf.toString('utf8', open, close + 1)
  const created = text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1)
  return Number.isFinite(priority) ? {priority, created} : null
}

/**
 * Start and end of each value of the JSON array at buf[from, end) (a
 * frontmatter line's array) into `out`; returns how many, -1 when it is not
 * an array. One pass over the bytes: strings (with their escapes), nested
 * arrays and objects are stepped over. `view` (a DataView over `buf`, made
 * when not given) lets a string's text be stepped over four bytes at a time
 * while none of them is a quote or a backslash: most of a line is text.
 */
export function splitArray(buf: Buffer, from: number, end: number, out: Int32Array, view: DataView = viewOf(buf)): number {
  const last = end - 1
  if (buf[from] !== 0x5b || buf[last] !== 0x5d) return -1
  let i = from + 1
  let k = 0
  let depth = 0
  let s = i
  for (; i < last; i++) {
    const c = buf[i]!
    if (c === QUOTE) {
      // To the closing quote: words with neither a quote nor a backslash at once (a word holding a zero byte
      // after XOR with either: (x - 0x01010101) & ~x & 0x80808080 is nonzero exactly then), the rest a byte at a time.
      i++
      for (;;) {
        for (; i + 4 <= last; i += 4) {
          const x = view.getUint32(i, true)
          const q = x ^ 0x22222222
          const b = x ^ 0x5c5c5c5c
          if ((((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & 0x80808080) break
        }
        if (i >= last) return -1
        const d = buf[i]!
        if (d === QUOTE) break
        i += d === BACKSLASH ? 2 : 1
      }
    } else if (c === 0x5b || c === 0x7b) depth++
    else if (c === 0x5d || c === 0x7d) depth--
    else if (c === COMMA && depth === 0) {
      if (k + 2 > out.length) return k >> 1
      out[k++] = s
      out[k++] = i
      s = i + 1
    }
  }
  if (depth !== 0) return -1
  if (i > s && k + 2 <= out.length) {
    out[k++] = s
    out[k++] = i
  }
  return k >> 1
}

/**
 * The first eight tabs of the line buf[ls, le) into `out`; returns how many
 * were found. Four bytes a step through `view` (a DataView over `buf`, made
 * when not given) while none is a tab, the rest a byte at a time: a native
 * search costs more per call than it saves on these short fields.
 */
export function findTabs(buf: Uint8Array, ls: number, le: number, out: Int32Array, view: DataView = viewOf(buf)): number {
  let k = 0
  let q = ls
  while (q < le) {
    for (; q + 4 <= le; q += 4) {
      const t = view.getUint32(q, true) ^ 0x09090909
      if (((t - 0x01010101) & ~t & 0x80808080) !== 0) break
    }
    const end = Math.min(q + 4, le)
    for (; q < end; q++) {
      if (buf[q] !== TAB) continue
      out[k++] = q
      if (k === LINE_FIELDS) return k
    }
  }
  return k
}

/**
 * A window of the section's open records as the columns `openRowStateAt`
 * reads (status, flags, priority, owner, assignee, lease end), plus each
 * record's line and creation time as numbers: nothing made per row. Row
 * numbers are the records' places in the section, [first, length).
 */
export class OpenRecords implements OpenRowColumns {
  length = 0
  first = 0
  buf: Buffer = Buffer.alloc(0)
  constructor(private readonly people: readonly string[]) {}
  private at(i: number): number {
    return (i - this.first) * OPEN_RECORD
  }
  /** The task line of record i. */
  line(i: number): number {
    return this.buf.readUInt32LE(this.at(i))
  }
  /** Creation date of record i as YYYYMMDD (-1: not written the usual way); see createdNumbers. */
  createdDate(i: number): number {
    return this.buf.readInt32LE(this.at(i) + 32)
  }
  /** Creation time of day of record i as HHMMSSsss. */
  createdTime(i: number): number {
    return this.buf.readInt32LE(this.at(i) + 36)
  }
  id(): string {
    return ''
  }
  status(i: number): string {
    return STATUS_TEXT[this.buf[this.at(i) + 4]!] ?? ''
  }
  priority(i: number): number {
    return this.buf.readDoubleLE(this.at(i) + 8)
  }
  created(): string {
    return ''
  }
  owner(i: number): string {
    return this.people[this.buf.readUInt32LE(this.at(i) + 16)] ?? ''
  }
  assignee(i: number): string {
    return this.people[this.buf.readUInt32LE(this.at(i) + 20)] ?? ''
  }
  leaseEnd(i: number): number {
    return this.buf.readDoubleLE(this.at(i) + 24)
  }
  flags(i: number): number {
    return this.buf[this.at(i) + 5]!
  }
  parentRow(): number {
    return -1
  }
  parent(): string {
    return ''
  }
  leaseText(): string {
    return ''
  }
  /** Not in the section's records (like the id and the creation text): a listing never asks; the open rows line has it. */
  titleHash(): number {
    return 0
  }
  /** Issue 33: not in the records either; a section is read only when no open row has one (`ListSectionReader.open`). */
  wake(): number {
    return Number.NEGATIVE_INFINITY
  }
}

/** A window of the section's finished records, [first, length), in listing order. */
export class FinishedRecords {
  length = 0
  first = 0
  buf: Buffer = Buffer.alloc(0)
  private at(k: number): number {
    return (k - this.first) * FINISHED_RECORD
  }
  line(k: number): number {
    return this.buf.readUInt32LE(this.at(k))
  }
  createdDate(k: number): number {
    return this.buf.readInt32LE(this.at(k) + 4)
  }
  createdTime(k: number): number {
    return this.buf.readInt32LE(this.at(k) + 8)
  }
  priority(k: number): number {
    return this.buf.readDoubleLE(this.at(k) + 16)
  }
}

/** The lines of a batch of rows, read into one buffer: row k's line starts at `start[k]`. */
export interface LineBatch {
  buf: Buffer
  view: DataView
  start: Float64Array
}

/**
 * The list section of a cache file and its task lines, read for a listing.
 * Line numbers are task lines in id order; `lines` of them.
 */
export class ListSectionReader {
  readonly lines: number
  readonly openCount: number
  readonly finishedCount: number
  /** Status code of each line (list-section.ts). */
  readonly statuses: Uint8Array
  private readonly offsets: Uint32Array
  private readonly extrasAt: Uint32Array
  /** Length of each line's short id (0: over 255). */
  readonly shortIdLengths: Uint8Array
  private readonly extras: Buffer
  private readonly layout: ReturnType<typeof sectionLayout>
  private readonly linesStart: number
  /** CRC-32 of the bytes read so far (the line part first, then the records in order). */
  private sum: number
  private scratch = Buffer.allocUnsafe(READ_MAX)
  private readonly batch: LineBatch
  private readonly fieldEnds = new Int32Array(LINE_FIELDS)

  private constructor(private readonly file: IndexFile, private readonly m: ListSectionMeta) {
    const n = m.n
    this.lines = n
    this.openCount = m.open
    this.finishedCount = m.finished
    this.layout = sectionLayout(m)
    // The line part and the extras, read whole (~10 bytes a task and the graph's edges).
    const headBuf = new ArrayBuffer(this.layout.open)
    const head = Buffer.from(headBuf)
    file.readListSection(head, 0, this.layout.open, 0)
    this.sum = sectionCrc(head, 0)
    this.offsets = new Uint32Array(headBuf, 0, n + 1)
    this.extrasAt = new Uint32Array(headBuf, 4 * (n + 1), n)
    this.statuses = new Uint8Array(headBuf, 8 * n + 4, n)
    this.shortIdLengths = new Uint8Array(headBuf, 9 * n + 4, n)
    this.extras = head.subarray(this.layout.extras, this.layout.extras + m.extrasBytes)
    this.linesStart = file.linesStart
    const buf = Buffer.allocUnsafe(1 << 20)
    this.batch = {buf, view: viewOf(buf), start: new Float64Array(0)}
  }

  /** The section of `file`, or null when it cannot be read here (its counts do not match, a big-endian machine, an unknown status). */
  static open(file: IndexFile): ListSectionReader | null {
    const m = file.listMeta
    if (m.n !== file.size || !LITTLE_ENDIAN) return null
    const reader = new ListSectionReader(file, m)
    // Issue 33: a deferred or failed card, or an open one with a wake time, has no code (the writer marks it 255).
    for (let l = 0; l < reader.lines; l++) if (reader.statuses[l]! > CANCELLED) return null
    return reader
  }

  /** Line l's parent line: -1 none, -2 a parent that is not a line. */
  parentLine(l: number): number {
    return this.extrasAt[l] === NONE ? -1 : this.extras.readInt32LE(this.extrasAt[l]!)
  }

  /** How many dependencies line l has (as the section lists them). */
  dependencyCount(l: number): number {
    const e = this.extrasAt[l]!
    return e === NONE ? 0 : this.extras.readUInt32LE(e + 4)
  }

  /** Line l's k-th dependency's line (NONE: not a line). */
  dependencyLine(l: number, k: number): number {
    return this.extras.readUInt32LE(this.extrasAt[l]! + 12 + 4 * k)
  }

  /** How many sub-items line l has. */
  subItemCount(l: number): number {
    const e = this.extrasAt[l]!
    return e === NONE ? 0 : this.extras.readUInt32LE(e + 8)
  }

  /** Line l's k-th sub-item's line (NONE: not a line). */
  subItemLine(l: number, k: number): number {
    const e = this.extrasAt[l]!
    return this.extras.readUInt32LE(e + 12 + 4 * this.extras.readUInt32LE(e + 4) + 8 * k)
  }

  /** Line l's k-th sub-item's place in its own table (open rows or finished rows). */
  subItemPlace(l: number, k: number): number {
    const e = this.extrasAt[l]!
    const sp = this.extras.readUInt32LE(e + 12 + 4 * this.extras.readUInt32LE(e + 4) + 8 * k + 4)
    return sp < this.openCount ? sp : sp - this.openCount
  }

  /** How many of the file's ids sort before `id`: its line when the file has it. */
  linePosition(id: string): number {
    return this.file.linePosition(id, this.offsets)
  }

  /** Where line l starts in the file. */
  lineAt(l: number): number {
    return this.linesStart + this.offsets[l]!
  }

  /** Line l's length in bytes, newline excluded. */
  lineLength(l: number): number {
    return this.offsets[l + 1]! - this.offsets[l]! - 1
  }

  /** The bytes of line l at the front of a scratch buffer (valid until the next read); returns the buffer and length. */
  private readLine(l: number): number {
    const length = this.lineLength(l)
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(length)
    if (this.file.readBytes(this.scratch, 0, length, this.lineAt(l)) !== length) throw new Error('the index cache file changed while being read')
    return length
  }

  /** The id of line l. */
  idAt(l: number): string {
    const length = this.readLine(l)
    const tab = this.scratch.indexOf(TAB)
    return this.scratch.toString('latin1', 0, tab === -1 || tab > length ? length : tab)
  }

  /** The parent id field of line l (null: the line has no such field). */
  parentIdAt(l: number): string | null {
    const length = this.readLine(l)
    const at = this.fieldEnds
    if (findTabs(this.scratch, 0, length, at) < 5) return null
    return this.scratch.toString('latin1', at[3]! + 1, at[4])
  }

  /** The dependency ids of line l (null: the line has no such field). */
  dependencyIdsAt(l: number): string[] | null {
    const length = this.readLine(l)
    const t = this.fieldEnds
    if (findTabs(this.scratch, 0, length, t) < 6) return null
    return t[5]! > t[4]! + 1 ? this.scratch.toString('latin1', t[4]! + 1, t[5]).split(' ') : []
  }

  /** Line l's id, priority and creation time, as the listing orders it. */
  listingKeyAt(l: number): {id: string; priority: number; created: string} {
    const length = this.readLine(l)
    const at = this.fieldEnds
    const s = this.scratch
    if (findTabs(s, 0, length, at) !== LINE_FIELDS) throw new Error('the index cache file changed while being read')
    const id = s.toString('latin1', 0, at[0])
    const key = finishedKey(s, at[7]! + 1, length)
    if (key) return {id, ...key}
    const values = JSON.parse(s.toString('utf8', at[7]! + 1, length)) as unknown[]
    return {id, priority: values[PRIORITY_AT] as number, created: values[CREATED_AT_AT] as string}
  }

  /** The open records, a window at a time (the same object each time, refilled), each byte through the CRC. */
  *openWindows(): Generator<OpenRecords> {
    const window = Buffer.allocUnsafe(WINDOW_ROWS * OPEN_RECORD)
    const records = new OpenRecords(this.m.people)
    records.buf = window
    for (let first = 0; first < this.openCount; first += WINDOW_ROWS) {
      const count = Math.min(WINDOW_ROWS, this.openCount - first)
      this.file.readListSection(window, 0, count * OPEN_RECORD, this.layout.open + first * OPEN_RECORD)
      this.sum = sectionCrc(window.subarray(0, count * OPEN_RECORD), this.sum)
      records.first = first
      records.length = first + count
      yield records
    }
  }

  /** The finished records, a window at a time, after the open ones. */
  *finishedWindows(): Generator<FinishedRecords> {
    const window = Buffer.allocUnsafe(WINDOW_ROWS * FINISHED_RECORD)
    const records = new FinishedRecords()
    records.buf = window
    for (let first = 0; first < this.finishedCount; first += WINDOW_ROWS) {
      const count = Math.min(WINDOW_ROWS, this.finishedCount - first)
      this.file.readListSection(window, 0, count * FINISHED_RECORD, this.layout.finished + first * FINISHED_RECORD)
      this.sum = sectionCrc(window.subarray(0, count * FINISHED_RECORD), this.sum)
      records.first = first
      records.length = first + count
      yield records
    }
  }

  /**
   * After every record was read: whether the section matched its CRC-32
   * (noted on the file, so it is not checked again). Nothing may be written
   * from a section that does not.
   */
  sound(): boolean {
    const sound = this.sum === this.m.sum
    this.file.noteListSectionChecked(sound)
    return sound
  }

  /**
   * Read the lines of rows into one buffer: `lines[k]` is row k's line, or
   * -1 for a row that needs none. In file order, neighbouring lines in one
   * read; sorted as numbers (offset × count + k), so no comparison calls
   * back into JavaScript. The buffer is reused by the next call.
   */
  readLines(lines: Int32Array): LineBatch {
    const count = lines.length
    const offsets = this.offsets
    const linesStart = this.linesStart
    const sorted = new Float64Array(count)
    let wanted = 0
    for (let k = 0; k < count; k++) {
      const l = lines[k]!
      if (l >= 0) sorted[wanted++] = (linesStart + offsets[l]!) * count + k
    }
    /** Rows of the lines to read, in file order. */
    const want = new Int32Array(wanted)
    sorted.subarray(0, wanted).sort()
    for (let k = 0; k < wanted; k++) want[k] = sorted[k]! % count
    let need = 0
    for (let k = 0; k < wanted; k++) {
      const l = lines[want[k]!]!
      need += offsets[l + 1]! - offsets[l]! - 1
    }
    const batch = this.batch
    if (batch.buf.length < need) {
      batch.buf = Buffer.allocUnsafe(Math.max(need, batch.buf.length * 2))
      batch.view = viewOf(batch.buf)
    }
    if (batch.start.length < count) batch.start = new Float64Array(count)
    const {buf, start} = batch
    // Runs of lines close enough to read at once (gaps included) go through the scratch buffer; only the lines
    // are kept. A line alone is read straight into the batch.
    let put = 0
    let k = 0
    while (k < wanted) {
      const first = lines[want[k]!]!
      const a = linesStart + offsets[first]!
      let b = linesStart + offsets[first + 1]! - 1
      let q = k + 1
      while (q < wanted) {
        const l = lines[want[q]!]!
        const at = linesStart + offsets[l]!
        const to = linesStart + offsets[l + 1]! - 1
        if (at - b > READ_GAP || to - a > READ_MAX) break
        b = Math.max(b, to)
        q++
      }
      if (q === k + 1) {
        if (this.file.readBytes(buf, put, b - a, a) !== b - a) throw new Error('the index cache file changed while being read')
        start[want[k++]!] = put
        put += b - a
        continue
      }
      if (this.scratch.length < b - a) this.scratch = Buffer.allocUnsafe(b - a)
      if (this.file.readBytes(this.scratch, 0, b - a, a) !== b - a) throw new Error('the index cache file changed while being read')
      for (; k < q; k++) {
        const l = lines[want[k]!]!
        const at = linesStart + offsets[l]! - a
        start[want[k]!] = put
        put += this.scratch.copy(buf, put, at, at + offsets[l + 1]! - offsets[l]! - 1)
      }
    }
    return batch
  }
}
