/**
 * The reader of the index cache file (`IndexFile`): the header, the tables
 * stored beside the tasks (next queue, reservations, claims, open rows,
 * leases) and the task lines, searched in place by pages so that a command
 * about one task reads a few spans of a file that holds every task. It also
 * answers the raw reads the list section's reader (list-section-reader.ts)
 * and the writer's carry-forward need. It never writes.
 */
import {idsWithPrefixIn, lowerBound as lowerBoundOf} from '../../core/ids'
import {partitionPoint} from '../../core/order'
import type {LeaseRow, OpenRows, SnapshotTables} from '../../core/snapshot'
import {BROKEN, type ListSectionMeta, lineBytesOf, sectionCrc, sectionLayout} from '../list-section'
import {PagedFile} from '../paged-file'
import {withConfigDefaults} from '../../core/task'
import {type IndexHeader, type IndexedTask, type Line, type TaskBase, idList, parseLine} from './entry'
import {LITTLE_ENDIAN, MAGIC, NL, NO_IDS, TAB, damaged} from './format'
import {ColumnOpenRows, type EncodedOpenRows} from './open-rows'

/**
 * Binary searches one command may make before the whole file is decoded
 * instead: at least this many, and at least one for every
 * TASKS_PER_SEARCH_BEFORE_DECODING_ALL tasks. A search reads a span of
 * lines; decoding the whole file costs a pass over all of them and their
 * memory, which only a command that looks up a good share of the list
 * earns back (docs/scale.md has the figures).
 */
const SEARCHES_BEFORE_DECODING_ALL = 200
const TASKS_PER_SEARCH_BEFORE_DECODING_ALL = 20

/**
 * The cache file, searched in place. Format (text, fields split by TAB, JSON
 * text never holds a raw TAB or newline):
 *   git-tasks index 10
 *   {JSON header: IndexHeader (strays included) + count and byte length of the task lines, byte lengths of the queue and reservations lines}
 *   <ids of the next queue, space-separated, in next order>
 *   <reservations: JSON object, assignee → ids of the queue reserved for them, in next order>
 *   <claims: JSON object, owner → ids of the items in progress they hold, sorted>
 *   <open rows: JSON `EncodedOpenRows` (`SnapshotTables.openRows` as binary columns): every open item in (priority, created, id) order with its list facts, the count of finished items, the unreadable ids>
 *   <leases: JSON array of [id, ms] (`SnapshotTables.leases`): items in progress whose claim can run out, in the order it does>
 *   <line directory: JSON {ids, at}: the id (space-separated) and byte offset from the first task line of every DIRECTORY_EVERY-th line, so a lookup reads a few pages>
 *   <list section: binary (list-section.ts), its meta and CRC-32 in the header (`list`): where each line is, its status, parent, dependencies and sub-items as line numbers, the open rows and the finished rows in listing order, as fixed-width records>
 *   <id> <status> <shard> <dir tree> <parent> <deps> <sub-items> <dependents> <frontmatter JSON array | !error JSON>
 * One line per task in id order (JavaScript string order); id lists are
 * space-separated and sorted. `status` is empty for an unreadable file.
 */
export class IndexFile implements ReadonlyMap<string, IndexedTask>, SnapshotTables, TaskBase {
  readonly size: number
  /** Lines parsed so far (null: no such id). */
  private readonly lines = new Map<string, Line | null>()
  /** The span of lines read last (readSpan): its directory entry (-1: none), bytes and length. */
  private readonly lastSpan: {e: number; bytes: Buffer; length: number} = {e: -1, bytes: Buffer.alloc(0), length: 0}
  /** Ids known to have a line or not without reading it (notePresence). */
  private presence: Map<string, boolean> | undefined
  private queue: readonly string[] | undefined
  private reserved: ReadonlyMap<string, readonly string[]> | undefined
  private claimed: ReadonlyMap<string, readonly string[]> | undefined
  private open: OpenRows | undefined
  private leaseRows: readonly LeaseRow[] | undefined
  private dir: {ids: readonly string[]; at: readonly number[]} | undefined
  private sectionSound: boolean | undefined
  /** After the first full pass: the decoded task lines, where each id's line starts, and the ids in order. */
  private text: string | undefined
  private offsets: Map<string, number> | undefined
  private ids: string[] | undefined

  private constructor(
    private readonly buf: PagedFile,
    /** Offset of the queue line. */
    private readonly queueStart: number,
    /** Offset of the reservations line. */
    private readonly reservedStart: number,
    /** Offset of the claims line. */
    private readonly claimsStart: number,
    /** Offset of the open rows line. */
    private readonly openStart: number,
    /** Offset of the leases line. */
    private readonly leasesStart: number,
    /** Offset of the line directory. */
    private readonly directoryStart: number,
    /** Offset of the first task line. */
    private readonly start: number,
    count: number,
    /** Offset of the list section and what the header says of it. */
    private readonly listStart: number,
    readonly listMeta: ListSectionMeta,
  ) {
    this.size = count
  }

  get tasks(): ReadonlyMap<string, IndexedTask> {
    return this
  }

  get tables(): SnapshotTables {
    return this
  }

  /** Parse the header; the task lines are read on demand. Null when absent or not this version. */
  static read(file: string, list: string): {header: IndexHeader; file: IndexFile} | null {
    // Read by pages: a command about a few tasks reads a few pages of a file that is tens of MB at 100,000 tasks.
    const buf = PagedFile.open(file)
    if (!buf) return null
    const nl1 = buf.indexOf(NL, 0)
    if (nl1 === -1 || buf.toString(0, nl1) !== MAGIC) return null
    const nl2 = buf.indexOf(NL, nl1 + 1)
    if (nl2 === -1) return null
    let header: IndexHeader & {count: number; bytes: number; queueBytes: number; reservedBytes: number; claimsBytes: number; openBytes: number; leasesBytes: number; directoryBytes: number; listBytes: number; listSection: ListSectionMeta}
    try {
      header = JSON.parse(buf.toString(nl1 + 1, nl2)) as typeof header
    } catch {
      return null
    }
    header.config = withConfigDefaults(header.config)
    const queueStart = nl2 + 1
    const reservedStart = queueStart + header.queueBytes + 1
    const claimsStart = reservedStart + header.reservedBytes + 1
    const openStart = claimsStart + header.claimsBytes + 1
    const leasesStart = openStart + header.openBytes + 1
    const directoryStart = leasesStart + header.leasesBytes + 1
    const listStart = directoryStart + header.directoryBytes + 1
    const start = listStart + header.listBytes + 1
    const m = header.listSection
    if (!m || typeof m !== 'object' || typeof m.sum !== 'number' || m.n !== header.count || !Array.isArray(m.people) || m.lineBytes !== lineBytesOf(m.n) || sectionLayout(m).end !== header.listBytes) return null
    // A torn or truncated file is ignored (rebuilt), never half-used.
    const endsLine = (at: number) => buf.indexOf(NL, at - 1) === at - 1
    if (header.list !== list || buf.length - start !== header.bytes || !endsLine(reservedStart) || !endsLine(claimsStart) || !endsLine(openStart) || !endsLine(leasesStart) || !endsLine(directoryStart) || !endsLine(listStart) || !endsLine(start)) return null
    const {count, bytes, queueBytes, reservedBytes, claimsBytes, openBytes, leasesBytes, directoryBytes, listBytes, listSection, ...rest} = header
    return {header: rest, file: new IndexFile(buf, queueStart, reservedStart, claimsStart, openStart, leasesStart, directoryStart, start, count, listStart, m)}
  }

  /** The line directory: the id and offset (from the first task line) of every DIRECTORY_EVERY-th line. */
  private directory(): {ids: readonly string[]; at: readonly number[]} {
    if (!this.dir) {
      let parsed: {ids: string; at: number[]}
      try {
        parsed = JSON.parse(this.buf.toString(this.directoryStart, this.listStart - 1)) as typeof parsed
      } catch {
        throw damaged('the line directory')
      }
      const ids = parsed.ids ? parsed.ids.split(' ') : []
      if (!Array.isArray(parsed.at) || parsed.at.length !== ids.length) throw damaged('the line directory')
      this.dir = {ids, at: parsed.at}
    }
    return this.dir
  }

  /**
   * The lines of the line directory's span `e` (from entry e's line up to
   * entry e + 1's), read in one piece into the file's own buffer; the next
   * read of another span reuses it, so use the result before reading again.
   * The span read last is kept: on a list of fewer than 128 tasks every
   * lookup falls in the one span (a drain's `next` looks up dozens). One
   * span, not several: more kept spans saved reads but no measurable time.
   */
  private readSpan(e: number): Buffer {
    const last = this.lastSpan
    if (last.e === e) return last.bytes.subarray(0, last.length)
    const {at} = this.directory()
    const from = this.start + at[e]!
    const to = e + 1 < at.length ? this.start + at[e + 1]! : this.buf.length
    if (to < from) throw damaged('the line directory')
    if (last.bytes.length < to - from) last.bytes = Buffer.allocUnsafe(Math.max(to - from, 2 * last.bytes.length, 16 * 1024))
    last.e = -1
    if (this.buf.readInto(last.bytes, 0, to - from, from) !== to - from) throw damaged('a span of task lines')
    last.e = e
    last.length = to - from
    return last.bytes.subarray(0, to - from)
  }

  /** The directory span holding the first line whose id is ≥ `key` (-1: it is line 0, or the file has no lines). */
  private spanBefore(key: string): number {
    return lowerBoundOf(this.directory().ids, key) - 1
  }

  /** Calls `each` with the id and bounds of every line of `span`, until it returns false. */
  private static eachLine(span: Buffer, each: (id: string, ls: number, nl: number) => boolean): void {
    let ls = 0
    while (ls < span.length) {
      let nl = span.indexOf(NL, ls)
      if (nl === -1) nl = span.length
      let tab = span.indexOf(TAB, ls)
      if (tab === -1 || tab > nl) tab = nl
      if (!each(span.toString('latin1', ls, tab), ls, nl)) return
      ls = nl + 1
    }
  }

  /** The line of `id`, or null: the first line of the next span when the directory names it, else in the span before. */
  private search(id: string): Line | null {
    const {ids} = this.directory()
    const before = this.spanBefore(id)
    const e = ids[before + 1] === id ? before + 1 : before
    if (e < 0) return null
    let found: Line | null = null
    const span = this.readSpan(e)
    IndexFile.eachLine(span, (lineId, ls, nl) => {
      if (lineId === id) found = parseLine(span.toString('utf8', ls, nl))
      return lineId < id
    })
    return found
  }

  private idAt(ls: number): string {
    return this.buf.toString(ls, this.buf.indexOf(TAB, ls))
  }

  private find(id: string): Line | undefined {
    let line = this.lines.get(id)
    if (line === undefined) {
      if (this.offsets || this.lines.size >= Math.max(SEARCHES_BEFORE_DECODING_ALL, this.size / TASKS_PER_SEARCH_BEFORE_DECODING_ALL)) {
        // A command walking many tasks is better served by one pass over the file.
        const off = this.all().get(id)
        line = off === undefined ? null : parseLine(this.text!.slice(off, this.text!.indexOf('\n', off)))
      } else {
        line = this.search(id)
      }
      this.lines.set(id, line)
    }
    return line ?? undefined
  }

  /**
   * Decode the file once and note where each id's line starts: what walking
   * every task needs. Lines are still parsed only when asked for.
   */
  private all(): Map<string, number> {
    if (!this.offsets) {
      const offsets = new Map<string, number>()
      const ids: string[] = []
      const text = this.buf.all().toString('utf8', this.start)
      let ls = 0
      while (ls < text.length) {
        const tab = text.indexOf('\t', ls)
        const nl = text.indexOf('\n', ls)
        if (tab === -1 || nl === -1 || tab > nl) throw damaged('a line without fields')
        const id = text.slice(ls, tab)
        offsets.set(id, ls)
        ids.push(id)
        ls = nl + 1
      }
      if (offsets.size !== this.size) throw damaged(`${offsets.size} lines for ${this.size} tasks`)
      this.text = text
      this.offsets = offsets
      this.ids = ids
    }
    return this.offsets
  }

  /** Copy `length` bytes of the list section from its byte `position` into `target` at `at` (the whole span, else an error). */
  readListSection(target: Buffer, at: number, length: number, position: number): void {
    if (position + length > sectionLayout(this.listMeta).end || this.buf.readInto(target, at, length, this.listStart + position) !== length) throw damaged('the list section')
  }

  /** Offset of the first task line in the file (the list section's offsets count from it). */
  get linesStart(): number {
    return this.start
  }

  /**
   * How many of the file's ids sort before `id`: its line when the file has
   * it, else where it would go. `offsets` are the list section's.
   */
  linePosition(id: string, offsets: Uint32Array): number {
    // The directory's span, read once and scanned (a binary search over the lines read ~17 probes, each a read).
    const e = this.spanBefore(id)
    if (e < 0) return 0
    const at = this.directory().at[e]!
    let line = partitionPoint(0, this.size, (l) => offsets[l]! < at)
    if (offsets[line] !== at) throw damaged('the line directory')
    IndexFile.eachLine(this.readSpan(e), (lineId) => {
      if (lineId >= id) return false
      line++
      return true
    })
    return line
  }

  /** Copy `length` bytes of the file from `position` (a task line the list section places) into `target` at `at`. */
  readBytes(target: Buffer, at: number, length: number, position: number): number {
    return this.buf.readInto(target, at, length, position)
  }

  get(id: string): IndexedTask | undefined {
    return this.find(id)?.task
  }

  /** The line of `id` as it is in the file, newline included. */
  rawLine(id: string): string | undefined {
    const off = this.all().get(id)
    return off === undefined ? undefined : this.text!.slice(off, this.text!.indexOf('\n', off) + 1)
  }

  has(id: string): boolean {
    const line = this.lines.get(id)
    if (line !== undefined) return line !== null
    return this.presence?.get(id) ?? this.find(id) !== undefined
  }

  /**
   * Whether each of `ids` has a line in this file, as the delta that
   * continues it recorded (`absent`: those that have none), so an overlay
   * of hundreds of changes does not look each one up again.
   */
  notePresence(ids: Iterable<string>, absent: ReadonlySet<string>): void {
    this.presence ??= new Map()
    for (const id of ids) this.presence.set(id, !absent.has(id))
  }

  *entries(): MapIterator<[string, IndexedTask]> {
    for (const id of this.all().keys()) yield [id, this.find(id)!.task]
  }

  keys(): MapIterator<string> {
    return this.all().keys()
  }

  *values(): MapIterator<IndexedTask> {
    for (const id of this.all().keys()) yield this.find(id)!.task
  }

  [Symbol.iterator](): MapIterator<[string, IndexedTask]> {
    return this.entries()
  }

  forEach(fn: (value: IndexedTask, key: string, map: ReadonlyMap<string, IndexedTask>) => void): void {
    for (const [id, task] of this.entries()) fn(task, id, this)
  }

  sortedIds(): readonly string[] {
    this.all()
    return this.ids!
  }

  idsWithPrefix(prefix: string, limit: number): readonly string[] {
    if (this.ids) return idsWithPrefixIn(this.ids, prefix, limit)
    const out: string[] = []
    const spans = this.directory().ids.length
    // From the span that holds the first id ≥ prefix, on into the next spans while the ids still match.
    let more = out.length < limit
    for (let e = Math.max(0, this.spanBefore(prefix)); more && e < spans; e++) {
      IndexFile.eachLine(this.readSpan(e), (id) => {
        if (id < prefix) return true
        more = id.startsWith(prefix) && out.push(id) < limit
        return more
      })
    }
    return out
  }

  children(id: string): readonly string[] {
    return this.find(id)?.children ?? NO_IDS
  }

  dependents(id: string): readonly string[] {
    return this.find(id)?.dependents ?? NO_IDS
  }

  nextQueue(): readonly string[] {
    this.queue ??= idList(this.buf.toString(this.queueStart, this.reservedStart - 1))
    return this.queue
  }

  /** The queue read from its front without splitting the whole line (see SnapshotTables.nextQueueFront). */
  *nextQueueFront(): Iterable<string> {
    if (this.queue) {
      yield* this.queue
      return
    }
    // Read a window at a time from the front (the line is ~700 KB at 100,000 tasks; `next` usually needs a few ids).
    const end = this.reservedStart - 1
    let from = this.queueStart
    for (let window = 16 * 1024; from < end; window *= 4) {
      const to = Math.min(end, from + window)
      const text = this.buf.toString(from, to)
      let at = 0
      for (;;) {
        const sp = text.indexOf(' ', at)
        if (sp === -1) {
          if (to === end) {
            yield text.slice(at)
            return
          }
          break
        }
        yield text.slice(at, sp)
        at = sp + 1
      }
      // The rest of the window is the start of an id: read again from there.
      from += Buffer.byteLength(text.slice(0, at))
    }
  }

  reservations(): ReadonlyMap<string, readonly string[]> {
    if (!this.reserved) {
      let parsed: Record<string, string[]>
      try {
        parsed = JSON.parse(this.buf.toString(this.reservedStart, this.claimsStart - 1)) as Record<string, string[]>
      } catch {
        throw damaged('the reservations line')
      }
      this.reserved = new Map(Object.entries(parsed))
    }
    return this.reserved
  }

  claims(): ReadonlyMap<string, readonly string[]> {
    if (!this.claimed) {
      let parsed: Record<string, string[]>
      try {
        parsed = JSON.parse(this.buf.toString(this.claimsStart, this.openStart - 1)) as Record<string, string[]>
      } catch {
        throw damaged('the claims line')
      }
      this.claimed = new Map(Object.entries(parsed))
    }
    return this.claimed
  }

  openRows(): OpenRows {
    if (!this.open) {
      let parsed: EncodedOpenRows
      try {
        parsed = JSON.parse(this.buf.toString(this.openStart, this.leasesStart - 1)) as EncodedOpenRows
      } catch {
        throw damaged('the open rows line')
      }
      this.open = new ColumnOpenRows(parsed)
    }
    return this.open
  }

  leases(): readonly LeaseRow[] {
    if (!this.leaseRows) {
      try {
        this.leaseRows = JSON.parse(this.buf.toString(this.leasesStart, this.directoryStart - 1)) as LeaseRow[]
      } catch {
        throw damaged('the leases line')
      }
    }
    return this.leaseRows
  }

  /**
   * The front of the leases line, up to the first lease ending at or after
   * `limitMs`: the sweep of expired claims needs only those, and the line
   * holds every item in progress (~240 KB at 100,000 tasks). Read a page
   * or so at a time; anything unexpected in the text reads it whole.
   */
  leasesBefore(limitMs: number): readonly LeaseRow[] {
    if (this.leaseRows) return this.leaseRows.filter((r) => r[1] < limitMs)
    const end = this.directoryStart - 1
    const row = /\["([^"\\]*)",(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\]/y
    for (let window = 16 * 1024; ; window *= 4) {
      const whole = this.leasesStart + window >= end
      const text = this.buf.toString(this.leasesStart, whole ? end : this.leasesStart + window)
      if (text[0] !== '[') break
      const out: LeaseRow[] = []
      let at = 1
      for (;;) {
        if (text[at] === ']' && whole && at === text.length - 1) return out
        row.lastIndex = at
        const m = row.exec(text)
        if (!m) break
        const ms = Number(m[2])
        if (!(ms < limitMs)) return out
        out.push([m[1]!, ms])
        at = row.lastIndex
        if (text[at] === ',') at++
      }
      // The window ended inside a row (read more), or the text is not what this reads (read it whole).
      if (whole || at < text.length - 64) break
    }
    return this.leases().filter((r) => r[1] < limitMs)
  }

  /** Compares the status field of every line; only matching lines are parsed later. */
  idsWithStatus(statuses: ReadonlySet<string>): readonly string[] {
    return this.withStatusField([...statuses].filter(Boolean))
  }

  /** Kept with the open rows, so listing does not pass over every line for them. */
  brokenIds(): readonly string[] {
    if (this.open || !LITTLE_ENDIAN || !this.listSectionSound()) return this.openRows().broken
    // From the list section's status codes: the open rows line need not be parsed for it.
    const n = this.size
    const status = Buffer.allocUnsafe(n)
    this.readListSection(status, 0, n, 8 * n + 4)
    const out: string[] = []
    for (let l = status.indexOf(BROKEN); l !== -1; l = status.indexOf(BROKEN, l + 1)) out.push(this.idAtLine(l))
    return out
  }

  /** Whether the list section matches its CRC-32 (read a window at a time, once; `list` checks it as it reads). */
  listSectionSound(): boolean {
    if (this.sectionSound === undefined) {
      const end = sectionLayout(this.listMeta).end
      const chunk = Buffer.allocUnsafe(1 << 16)
      let crc = 0
      for (let at = 0; at < end; at += chunk.length) {
        const k = Math.min(chunk.length, end - at)
        this.readListSection(chunk, 0, k, at)
        crc = sectionCrc(chunk.subarray(0, k), crc)
      }
      this.sectionSound = crc === this.listMeta.sum
    }
    return this.sectionSound
  }

  /** The list section was read whole and its CRC-32 compared (by ListSectionReader, for a listing): `sound` is the answer. */
  noteListSectionChecked(sound: boolean): void {
    this.sectionSound = sound
  }

  /** The id of task line `l` (list section offsets). */
  private idAtLine(l: number): string {
    const at = Buffer.allocUnsafe(4)
    this.readListSection(at, 0, 4, 4 * l)
    return this.idAt(this.start + at.readUInt32LE(0))
  }

  private withStatusField(values: readonly string[]): string[] {
    const offsets = this.all()
    const text = this.text!
    const fields = values.map((v) => `${v}\t`)
    const out: string[] = []
    for (const [id, ls] of offsets) {
      const at = ls + id.length + 1
      for (const f of fields) {
        if (text.startsWith(f, at)) {
          out.push(id)
          break
        }
      }
    }
    return out
  }
}
