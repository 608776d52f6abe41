/**
 * The task index: every task of a list at one commit, derived from the tree
 * and cached under the git directory (`<common-dir>/git-tasks/index-<list>`).
 * It is keyed by the commit it describes and brought forward incrementally:
 * from the cached commit's tree to the new tip, only shards whose tree id
 * changed are compared, and in them only task directories whose tree id
 * changed are read. A plain `git fetch` that moved the ref never leaves it
 * stale, and a rebuild is always possible (delete the file). No daemon, no
 * database: a file written by rename, last writer wins, and every version is
 * correct for the commit it names.
 *
 * Built so that a command about one task does not pay for 10,000: the file
 * is one line per task in id order and is searched in place (binary search
 * over the bytes), each line carries the task's sub-items and dependents as
 * well as its own edges, and a line's frontmatter stays JSON text until a
 * command touches it. A command that walks many tasks (list) decodes the
 * file's text once and still parses only the lines it uses.
 */
import {createHash} from 'node:crypto'
import {closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {EnvironmentError} from '../core/errors'
import {ID_PREFIX, MIN_PREFIX, idsWithPrefixIn, isStoredId, lowerBound as lowerBoundOf, shardOf} from '../core/ids'
import {overlaySnapshot} from '../core/overlay'
import {partitionPoint} from '../core/order'
import {MergedOpenRows} from '../core/merged-open-rows'
import {type LeaseRow, type OpenRow, type OpenRowColumns, type OpenRows, ScannedTables, type Snapshot, type SnapshotTables, type TaskEntry, isFinishedStatus, openRowColumns, tablesOf} from '../core/snapshot'
import {CONFIG_PATH, META_PATH, TASKS_DIR, TASK_FILE} from '../core/store-layout'
import {DEFAULT_CONFIG, FORMAT_VERSION, type ListConfig, MAX_FILE_BYTES, STATUSES, type Status, TASK_KEYS, type TaskMeta} from '../core/task'
import {type Parsed, fileText, parseConfig, parseMeta, parseTaskFile} from '../core/task-file'
import {FILE_MODE, type HashAlgorithm, TREE_MODE, type TreeEntry, decodeCommit, decodeTree, diffTrees} from './git-objects'
import {type GitObject, ObjectReader, batchCommandSupported} from './object-reader'
import {BROKEN, CANCELLED, DONE, FINISHED_RECORD, type ListSectionMeta, NONE, OPEN_RECORD, createdNumbers, lineBytesOf, sectionCrc, sectionLayout, statusCodeOf} from './list-section'
import {PagedFile} from './paged-file'

const CACHE_VERSION = 9
/** First line of the file; it names the format version, so another version is simply not read. */
const MAGIC = `git-tasks index ${CACHE_VERSION}`
const NO_IDS: readonly string[] = Object.freeze([])
/** The shortest short id (shortIdBetween). */
const SHORTEST_ID = ID_PREFIX.length + MIN_PREFIX
/**
 * Binary searches one command may make before the whole file is decoded
 * instead: at least this many, and at least one for every
 * TASKS_PER_SEARCH_BEFORE_DECODING_ALL tasks. At 100,000 tasks a search (the
 * line directory, then a few pages) took 50–70 µs and decoding the whole
 * file 200–300 ms (and ~50 MB more at the peak), so a `sync` that looks up
 * 2,000 cards saved ~150 ms by searching; at 10,000 tasks decoding all costs
 * a tenth of that.
 */
const SEARCHES_BEFORE_DECODING_ALL = 200
const TASKS_PER_SEARCH_BEFORE_DECODING_ALL = 20
/** Lines of the cache file written at once. */
const WRITE_BATCH = 4096
/** Every how many task lines the line directory notes an id and its offset (~46 KB of lines at 100,000 tasks: three pages). */
const DIRECTORY_EVERY = 128
const NL = 0x0a
const TAB = 0x09

/** The index of `value` in `table`, appended (and noted in `at`) the first time it is asked for. */
function indexIn<T>(table: T[], at: Map<T, number>, value: T): number {
  let i = at.get(value)
  if (i === undefined) {
    i = table.length
    table.push(value)
    at.set(value, i)
  }
  return i
}

/**
 * Frontmatter as a JSON array in TASK_KEYS order (+ extra): half the size of
 * an object. The keys are written out (test/unit/index-meta.test.ts checks
 * them against TASK_KEYS): a loop reading each by a computed name costs
 * twice as much, on every card of a cold build.
 */
function encodeMeta(m: TaskMeta): string {
  const values: unknown[] = [
    m.id ?? null, m.title ?? null, m.status ?? null, m.priority ?? null, m.tags ?? null, m.parent ?? null,
    m.depends_on ?? null, m.assignee ?? null, m.owner ?? null, m.epoch ?? null, m.claim_epochs ?? null,
    m.claimed_at ?? null, m.lease_expires ?? null, m.session ?? null, m.block_note ?? null, m.cancel_reason ?? null,
    m.flag_reason ?? null, m.flagged_by ?? null, m.flagged_at ?? null, m.closed_at ?? null, m.key ?? null,
    m.collaborators ?? null, m.subscribers ?? null, m.notify_roles ?? null, m.notify_mute ?? null,
    m.created_at ?? null, m.created_by ?? null, m.updated_at ?? null, m.updated_by ?? null, m.revision ?? null
  ]
  if (m.extra) values.push(m.extra)
  return JSON.stringify(values)
}

function decodeMeta(id: string, text: string): TaskMeta {
  let values: unknown[]
  try {
    values = JSON.parse(text) as unknown[]
  } catch {
    throw damaged(`the frontmatter of ${id}`)
  }
  const m: Record<string, unknown> = {}
  for (let i = 0; i < TASK_KEYS.length; i++) if (values[i] !== null) m[TASK_KEYS[i]!] = values[i]
  if (values.length > TASK_KEYS.length) m.extra = values[TASK_KEYS.length]
  return m as unknown as TaskMeta
}

/**
 * One task of the index, and at the same time the snapshot's entry for it:
 * the frontmatter is decoded from `json` on first access.
 */
export class IndexedTask implements TaskEntry {
  private decoded: TaskMeta | undefined
  /**
   * A finished card read afresh: what the list section orders finished rows
   * by (priority, creation time as createdNumbers), taken while its fields
   * were at hand, so writing the cache file decodes none of them again.
   */
  finishedOrder: {priority: number; date: number; time: number} | undefined

  constructor(
    readonly id: string,
    readonly shard: string,
    /** Tree id of the task's directory. */
    readonly dir: string,
    /** '' for an unreadable file. */
    readonly statusText: string,
    readonly parentText: string,
    readonly deps: readonly string[],
    private json: string | undefined,
    readonly error: string | undefined,
    meta?: TaskMeta,
  ) {
    this.decoded = meta
  }

  static fromMeta(id: string, shard: string, dir: string, meta: TaskMeta): IndexedTask {
    return new IndexedTask(id, shard, dir, meta.status, meta.parent ?? '', meta.depends_on, undefined, undefined, meta)
  }

  static broken(id: string, shard: string, dir: string, error: string): IndexedTask {
    return new IndexedTask(id, shard, dir, '', '', NO_IDS, undefined, error)
  }

  get path(): string {
    return `${TASKS_DIR}/${this.shard}/${this.id}/${TASK_FILE}`
  }

  get meta(): TaskMeta | undefined {
    if (this.decoded === undefined && this.json !== undefined) this.decoded = decodeMeta(this.id, this.json)
    return this.decoded
  }

  get status(): Status | undefined {
    return (this.statusText || undefined) as Status | undefined
  }

  get parent(): string | undefined {
    return this.parentText || undefined
  }

  get depends_on(): readonly string[] | undefined {
    return this.statusText ? this.deps : undefined
  }

  /** The `data` field of the cache line. */
  data(): string {
    if (this.error !== undefined) return `!${JSON.stringify(this.error)}`
    this.json ??= encodeMeta(this.decoded!)
    return this.json
  }
}

/** What the index knows about a commit besides its tasks. */
export interface IndexHeader {
  list: string
  commit: string
  rootTree: string
  tasksTree: string | null
  metaBlob: string | null
  configBlob: string | null
  config: ListConfig
  /** Problems with meta.yaml or config.yaml, reported but not fatal to reading. */
  warnings: string[]
  /** Shard name → tree id. */
  shards: Record<string, string>
  /**
   * Entries under tasks/ that are not task cards: a name that is not a task
   * id or is not a shard, a task directory in the wrong shard, a file where
   * a shard belongs. Reported by path beside the broken cards; `shard` says
   * which shard listing found it (none: the tasks/ tree itself).
   */
  strays: Stray[]
}

/** Something under tasks/ that is not a card, reported by path. */
export interface Stray {
  path: string
  error: string
  shard?: string
}

/** A complete set of tasks with its tables: the cache file, or tasks read from git. */
export interface TaskBase {
  tasks: ReadonlyMap<string, IndexedTask>
  tables: SnapshotTables
}

/**
 * The tasks at `commit`: a base (usually the cache file, at an older commit)
 * and the entries that changed since it (null: removed).
 */
export interface TaskIndex extends IndexHeader {
  base: TaskBase
  changes: ReadonlyMap<string, IndexedTask | null>
}

export function cachePath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `index-${list}`)
}

/** A line of the file that does not parse: the cache was damaged outside git-tasks. */
function damaged(what: string): EnvironmentError {
  return new EnvironmentError('index_damaged', `the git-tasks index cache is damaged (${what}); delete .git/git-tasks/ and run the command again`)
}

/**
 * The cache file, searched in place. Format (text, fields split by TAB, JSON
 * text never holds a raw TAB or newline):
 *   git-tasks index 8
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
   * lookup falls in the one span (a drain's `next` looks up dozens). The
   * page-by-page search this replaced read and kept four or five 16 KB
   * pages a lookup (~150 µs each at 100,000 tasks), which a command over
   * hundreds of changes paid hundreds of times; keeping 8–16 spans instead
   * of one saved a quarter of a listing's reads and no time measurable.
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

  /** The list section was read whole and its CRC-32 compared (by the streamer): `sound` is the answer. */
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

/**
 * The open rows line of the file, made to be read without an object per
 * row: the small fields of every row as binary columns in one base64
 * string (`packed`, little-endian: per row a byte of status and flags,
 * then 32-bit positions in `priorities`, in `people` ('' first) for the
 * owner and the assignee, and the position of the parent's row, -1 when it
 * has none or the parent is not open); ids and creation times concatenated
 * when they all have one length (the usual case), else as lists; the
 * parents of rows that have one, and the lease ends as [row, ms] pairs for
 * the canonical ISO form (`leaseText` keeps any other text, parsed when
 * read, as before).
 */
export interface EncodedOpenRows {
  finished: number
  broken: string[]
  n: number
  packed: string
  statuses: string[]
  priorities: number[]
  people: string[]
  ids: string | string[]
  idWidth: number
  created: string | string[]
  createdWidth: number
  parents: Record<string, string>
  leases: number[]
  leaseText: Record<string, string>
}

/** Bytes of a row in `packed` after the status bytes: priority, owner, assignee, parent row (4 each). */
const ROW_WORDS = 4

/** One length shared by every string, or -1. */
function widthOf(values: readonly string[]): number {
  const w = values[0]?.length ?? 0
  return values.every((v) => v.length === w) ? w : -1
}

/** Where the status bytes end and the 32-bit words start (aligned to 4). */
function wordsAt(n: number): number {
  return Math.ceil(n / 4) * 4
}

/** The open rows line as written (exported for tests), read through the rows' columns (no tuple per row). */
export function encodeOpenRows(open: OpenRows): EncodedOpenRows {
  const cols = openRowColumns(open)
  const statuses: string[] = []
  const priorities: number[] = []
  const people: string[] = ['']
  const statusAt = new Map<string, number>()
  const priorityAt = new Map<number, number>()
  const personAt = new Map<string, number>([['', 0]])
  const n = cols.length
  const start = wordsAt(n)
  const bytes = Buffer.alloc(start + n * ROW_WORDS * 4)
  const parents: Record<string, string> = {}
  const leases: number[] = []
  const leaseText: Record<string, string> = {}
  const ids: string[] = new Array(n)
  const created: string[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const status = cols.status(i)
    const flags = cols.flags(i)
    const st = indexIn(statuses, statusAt, status)
    if ((flags & ~3) !== 0 || st > 63) throw new Error(`open row flags ${flags} or status ${status} do not fit the packed row`)
    bytes[i] = st * 4 + flags
    const w = start + i * ROW_WORDS * 4
    bytes.writeUInt32LE(indexIn(priorities, priorityAt, cols.priority(i)), w)
    bytes.writeUInt32LE(indexIn(people, personAt, cols.owner(i)), w + 4)
    bytes.writeUInt32LE(indexIn(people, personAt, cols.assignee(i)), w + 8)
    bytes.writeInt32LE(cols.parentRow(i), w + 12)
    const parent = cols.parent(i)
    if (parent !== '') parents[String(i)] = parent
    const lease = cols.leaseText(i)
    if (lease !== '') {
      const ms = Date.parse(lease)
      // Only the canonical form is kept as a number: any other text is parsed when read, as before.
      if (Number.isFinite(ms) && ms >= 0 && new Date(ms).toISOString() === lease) leases.push(i, ms)
      else leaseText[String(i)] = lease
    }
    ids[i] = cols.id(i)
    created[i] = cols.created(i)
  }
  const idWidth = widthOf(ids)
  const createdWidth = widthOf(created)
  return {
    finished: open.finished,
    broken: [...open.broken],
    n,
    packed: bytes.toString('base64'),
    statuses,
    priorities,
    people,
    ids: idWidth === -1 ? ids : ids.join(''),
    idWidth,
    created: createdWidth === -1 ? created : created.join(''),
    createdWidth,
    parents,
    leases,
    leaseText,
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** The open rows of the file, read in place from the packed columns; the rows as arrays are made only if asked for (the overlay). */
export class ColumnOpenRows implements OpenRows, OpenRowColumns {
  readonly length: number
  readonly finished: number
  readonly broken: readonly string[]
  private readonly head: Uint8Array
  /** Per row: priority, owner, assignee, parent row. */
  private readonly words: Int32Array
  private readonly leaseEnds: Float64Array
  private tuples: OpenRow[] | undefined
  private leaseTexts: Map<number, string> | undefined

  constructor(private readonly e: EncodedOpenRows) {
    const n = e.n
    const fits = (v: string | string[], width: number) => (Array.isArray(v) ? width === -1 && v.length === n : typeof v === 'string' && width >= 0 && v.length === n * width)
    const bytes = typeof e.packed === 'string' ? Buffer.from(e.packed, 'base64') : Buffer.alloc(0)
    const start = wordsAt(n)
    if (
      typeof n !== 'number' ||
      bytes.length !== start + n * ROW_WORDS * 4 ||
      !fits(e.ids, e.idWidth) ||
      !fits(e.created, e.createdWidth) ||
      ![e.broken, e.statuses, e.priorities, e.people, e.leases].every(Array.isArray) ||
      typeof e.parents !== 'object' ||
      typeof e.leaseText !== 'object'
    )
      throw damaged('the open rows line')
    this.length = n
    this.finished = e.finished
    this.broken = e.broken
    // An aligned copy when the decoded bytes do not start on a 4-byte boundary, or on a big-endian machine, words read one by one.
    const own = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes)
    this.head = new Uint8Array(own.buffer, own.byteOffset, n)
    if (LITTLE_ENDIAN) this.words = new Int32Array(own.buffer, own.byteOffset + start, n * ROW_WORDS)
    else {
      this.words = new Int32Array(n * ROW_WORDS)
      for (let k = 0; k < n * ROW_WORDS; k++) this.words[k] = own.readInt32LE(start + k * 4)
    }
    const statuses = e.statuses.length
    const people = e.people.length
    const priorities = e.priorities.length
    for (let i = 0; i < n; i++) {
      const w = i * ROW_WORDS
      if (this.head[i]! >> 2 >= statuses || this.words[w]! >= priorities || this.words[w + 1]! >= people || this.words[w + 2]! >= people || this.words[w + 3]! >= n || this.words[w]! < 0 || this.words[w + 1]! < 0 || this.words[w + 2]! < 0 || this.words[w + 3]! < -1) throw damaged('the open rows line')
    }
    this.leaseEnds = new Float64Array(n).fill(Number.POSITIVE_INFINITY)
    for (let k = 0; k + 1 < e.leases.length; k += 2) this.leaseEnds[e.leases[k]!] = e.leases[k + 1]!
    for (const [i, text] of Object.entries(e.leaseText)) this.leaseEnds[Number(i)] = Date.parse(text)
  }

  get columns(): OpenRowColumns {
    return this
  }

  get rows(): readonly OpenRow[] {
    if (!this.tuples) {
      const out: OpenRow[] = []
      for (let i = 0; i < this.length; i++) {
        out.push([this.id(i), this.status(i), this.priority(i), this.created(i), this.parent(i), this.owner(i), this.assignee(i), this.leaseText(i), this.flags(i)])
      }
      this.tuples = out
    }
    return this.tuples
  }

  id(i: number): string {
    const {ids, idWidth} = this.e
    return typeof ids === 'string' ? ids.slice(i * idWidth, (i + 1) * idWidth) : ids[i]!
  }

  status(i: number): string {
    return this.e.statuses[this.head[i]! >> 2]!
  }

  flags(i: number): number {
    return this.head[i]! & 3
  }

  priority(i: number): number {
    return this.e.priorities[this.words[i * ROW_WORDS]!]!
  }

  created(i: number): string {
    const {created, createdWidth} = this.e
    return typeof created === 'string' ? created.slice(i * createdWidth, (i + 1) * createdWidth) : created[i]!
  }

  owner(i: number): string {
    return this.e.people[this.words[i * ROW_WORDS + 1]!]!
  }

  assignee(i: number): string {
    return this.e.people[this.words[i * ROW_WORDS + 2]!]!
  }

  leaseEnd(i: number): number {
    return this.leaseEnds[i]!
  }

  parentRow(i: number): number {
    return this.words[i * ROW_WORDS + 3]!
  }

  parent(i: number): string {
    return this.e.parents[String(i)] ?? ''
  }

  leaseText(i: number): string {
    if (!this.leaseTexts) {
      // Only rows with a lease: the canonical ones from their number, any other text as stored.
      const texts = new Map<number, string>()
      for (let k = 0; k + 1 < this.e.leases.length; k += 2) texts.set(this.e.leases[k]!, new Date(this.e.leases[k + 1]!).toISOString())
      for (const [at, text] of Object.entries(this.e.leaseText)) texts.set(Number(at), text)
      this.leaseTexts = texts
    }
    return this.leaseTexts.get(i) ?? ''
  }
}

interface Line {
  task: IndexedTask
  children: readonly string[]
  dependents: readonly string[]
}

function idList(text: string): readonly string[] {
  return text ? text.split(' ') : NO_IDS
}

function parseLine(text: string): Line {
  const f = text.split('\t')
  if (f.length !== 9) throw damaged(`a line with ${f.length} fields`)
  const [id, status, shard, dir, parent, deps, children, dependents, data] = f as [string, string, string, string, string, string, string, string, string]
  let task: IndexedTask
  if (data[0] === '!') {
    let error: string
    try {
      error = JSON.parse(data.slice(1)) as string
    } catch {
      throw damaged(`the line of ${id}`)
    }
    task = IndexedTask.broken(id, shard, dir, error)
  } else {
    task = new IndexedTask(id, shard, dir, status, parent, idList(deps), data, undefined)
  }
  return {task, children: idList(children), dependents: idList(dependents)}
}

/** Tasks read from git and held in memory, with tables computed from them. */
function memoryBase(tasks: Map<string, IndexedTask>): TaskBase {
  return {tasks, tables: new ScannedTables(tasks)}
}

const EMPTY_BASE: TaskBase = memoryBase(new Map())

/**
 * Read the cache file, and the delta beside it when it continues this very
 * file (see writeIndexDelta); null when the file is absent, of another
 * version or list, or torn. A delta that is missing, stale (written for
 * another version of the file), damaged or torn is ignored: the index is
 * then the file's alone, brought forward from its commit as before.
 */
export function readCachedIndex(commonDir: string, list: string): TaskIndex | null {
  const read = IndexFile.read(cachePath(commonDir, list), list)
  if (!read) return null
  const plain: TaskIndex = {...read.header, base: read.file, changes: new Map()}
  fileCommits.set(read.file, read.header.commit)
  const delta = readIndexDelta(commonDir, list, read.file, read.header.commit)
  if (!delta) return plain
  deltaFallback.set(delta, plain)
  return delta
}

/**
 * The delta file (`<common-dir>/git-tasks/delta-<list>`): what a command
 * learnt by bringing the cache file forward (the changed tasks, at most
 * persistAfterChanges of list-store.ts, and the header of the commit it
 * reached), so the next command starts from that commit instead of
 * replaying the same commits again. Rewriting the 48 MB file for a few
 * changes would cost far more. Format (text):
 *   git-tasks index 9 delta <commit of the cache file it continues>
 *   {JSON: IndexHeader of the commit reached, `removed` ids, `absent`: the changed ids the cache file has no line for (optional), `count` and `bytes` of the lines, `sum`: SHA-1 of the lines}
 *   <one line per changed task, as in the cache file, with sub-items and dependents left empty>
 * Keyed by the cache file's commit: every version of the cache file for one
 * commit holds the same tasks, so a delta continues any of them, and one
 * written for another version is stale and ignored. Written by rename, last
 * writer wins; each version is complete and correct for the commit it names.
 */
export function deltaPath(commonDir: string, list: string): string {
  // Not `index-<list>.…`: a list may be named `x.delta`.
  return join(commonDir, 'git-tasks', `delta-${list}`)
}

/** The commit each cache file read describes (for the delta written on top of it). */
const fileCommits = new WeakMap<IndexFile, string>()
/** For an index read with its delta: the cache file alone (used when the delta's trees are gone from the repository). */
const deltaFallback = new WeakMap<TaskIndex, TaskIndex>()
/** A delta larger than this is not read (it never is: it holds a few changed tasks). */
const MAX_DELTA_BYTES = 8 * 1024 * 1024

function deltaMagic(baseCommit: string): string {
  return `${MAGIC} delta ${baseCommit}`
}

function readIndexDelta(commonDir: string, list: string, file: IndexFile, baseCommit: string): TaskIndex | null {
  try {
    const buf = readFileSync(deltaPath(commonDir, list))
    if (buf.length > MAX_DELTA_BYTES) return null
    const nl1 = buf.indexOf(NL)
    if (nl1 === -1 || buf.toString('utf8', 0, nl1) !== deltaMagic(baseCommit)) return null
    const nl2 = buf.indexOf(NL, nl1 + 1)
    if (nl2 === -1) return null
    const header = JSON.parse(buf.toString('utf8', nl1 + 1, nl2)) as IndexHeader & {removed: string[]; absent?: unknown[]; count: number; bytes: number; sum: string}
    const body = buf.subarray(nl2 + 1)
    if (header.list !== list || typeof header.commit !== 'string' || !Array.isArray(header.removed) || !Array.isArray(header.strays) || typeof header.shards !== 'object' || header.shards === null) return null
    if (body.length !== header.bytes || createHash('sha1').update(body).digest('hex') !== header.sum) return null
    const changes = new Map<string, IndexedTask | null>()
    const text = body.toString('utf8')
    let ls = 0
    while (ls < text.length) {
      const nl = text.indexOf('\n', ls)
      if (nl === -1) return null
      const {task} = parseLine(text.slice(ls, nl))
      if (!isStoredId(task.id) || changes.has(task.id)) return null
      changes.set(task.id, task)
      ls = nl + 1
    }
    if (changes.size !== header.count) return null
    for (const id of header.removed) {
      if (typeof id !== 'string' || !isStoredId(id) || changes.has(id)) return null
      changes.set(id, null)
    }
    // Which changed ids the cache file lacks (written since format 9's deltas gained it; older ones look each up).
    if (Array.isArray(header.absent)) {
      if (!header.absent.every((id) => typeof id === 'string' && changes.has(id))) return null
      file.notePresence(changes.keys(), new Set(header.absent as string[]))
    }
    const {removed, count, bytes, sum, absent, ...rest} = header
    return {...rest, base: file, changes}
  } catch {
    // Missing, unreadable or damaged: only a shortcut, so the cache file alone is used.
    return null
  }
}

/**
 * Write the delta for `index` when it is the cache file plus a few changes
 * (the cache file is rewritten instead when it drifted further, by the
 * caller); failures are ignored.
 */
export function writeIndexDelta(commonDir: string, index: TaskIndex): void {
  const baseCommit = index.base instanceof IndexFile ? fileCommits.get(index.base) : undefined
  if (baseCommit === undefined || baseCommit === index.commit) return
  try {
    const lines: string[] = []
    const removed: string[] = []
    // The changed ids the cache file has no line for, so the next command's overlay need not look each one up.
    // This process knows nearly all of them already (its own overlay asked, or the delta it read said).
    const absent: string[] = []
    const cacheFile = index.base as IndexFile
    for (const [id, t] of index.changes) {
      if (t === null) removed.push(id)
      else lines.push(`${id}\t${t.statusText}\t${t.shard}\t${t.dir}\t${t.parentText}\t${t.deps.join(' ')}\t\t\t${t.data()}\n`)
      if (!cacheFile.has(id)) absent.push(id)
    }
    const body = Buffer.from(lines.join(''))
    const {base, changes, ...header} = index
    const head = JSON.stringify({...header, removed, absent, count: lines.length, bytes: body.length, sum: createHash('sha1').update(body).digest('hex')})
    const file = deltaPath(commonDir, index.list)
    const tmp = `${file}.${process.pid}.tmp`
    try {
      writeFileSync(tmp, Buffer.concat([Buffer.from(`${deltaMagic(baseCommit)}\n${head}\n`), body]))
      renameSync(tmp, file)
    } catch (error) {
      rmSync(tmp, {force: true})
      throw error
    }
  } catch {
    // Only a shortcut: the next command brings the cache file forward itself.
  }
}

/**
 * The list section (list-section.ts) of the file being written: `ids` its
 * lines, `lengths` each line's byte length (newline included), `open` the
 * open rows. Lines copied from the old file (not `touched`) keep their
 * status, parent and dependencies from the old file's section, only
 * renumbered; the others are read from the tasks; sub-items follow from
 * the parents. The open rows the old file had keep their records, and its
 * finished rows their order, with the changed ones merged in.
 */
function encodeListSection(
  snap: Snapshot,
  open: OpenRows,
  ids: readonly string[],
  lengths: Int32Array,
  old: IndexFile | undefined,
  changes: ReadonlyMap<string, IndexedTask | null>,
  touched: ReadonlySet<string> | undefined,
): {bytes: Buffer; meta: ListSectionMeta} {
  const n = ids.length
  // The line of an id: a binary search when only the few lines not carried forward ask, a map when most
  // lines are made afresh (a cold build, a file far behind).
  let lineMap: Map<string, number> | undefined
  if (!old || changes.size > n / 64) {
    lineMap = new Map()
    for (let l = 0; l < n; l++) lineMap.set(ids[l]!, l)
  }
  const lineOr = (id: string, none: number): number => {
    if (lineMap) return lineMap.get(id) ?? none
    const l = lowerBoundOf(ids, id)
    return l < n && ids[l] === id ? l : none
  }
  // The old file's section (as words), and each old line's new number (-1: gone).
  type Prev = {m: ListSectionMeta; sec: Uint8Array; u32: Uint32Array; i32: Int32Array; f64: Float64Array; remap: Int32Array; layout: ReturnType<typeof sectionLayout>}
  let prev: Prev | undefined
  const oldLineOf = new Int32Array(n).fill(-1)
  if (old) {
    const m = old.listMeta
    const layout = sectionLayout(m)
    const ab = new ArrayBuffer(layout.end)
    old.readListSection(Buffer.from(ab), 0, layout.end, 0)
    // The new lines are the old ones less the removed tasks, plus the added ones: each old line moves by the
    // number added before it less the number removed before it (a binary search a change, not a pass over ids).
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
    prev = {m, layout, sec: new Uint8Array(ab), u32: new Uint32Array(ab), i32: new Int32Array(ab), f64: new Float64Array(ab), remap}
  }
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
  const status = new Uint8Array(n)
  const parents = new Int32Array(n).fill(-1)
  /** Dependencies and sub-items as lines, flat, with where each line's start. */
  const depAt = new Int32Array(n + 1)
  const deps: number[] = []
  for (let l = 0; l < n; l++) {
    depAt[l] = deps.length
    let done = false
    const o = oldLineOf[l]!
    if (prev && o >= 0 && touchedLine[l] === 0) {
      // Copied as it was: renumber what the old section says (unless a line number was missing there).
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
        // A line number missing there (a dangling parent or dependency) may have come since: read again.
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
  // Sub-items: the readable lines naming each line as their parent, in id (line) order, as `children` lists them.
  const kidAt = new Int32Array(n + 1)
  for (let l = 0; l < n; l++) if (parents[l]! >= 0 && status[l] !== BROKEN) kidAt[parents[l]! + 1]!++
  for (let l = 0; l < n; l++) kidAt[l + 1]! += kidAt[l]!
  const kids = new Int32Array(kidAt[n]!)
  const kidFill = kidAt.slice(0, n)
  for (let l = 0; l < n; l++) if (parents[l]! >= 0 && status[l] !== BROKEN) kids[kidFill[parents[l]!]!++] = l

  // Open rows in their order: a row the old file had is its old record, renumbered.
  const cols = openRowColumns(open)
  const merged = open instanceof MergedOpenRows ? open : undefined
  const sameRows = prev !== undefined && old !== undefined && open === old.openRows()
  /** Per open row: its old record (-1: worked out again), its line. */
  const openOld = new Int32Array(cols.length).fill(-1)
  const openLine = new Int32Array(cols.length)
  for (let i = 0; i < cols.length; i++) {
    const b = !prev ? -1 : sameRows ? i : merged ? merged.baseRow(i) : -1
    let l = -1
    if (b >= 0 && b < prev!.m.open) {
      l = prev!.remap[prev!.u32[(prev!.layout.open + b * OPEN_RECORD) >> 2]!]!
      // The old record is this row's as it was, unless the task changed since (then it is worked out again).
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

  // Finished rows in listing order: the old file's, renumbered, without the changed ones, which are merged in.
  type Fin = {l: number; priority: number; date: number; time: number}
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
  const maxFinished = (prev ? prev.m.finished : 0) + added.length
  const finLine = new Int32Array(maxFinished)
  const finPriority = new Float64Array(maxFinished)
  const finDate = new Int32Array(maxFinished)
  const finTime = new Int32Array(maxFinished)
  let fins = 0
  const position = new Uint32Array(n).fill(NONE)
  for (let i = 0; i < cols.length; i++) position[openLine[i]!] = i
  const putFin = (l: number, priority: number, date: number, time: number): void => {
    position[l] = cols.length + fins
    finLine[fins] = l
    finPriority[fins] = priority
    finDate[fins] = date
    finTime[fins++] = time
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
        putFin(f.l, f.priority, f.date, f.time)
      }
      putFin(l, priority, date, time)
    }
  }
  for (; j < added.length; j++) putFin(added[j]!.l, added[j]!.priority, added[j]!.date, added[j]!.time)
  added = []

  // The extras, then the whole section in one buffer.
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
  const extras = {length: 4 * e, buf: Buffer.from(ex.buffer, ex.byteOffset, 4 * e)}
  const lineBytes = lineBytesOf(n)
  const meta0 = {n, open: cols.length, finished: fins, lineBytes, extrasBytes: extras.length, people: [''], sum: 0}
  const layout = sectionLayout(meta0)
  const ab = new ArrayBuffer(layout.end)
  const bytes = Buffer.from(ab)
  const u32 = new Uint32Array(ab)
  const i32 = new Int32Array(ab)
  const f64 = new Float64Array(ab)
  let offset = 0
  for (let l = 0; l < n; l++) {
    u32[l] = offset
    offset += lengths[l]!
  }
  u32[n] = offset
  u32.set(extrasAt, n + 1)
  bytes.set(status, 8 * n + 4)
  // Short ids: one more than what the id shares with either neighbour (shortIdBetween), at least the shortest.
  let before = 0
  for (let l = 0; l < n; l++) {
    const a = ids[l]!
    const o = oldLineOf[l]!
    // Its neighbours and itself as they were in the old file: the old short id, and what it shares after.
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
  extras.buf.copy(bytes, layout.extras, 0, extras.length)
  // People in the order they first appear in the open rows (so a file brought forward equals a cold build's).
  const people = meta0.people
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
  for (let k = 0; k < fins; k++) {
    const r = (layout.finished + k * FINISHED_RECORD) >> 2
    u32[r] = finLine[k]!
    i32[r + 1] = finDate[k]!
    i32[r + 2] = finTime[k]!
    f64[(r >> 1) + 2] = finPriority[k]!
  }
  return {bytes, meta: {...meta0, sum: sectionCrc(bytes)}}
}

/**
 * Sort finished rows by (status, priority, creation time, line) as one
 * 64-bit number each (the engine's sort, no callback a comparison): status
 * and priority, the creation date less the earliest, the time of day, the
 * line. False (nothing done) when a priority is not one digit, a creation
 * time is not written the usual way, or the numbers do not fit.
 */
function sortFinishedByNumber(rows: Array<{l: number; priority: number; date: number; time: number}>, status: Uint8Array): boolean {
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

/** Write all of `buf` at `position` of the open file `fd`. */
function writeAll(fd: number, buf: Uint8Array, position: number): void {
  for (let done = 0; done < buf.length; ) done += writeSync(fd, buf, done, buf.length - done, position + done)
}

const NEWLINE = Buffer.from('\n')
/** Bytes of the lines copied at a time from their file into the cache file. */
const COPY_CHUNK = 1024 * 1024

/** Write the index as the cache file (every task, with its reverse edges); failures are ignored. */
export function writeCachedIndex(commonDir: string, index: TaskIndex, snap: Snapshot = snapshotOf(index)): void {
  const file = cachePath(commonDir, index.list)
  try {
    const tables = tablesOf(snap)
    // Lines of the old file whose task, sub-items and dependents are unchanged are copied as they are.
    const old = index.base instanceof IndexFile ? index.base : undefined
    const touched = old ? touchedBy(old, index.changes) : undefined
    const ids = tables.sortedIds()
    const lengths = new Int32Array(ids.length)
    /** A task's line (it ends with its only newline: no field holds one). */
    const lineOf = (id: string): string => {
      const same = old && !touched!.has(id) ? old.rawLine(id) : undefined
      if (same !== undefined) return same
      const t = snap.tasks.get(id) as IndexedTask
      return `${id}\t${t.statusText}\t${t.shard}\t${t.dir}\t${t.parentText}\t${t.deps.join(' ')}\t${tables.children(id).join(' ')}\t${tables.dependents(id).join(' ')}\t${t.data()}\n`
    }
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    const tmp = `${file}.${process.pid}.tmp`
    const bodyTmp = `${file}.${process.pid}.lines.tmp`
    // The lines go to a file of their own first, each made once, a batch at a time: the header before
    // them records their sizes and the line directory (every DIRECTORY_EVERY-th line's id and offset), and
    // holding them all until the header is known would keep another copy of the body (~43 MB at 100,000
    // tasks) at the peak of a cold build. The header and the list section are then written, and the lines
    // copied after them.
    const dirIds: string[] = []
    const dirAt: number[] = []
    let bytes = 0
    const fd = openSync(tmp, 'w')
    let bodyFd = -1
    try {
      bodyFd = openSync(bodyTmp, 'w+')
      for (let i = 0; i < ids.length; i += WRITE_BATCH) {
        let text = ''
        for (let j = i; j < Math.min(i + WRITE_BATCH, ids.length); j++) text += lineOf(ids[j]!)
        const buf = Buffer.from(text)
        // Each line's byte length and offset, found in the batch's bytes (no byte count a line).
        let at = 0
        for (let j = i; j < Math.min(i + WRITE_BATCH, ids.length); j++) {
          if (j % DIRECTORY_EVERY === 0) {
            dirIds.push(ids[j]!)
            dirAt.push(bytes + at)
          }
          const end = buf.indexOf(NL, at)
          if (end === -1) throw new Error(`index cache line of ${ids[j]} has no end`)
          lengths[j] = end + 1 - at
          at = end + 1
        }
        if (at !== buf.length) throw new Error('index cache lines hold a newline of their own')
        writeAll(bodyFd, buf, bytes)
        bytes += buf.length
      }
      const directory = JSON.stringify({ids: dirIds.join(' '), at: dirAt})
      const {base, changes, ...header} = index
      const queue = tables.nextQueue().join(' ')
      const byKey = (m: ReadonlyMap<string, readonly string[]>) => JSON.stringify(Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))
      const reserved = byKey(tables.reservations())
      const claims = byKey(tables.claims())
      // Made once: a snapshot without store tables (a cold build) works the open rows out on every call.
      const openRows = tables.openRows()
      const open = JSON.stringify(encodeOpenRows(openRows))
      const leases = JSON.stringify(tables.leases())
      const list = encodeListSection(snap, openRows, ids, lengths, old, index.changes, touched)
      const sizes = {listBytes: list.bytes.length, listSection: list.meta, leasesBytes: Buffer.byteLength(leases), count: ids.length, bytes, queueBytes: Buffer.byteLength(queue), reservedBytes: Buffer.byteLength(reserved), claimsBytes: Buffer.byteLength(claims), openBytes: Buffer.byteLength(open), directoryBytes: Buffer.byteLength(directory)}
      const head = Buffer.from(`${MAGIC}\n${JSON.stringify({...header, ...sizes})}\n${queue}\n${reserved}\n${claims}\n${open}\n${leases}\n${directory}\n`)
      writeAll(fd, head, 0)
      writeAll(fd, list.bytes, head.length)
      writeAll(fd, NEWLINE, head.length + list.bytes.length)
      let copied = 0
      const chunk = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(bytes, 1)))
      const into = head.length + list.bytes.length + 1
      while (copied < bytes) {
        const n = readSync(bodyFd, chunk, 0, Math.min(chunk.length, bytes - copied), copied)
        if (n === 0) throw new Error(`index cache lines end at ${copied} of ${bytes} bytes`)
        writeAll(fd, chunk.subarray(0, n), into + copied)
        copied += n
      }
      closeSync(fd)
    } catch (error) {
      closeSync(fd)
      rmSync(tmp, {force: true})
      throw error
    } finally {
      if (bodyFd !== -1) closeSync(bodyFd)
      rmSync(bodyTmp, {force: true})
    }
    renameSync(tmp, file)
  } catch {
    // The cache is an optimisation; a read-only git dir must not fail a read.
  }
}

/**
 * After this process committed `commit` on top of `from` (the index it
 * loaded) with the objects it wrote (`written`, by id): the index at
 * `commit`, brought forward from `from` by the same catch-up as any other
 * (reading the new commit, trees and cards from `written`, and anything
 * else, such as the old shard trees, through `reader`, which keeps the trees
 * the edit read), written as the delta when it holds at most `maxChanges`
 * changes. The next command then starts at the tip, with nothing to catch
 * up. Failures are ignored (the next command catches up itself).
 */
export async function writeDeltaAfterCommit(
  commonDir: string,
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  from: TaskIndex,
  commit: string,
  written: ReadonlyMap<string, GitObject>,
  maxChanges: number,
): Promise<void> {
  if (!(from.base instanceof IndexFile) || !fileCommits.has(from.base)) return
  const read = async (name: string, limit = Number.POSITIVE_INFINITY): Promise<GitObject | null> => {
    const o = written.get(name)
    if (!o) return reader.read(name, limit)
    return o.size > limit ? {oid: o.oid, type: o.type, size: o.size, content: NO_ENTRIES, oversized: true} : o
  }
  const local = {
    read,
    readType: async (name: string, type: string, limit?: number): Promise<GitObject> => {
      const o = await read(name, limit)
      if (!o || o.type !== type) throw new Error(`${name} is not a ${type}`)
      return o
    },
    prefetch: () => undefined,
  } as unknown as ObjectReader
  try {
    const index = await updateIndex(local, algorithm, from.list, commit, from)
    if (index.changes.size <= maxChanges) writeIndexDelta(commonDir, index)
  } catch {
    // Only a shortcut.
  }
}

/** Ids whose line changes with `changes`: the changed tasks and every parent or dependency they had or have. */
function touchedBy(file: IndexFile, changes: ReadonlyMap<string, IndexedTask | null>): Set<string> {
  const touched = new Set<string>()
  for (const [id, now] of changes) {
    touched.add(id)
    for (const t of [file.get(id), now]) {
      if (!t) continue
      if (t.parentText) touched.add(t.parentText)
      for (const dep of t.deps) touched.add(dep)
    }
  }
  return touched
}

/**
 * Bring `cached` (or nothing) up to `commit`. Reads are issued level by level
 * and pipelined through the batch reader.
 */
export async function updateIndex(
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  list: string,
  commit: string,
  cached: TaskIndex | null,
  progress?: IndexProgress,
): Promise<TaskIndex> {
  const from = cached && cached.list === list ? cached : null
  if (from && from.commit === commit) return from
  const commitObj = await reader.readType(commit, 'commit')
  const rootTree = decodeCommit(commitObj.content).tree
  if (from && from.rootTree === rootTree) return {...from, commit}

  const root = decodeTree((await reader.readType(rootTree, 'tree')).content, algorithm)
  const byName = new Map(root.map((e) => [e.name, e]))
  const warnings: string[] = []

  const metaBlob = byName.get(META_PATH)?.oid ?? null
  if (!metaBlob) throw new EnvironmentError('bad_store', `the tasks ref ${commit.slice(0, 12)} has no ${META_PATH}; it is not a git-tasks list`)
  if (!from || from.metaBlob !== metaBlob) {
    const meta = readSmallFile(await reader.read(metaBlob, MAX_FILE_BYTES), parseMeta)
    if (!meta.ok) throw new EnvironmentError('bad_store', `${META_PATH} on the tasks ref is broken: ${meta.error}`)
    if (meta.value.format > FORMAT_VERSION) {
      throw new EnvironmentError('newer_format', `this list uses store format ${meta.value.format}, newer than this git-tasks understands (${FORMAT_VERSION}); upgrade git-tasks`, {
        format: meta.value.format,
        supported: FORMAT_VERSION,
      })
    }
  }

  const configBlob = byName.get(CONFIG_PATH)?.oid ?? null
  let config: ListConfig = from?.config ?? DEFAULT_CONFIG
  if (!from || from.configBlob !== configBlob) {
    config = {...DEFAULT_CONFIG}
    if (configBlob) {
      const parsed = readSmallFile(await reader.read(configBlob, MAX_FILE_BYTES), parseConfig)
      if (parsed.ok) config = parsed.value
      else warnings.push(`${CONFIG_PATH}: ${parsed.error}; using defaults`)
    }
  } else {
    warnings.push(...from.warnings)
  }

  const tasksEntry = byName.get(TASKS_DIR)
  const tasksTree = tasksEntry?.mode === TREE_MODE ? tasksEntry.oid : null
  const header = {list, commit, rootTree, tasksTree, metaBlob, configBlob, config, warnings}
  if (from && from.tasksTree === tasksTree) return {...header, shards: from.shards, strays: from.strays, base: from.base, changes: from.changes}
  if (!tasksTree) {
    const strays: Stray[] = tasksEntry ? [{path: TASKS_DIR, error: `${TASKS_DIR} is ${describeMode(tasksEntry.mode)}, not a directory of task shards`}] : []
    return {...header, shards: {}, strays, base: EMPTY_BASE, changes: new Map()}
  }

  const shards: Record<string, string> = {}
  const strays: Stray[] = []
  for (const e of decodeTree((await reader.readType(tasksTree, 'tree')).content, algorithm)) {
    if (e.mode === TREE_MODE && SHARD_RE.test(e.name)) shards[e.name] = e.oid
    else if (SHARD_RE.test(e.name)) strays.push({path: `${TASKS_DIR}/${e.name}`, error: `${TASKS_DIR}/${e.name} is ${describeMode(e.mode)}, not a shard directory`})
    else strays.push({path: `${TASKS_DIR}/${e.name}`, error: `${TASKS_DIR}/${e.name} is not a shard directory (two hex digits); ignored`})
  }
  // From the index given; when that was the cache file with its delta and the delta's trees are gone
  // from the repository, from the cache file alone.
  for (let start = from; start; start = deltaFallback.get(start) ?? null) {
    const changed = await changesBetween(reader, algorithm, start, shards, progress)
    if (changed === 'cold') break
    if (changed) return {...header, shards, strays: [...strays, ...changed.strays], base: start.base, changes: changed.changes}
  }
  // Nothing to start from (or its trees are gone, or most of the list changed): read every task.
  const tasks = new Map<string, IndexedTask>()
  const names = Object.keys(shards).sort()
  // Whether git can buffer a large read (readCards) is asked now, and answered while the shard trees are read,
  // when the list looks large: BULK_READS cards or more fill all 256 shards (an empty one is left ~8% of the
  // time at 2,048). A smaller list never asks, unless readCards finds it has that many cards after all.
  if (reader.cwd && names.length === 256) void batchCommandSupported(reader.cwd)
  const trees = await Promise.all(names.map((name) => reader.readType(shards[name]!, 'tree')))
  const reads: Array<{shard: string; entry: TreeEntry}> = []
  names.forEach((shard, i) => {
    const {cards, strays: found} = readShard(shard, trees[i]!.content, algorithm)
    strays.push(...found)
    for (const entry of cards) reads.push({shard, entry})
  })
  // Every card's id, once: a parent or dependency read from a card is kept as this string instead of a piece of
  // the card's text, which would keep the whole text alive as long as the index (a third of the cards name one).
  const known = new Map<string, string>()
  for (const r of reads) known.set(r.entry.name, r.entry.name)
  await readCards(reader, algorithm, reads, (t) => void tasks.set(t.id, t), progress, known)
  return {...header, shards, strays, base: memoryBase(tasks), changes: new Map()}
}

const SHARD_RE = /^[0-9a-f]{2}$/
const SHARD_PATH_RE = new RegExp(`^${TASKS_DIR}/[0-9a-f]{2}$`)
const NO_ENTRIES = Buffer.alloc(0)
/** Cards changed since the cache file up to which a catch-up prefetches each card's file with its directory. */
const PREFETCH_CARDS = 256

/**
 * Cards read at once at or above which they go through a `git cat-file` of
 * their own that buffers its answers (ObjectReader's `batchCommand`: git
 * 2.36 or later); below, through the command's own reader. At 100,000 tasks
 * a cold build took 0.4–2.1 s less in five interleaved pairs (8.6–10.2 s
 * against 9.7–11.6 s). `TASKS_INDEX_BULK_READS` sets another threshold (the
 * tests read a small list both ways).
 */
const BULK_READS = 2048

/** Reads at or above which a pass over many objects uses a buffered reader of its own (BULK_READS, or the env's). */
export function bulkReads(): number {
  const v = Number(process.env.TASKS_INDEX_BULK_READS)
  return Number.isSafeInteger(v) && v > 0 ? v : BULK_READS
}

/** Read the cards of `reads`, each to `keep` as it comes (many through a buffered reader of their own: see BULK_READS). */
async function readCards(
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  reads: ReadonlyArray<{shard: string; entry: TreeEntry}>,
  keep: (t: IndexedTask) => void,
  progress?: IndexProgress,
  known?: ReadonlyMap<string, string>,
): Promise<void> {
  const bulk = reads.length >= bulkReads() && reader.cwd && (await batchCommandSupported(reader.cwd)) ? new ObjectReader(reader.cwd, true) : null
  try {
    await inWindow(reads, ({shard, entry}) => readTaskDir(bulk ?? reader, algorithm, shard, entry, known), keep, progress)
  } finally {
    bulk?.close()
  }
}

/** Told how many task directories of how many have been read (called every READ_WINDOW reads and at the end). */
export type IndexProgress = (done: number, total: number) => void

/**
 * Task directories read at once. The batch reader pipelines them; a window
 * keeps the requests, promises and answers in flight bounded whatever the
 * number of tasks, so memory grows with the tasks kept, not with the reads.
 */
const READ_WINDOW = 1024

/** Run `read` over `items` with at most READ_WINDOW in flight; `keep` takes each result as it arrives. */
export async function inWindow<T, R>(items: readonly T[], read: (item: T) => Promise<R>, keep: (result: R) => void, progress?: IndexProgress): Promise<void> {
  let next = 0
  let done = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      keep(await read(items[next++]!))
      if (++done % READ_WINDOW === 0) progress?.(done, items.length)
    }
  }
  await Promise.all(Array.from({length: Math.min(READ_WINDOW, items.length)}, worker))
  if (items.length > 0) progress?.(items.length, items.length)
}

/** What a tree entry of this mode is, in words. */
function describeMode(mode: string): string {
  switch (mode) {
    case TREE_MODE:
      return 'a directory'
    case FILE_MODE:
    case '100755':
      return 'a file'
    case '120000':
      return 'a symbolic link'
    case '160000':
      return 'a submodule (gitlink)'
    default:
      return `an entry of mode ${mode}`
  }
}

/**
 * Split a shard's entries into cards (entries named by a task id that
 * belongs in this shard, whatever their type: a file there is a broken
 * card) and strays (everything else, reported by path and otherwise
 * ignored). A task directory in the wrong shard is a stray, so it can never
 * stand in for, or collide with, the card of the same id in its own shard.
 */
function classifyShard(shard: string, entries: readonly TreeEntry[]): {cards: TreeEntry[]; strays: Stray[]} {
  const cards: TreeEntry[] = []
  const strays: Stray[] = []
  for (const e of entries) {
    const path = `${TASKS_DIR}/${shard}/${e.name}`
    if (isStoredId(e.name) && shardOf(e.name) === shard) cards.push(e)
    else if (isStoredId(e.name)) strays.push({path, shard, error: `${path} is in the wrong shard (${e.name} belongs in ${TASKS_DIR}/${shardOf(e.name)}/); ignored`})
    else strays.push({path, shard, error: `${path} is not a task directory (the name is not a task id); ignored`})
  }
  return {cards, strays}
}

/** A shard's cards and strays; a malformed shard tree is itself a stray (its cards cannot be listed). */
function readShard(shard: string, content: Buffer, algorithm: HashAlgorithm): {cards: TreeEntry[]; strays: Stray[]} {
  let entries: TreeEntry[]
  try {
    entries = decodeTree(content, algorithm)
  } catch (error) {
    return {cards: [], strays: [{path: `${TASKS_DIR}/${shard}`, shard, error: (error as Error).message}]}
  }
  return classifyShard(shard, entries)
}

/** Read and parse a small file of the list (meta.yaml, config.yaml); an absent, non-blob, oversized or non-UTF-8 object is an error message. */
function readSmallFile<T>(obj: GitObject | null, parse: (text: string) => Parsed<T>): Parsed<T> {
  if (!obj) return {ok: false, error: 'the object is missing from the repository'}
  if (obj.type !== 'blob') return {ok: false, error: `it is a ${obj.type}, not a file`}
  const text = fileText(obj)
  return text.ok ? parse(text.value) : text
}

/**
 * The changes from `from`'s base to the new shard trees: `from`'s own changes
 * plus, for each shard whose tree id moved, the task directories added,
 * changed or removed between its old and new tree, and the strays of every
 * shard (kept from `from` for shards that did not move). Null when an old
 * tree is no longer in the repository; 'cold' when there are more cards to
 * read than `from` holds (the caller reads the whole list instead).
 */
async function changesBetween(
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  from: TaskIndex,
  shards: Record<string, string>,
  progress?: IndexProgress,
): Promise<{changes: Map<string, IndexedTask | null>; strays: Stray[]} | 'cold' | null> {
  const moved = new Set<string>()
  for (const [name, oid] of Object.entries(shards)) if (from.shards[name] !== oid) moved.add(name)
  for (const name of Object.keys(from.shards)) if (!(name in shards)) moved.add(name)
  const names = [...moved].sort()
  /** A shard's tree (empty: no such shard); null: missing from the repository. */
  const contentOf = async (oid: string | undefined): Promise<Buffer | null> => {
    if (!oid) return NO_ENTRIES
    const o = await reader.read(oid)
    return o && o.type === 'tree' ? o.content : null
  }
  /** A shard's entries; a Buffer: the tree does not decode (its content, for readShard's report). */
  const entriesOf = (content: Buffer): TreeEntry[] | Buffer => {
    try {
      return decodeTree(content, algorithm)
    } catch {
      return content
    }
  }
  const [before, after] = await Promise.all([Promise.all(names.map((n) => contentOf(from.shards[n]))), Promise.all(names.map((n) => contentOf(shards[n])))])
  if (before.some((b) => b === null) || after.some((a) => a === null)) return null
  const strays = from.strays.filter((st) => st.shard !== undefined && !moved.has(st.shard))
  const changes = new Map(from.changes)
  const reads: Array<{shard: string; entry: TreeEntry}> = []
  for (let i = 0; i < names.length; i++) {
    const shard = names[i]!
    // Usual case: only the entries that differ are decoded (a shard of ~400 entries that moved by one
    // commit has one), and only those are classified. Not for a shard with strays, whose unchanged
    // entries must be known by name; nor for trees diffTrees declines: then both are decoded whole.
    const diff = from.strays.some((st) => st.shard === shard) ? null : diffTrees(before[i]!, after[i]!, algorithm)
    if (diff) {
      const fresh = classifyShard(shard, diff.changed.map((c) => c.entry))
      strays.push(...fresh.strays)
      for (const e of fresh.cards) reads.push({shard, entry: e})
      for (const e of classifyShard(shard, diff.removed).cards) changes.set(e.name, null)
      // A name that stopped being a card (now a stray): its old card is gone too.
      const cards = new Set(fresh.cards)
      for (const c of diff.changed) if (c.was && !cards.has(c.entry)) for (const o of classifyShard(shard, [c.was]).cards) changes.set(o.name, null)
      continue
    }
    const old = entriesOf(before[i]!)
    const now = entriesOf(after[i]!)
    if (Buffer.isBuffer(old) || Buffer.isBuffer(now)) {
      // Rare: classify both listings in full, as a cold build would.
      const was = Buffer.isBuffer(old) ? {cards: [], strays: []} : classifyShard(shard, old)
      const is = Buffer.isBuffer(now) ? readShard(shard, now, algorithm) : classifyShard(shard, now)
      const oldCards = new Map(was.cards.map((e) => [e.name, e.oid]))
      for (const e of is.cards) {
        if (oldCards.get(e.name) !== e.oid) reads.push({shard, entry: e})
        oldCards.delete(e.name)
      }
      for (const id of oldCards.keys()) changes.set(id, null)
      strays.push(...is.strays)
      continue
    }
    // Only entries that differ are classified (hashing each name to check its shard costs more
    // than the rest of a small catch-up); an unchanged entry keeps what it was.
    const oldByName = new Map(old.map((e) => [e.name, e]))
    const changed: TreeEntry[] = []
    const same = new Set<string>()
    for (const e of now) {
      const o = oldByName.get(e.name)
      if (o && o.oid === e.oid && o.mode === e.mode) same.add(e.name)
      else changed.push(e)
      oldByName.delete(e.name)
    }
    const prefix = `${TASKS_DIR}/${shard}/`
    for (const st of from.strays) if (st.shard === shard && same.has(st.path.slice(prefix.length))) strays.push(st)
    const fresh = classifyShard(shard, changed)
    strays.push(...fresh.strays)
    for (const e of fresh.cards) reads.push({shard, entry: e})
    const gone = classifyShard(shard, [...oldByName.values()])
    for (const e of gone.cards) changes.set(e.name, null)
    // A name that stopped being a card (now a stray): its old card is gone too.
    for (const e of changed) if (!fresh.cards.includes(e)) for (const c of classifyShard(shard, old.filter((o) => o.name === e.name)).cards) changes.set(c.name, null)
  }
  // More cards to read than the old index holds (a cache as old as `init`, then a large fetch or import):
  // reading the whole list afresh gives the same index for less work than carrying that many changes over
  // the old file, which every table and the cache writer would then read through the overlay.
  if (reads.length > PREFETCH_CARDS && reads.length > from.base.tasks.size) return 'cold'
  // A small catch-up asks for each card with its directory (one round trip, not two).
  if (reads.length <= PREFETCH_CARDS) for (const r of reads) if (r.entry.mode === TREE_MODE) reader.prefetch(`${r.entry.oid}:${TASK_FILE}`, MAX_FILE_BYTES)
  /** Ids this catch-up changed (the rest of `changes` are `from`'s own, already checked against the base when they came in). */
  const fresh = new Set<string>()
  for (const [id, t] of changes) if (t === null && from.changes.get(id) !== null) fresh.add(id)
  await readCards(
    reader,
    algorithm,
    reads,
    (t) => {
      changes.set(t.id, t)
      fresh.add(t.id)
    },
    progress,
  )
  // A change that restores the base's own entry is no change (each lookup in the base is a search of the cache file).
  for (const id of fresh) {
    const t = changes.get(id) as IndexedTask | null
    const b = from.base.tasks.get(id)
    if (t === null ? b === undefined : b !== undefined && b.dir === t.dir && b.shard === t.shard) changes.delete(id)
  }
  return {changes, strays}
}

/**
 * Read one card. Whatever is there, the answer is an entry: a readable
 * task, or a broken one saying what is wrong (not a directory, no task.md,
 * task.md a link, a submodule or a directory, a missing object, too large
 * to read, not UTF-8, not parseable, not valid, the wrong id). Nothing in a
 * card can stop the rest of the list from being read.
 */
async function readTaskDir(reader: ObjectReader, algorithm: HashAlgorithm, shard: string, entry: TreeEntry, known?: ReadonlyMap<string, string>): Promise<IndexedTask> {
  const id = entry.name
  const dirPath = `${TASKS_DIR}/${shard}/${id}`
  const broken = (error: string) => IndexedTask.broken(id, shard, entry.oid, error)
  if (entry.mode !== TREE_MODE) return broken(`${dirPath} is ${describeMode(entry.mode)}, not a task directory`)
  const dir = await reader.read(entry.oid)
  if (!dir || dir.type !== 'tree') return broken(`the directory ${dirPath} is missing from the repository`)
  let entries: TreeEntry[]
  try {
    entries = decodeTree(dir.content, algorithm)
  } catch (error) {
    return broken((error as Error).message)
  }
  const file = entries.find((e) => e.name === TASK_FILE)
  if (!file) return broken(`${dirPath} has no ${TASK_FILE}`)
  if (file.mode !== FILE_MODE && file.mode !== '100755') return broken(`${TASK_FILE} is ${describeMode(file.mode)}, not a file`)
  const obj = await reader.read(file.oid, MAX_FILE_BYTES)
  if (!obj || obj.type !== 'blob') return broken(`the content of ${TASK_FILE} is missing from the repository`)
  const text = fileText(obj)
  if (!text.ok) return broken(text.error)
  const parsed = parseTaskFile(text.value, id)
  if (!parsed.ok) return broken(parsed.error)
  // The line's JSON is made now and the parsed frontmatter let go: at 100,000 cards, holding every card's
  // fields as objects until the cache file is written costs more in garbage collection than decoding again
  // the ones a table needs.
  const meta = parsed.value.meta
  const idOf = (other: string) => known?.get(other) ?? other
  const deps = meta.depends_on.length === 0 ? NO_IDS : meta.depends_on.map(idOf)
  const t = new IndexedTask(id, shard, entry.oid, STATUS_TEXT_OF.get(meta.status) ?? meta.status, meta.parent === undefined ? '' : idOf(meta.parent), deps, encodeMeta(meta), undefined)
  if (isFinishedStatus(meta.status)) {
    const [date, time] = createdNumbers(meta.created_at)
    t.finishedOrder = {priority: meta.priority, date, time}
  }
  return t
}

/** Each status's text, once (not a copy a card). */
const STATUS_TEXT_OF: ReadonlyMap<string, Status> = new Map(STATUSES.map((st) => [st, st]))

/** The core's view of an index: the base read through the changes. */
export function snapshotOf(index: TaskIndex): Snapshot {
  const base: Snapshot = {list: index.list, commit: index.commit, config: index.config, tasks: index.base.tasks as ReadonlyMap<string, TaskEntry>, tables: index.base.tables}
  // A stray at a shard's own path is a shard that is not a readable directory: no new task can go there.
  const blocked = index.strays.filter((s) => SHARD_PATH_RE.test(s.path)).map((s) => s.path.slice(TASKS_DIR.length + 1))
  if (blocked.length > 0) base.blockedShards = new Set(blocked)
  return index.changes.size === 0 ? base : overlaySnapshot(base, index.changes, index.commit)
}

/**
 * The task entries that change when `files` (paths with their new content,
 * null: removed) are written over a tree: what reading the resulting tree
 * back would give, without reading it. A task file written is parsed from
 * its text, as readTaskDir would read it; an id whose task file is not
 * written with content (removed, or only its other files changed) is read
 * from `tree` with `readDir` (it may be gone, or left without its task file).
 * Null when a path under tasks/ is not inside a card directory in its own
 * shard (the caller then reads the tree the ordinary way). Entries are
 * keyed by id; null: no such task.
 */
export async function entriesAfterWrite(
  files: ReadonlyArray<{path: string; content: string | null}>,
  readDir: (shard: string, id: string) => Promise<IndexedTask | null>,
): Promise<Map<string, TaskEntry | null> | null> {
  const written = new Map<string, {shard: string; text: string | null | undefined}>()
  const prefix = `${TASKS_DIR}/`
  for (const f of files) {
    if (!f.path.startsWith(prefix)) continue
    const [shard, id, ...rest] = f.path.slice(prefix.length).split('/')
    if (!shard || !id || rest.length === 0 || !SHARD_RE.test(shard) || !isStoredId(id) || shardOf(id) !== shard) return null
    const seen = written.get(id) ?? {shard, text: undefined}
    if (rest.length === 1 && rest[0] === TASK_FILE) seen.text = f.content
    written.set(id, seen)
  }
  const out = new Map<string, TaskEntry | null>()
  await Promise.all(
    [...written].map(async ([id, {shard, text}]) => {
      if (typeof text !== 'string') {
        out.set(id, await readDir(shard, id))
        return
      }
      const content = Buffer.from(text, 'utf8')
      const path = `${TASKS_DIR}/${shard}/${id}/${TASK_FILE}`
      const read = fileText({size: content.length, content})
      const parsed = read.ok ? parseTaskFile(read.value, id) : read
      out.set(id, parsed.ok ? IndexedTask.fromMeta(id, shard, '', parsed.value.meta) : {id, path, error: parsed.error})
    }),
  )
  return out
}

/**
 * The card `id` as the index reads it, given the entries of its shard's tree
 * (null: the shard is absent or does not read as a tree: then it holds no
 * cards). Null when the shard has no entry of that name.
 */
export async function readCardIn(reader: ObjectReader, algorithm: HashAlgorithm, shardEntries: readonly TreeEntry[] | null, shard: string, id: string): Promise<IndexedTask | null> {
  const entry = shardEntries?.find((e) => e.name === id)
  return entry ? readTaskDir(reader, algorithm, shard, entry) : null
}
