/**
 * `list --json` of a whole list that takes in finished items (`--all`,
 * `--status done`, …), streamed from the index cache file without holding
 * the cards: the same bytes as building every view and `JSON.stringify`-ing
 * it, at a fraction of the cost.
 *
 * 1. The file's list section (src/refstore/list-section.ts, cache format
 *    9) gives where each line is, its status, its short id's length, and
 *    its parent, dependencies and sub-items as line numbers (read whole:
 *    ~10 bytes a task and the graph's edges), then the open rows in their
 *    order and the finished rows in listing order as fixed-width records,
 *    read a window at a time. No id, string or sort key is kept a task and
 *    nothing is sorted: the open rows are placed state by state (their
 *    state depends on the clock and the caller, so it is worked out here
 *    from each record), the finished rows as they come; top-level rows each
 *    followed by their listed sub-items, exactly as the listing of decoded
 *    cards orders them.
 * 2. Rows are produced a batch at a time as they are written: the batch's
 *    lines are read from the file in offset order (neighbouring lines in one
 *    read), and each row's JSON is put together from the JSON text of its
 *    frontmatter values as the file holds them (written by JSON.stringify,
 *    so each value's text is what JSON.stringify of the view would write)
 *    and the derived fields (short id, sub-items, wait reasons, state). A
 *    row that does not have the usual shape is viewed and stringified the
 *    ordinary way.
 *
 * Memory is a few bytes a task in typed arrays (the section's line part,
 * each row's rank and facts, the order) and a few batches, whatever the
 * size of the list. Tasks changed since the file (up to MAX_CHANGES) are
 * viewed through the snapshot, with the rows they affect; the open rows
 * they affect are merged into the file's by their keys.
 */
import {type State, claimLiveAt} from '../core/readiness'
import {OverlayTables} from '../core/overlay'
import {OPEN_ROW_WAITING, type OpenRow, type OpenRowColumns, type Snapshot, type TaskEntry, openRowColumns, tablesOf} from '../core/snapshot'
import {type ListConfig, TASK_KEYS} from '../core/task'
import type {TaskViewer} from '../core/task-view'
import {BROKEN, CANCELLED, DONE, FINISHED_RECORD, STATUS_TEXT, NONE, OPEN_RECORD, createdNumbers, sectionCrc, sectionLayout, statusCodeOf} from '../refstore/list-section'
import type {IndexFile} from '../refstore/task-index'
import {LONG_LIVED_PERSIST_AFTER} from '../refstore/list-store'

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

const TAB = 0x09
const QUOTE = 0x22
const COMMA = 0x2c
const BACKSLASH = 0x5c


/** Positions of the frontmatter values in the file's array (TASK_KEYS order). */
const K = Object.fromEntries(TASK_KEYS.map((k, i) => [k, i])) as Record<(typeof TASK_KEYS)[number], number>
/** The list-valued keys a view writes as [] when absent, and their keys in the view. */
const LISTS = (['collaborators', 'subscribers', 'notify_roles', 'notify_mute'] as const).map((k) => K[k])
/** The JSON text of fixed parts of a row. */
function bytesOf(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'latin1'))
}
const LIST_KEYS: Record<number, Uint8Array> = Object.fromEntries(LISTS.map((k) => [k, bytesOf(`,"${TASK_KEYS[k]}":`)]))
// The fixed parts of a row, in the order of TaskView's keys.
const OPEN_ID = bytesOf('{"id":')
const STATUS = bytesOf(',"status":')
const TAGS = bytesOf(',"tags":')
const PARENT = bytesOf(',"parent":')
const SUBITEMS = bytesOf(',"subitems":[')
const ID_SEPARATOR = bytesOf('","')
const DEPENDS_ON = bytesOf('],"depends_on":')
const BLOCKED_BY = bytesOf(',"blocked_by":[')
const OWNER = bytesOf(',"owner":')
const EPOCH = bytesOf(',"epoch":')
const CLAIMED_AT = bytesOf(',"claimed_at":')
const LEASE_EXPIRES = bytesOf(',"lease_expires":')
const FLAG = bytesOf(',"flag":')
const NULL = bytesOf('null')
const FLAG_REASON = bytesOf('{"reason":')
const FLAG_BY = bytesOf(',"by":')
const FLAG_AT = bytesOf(',"at":')
const CLOSE_OBJECT = bytesOf('}')
const BLOCK_NOTE = bytesOf(',"block_note":')
const CANCEL_REASON = bytesOf(',"cancel_reason":')
const CLOSED_AT = bytesOf(',"closed_at":')
const KEY = bytesOf(',"key":')
const EMPTY_LIST = bytesOf('[]')
const CREATED_AT = bytesOf(',"created_at":')
const CREATED_BY = bytesOf(',"created_by":')
const UPDATED_AT = bytesOf(',"updated_at":')
const UPDATED_BY = bytesOf(',"updated_by":')
const REVISION = bytesOf(',"revision":')
const SHORT_ID = bytesOf(',"short_id":"')
const TITLE = bytesOf('","title":')
const STATE = bytesOf(',"state":"')
const PRIORITY = bytesOf('","priority":')
const READY_TRUE = bytesOf('],"ready":true')
const READY_FALSE = bytesOf('],"ready":false')
const WAITING_TRUE = bytesOf(',"waiting":true,"assignee":')
const WAITING_FALSE = bytesOf(',"waiting":false,"assignee":')
const LIVE_TRUE = bytesOf(',"claim_live":true,"session":')
const LIVE_FALSE = bytesOf(',"claim_live":false,"session":')
const DEPTH_0 = bytesOf(',"depth":0}')
const DEPTH_1 = bytesOf(',"depth":1}')

/** Values a view always writes as they are: when one is null, the row is viewed the ordinary way. */
const REQUIRED = Int32Array.from((['id', 'title', 'status', 'priority', 'tags', 'depends_on', 'epoch', 'created_at', 'created_by', 'updated_at', 'updated_by', 'revision'] as const).map((k) => K[k]))

/** Lines read together when they lie this close in the file (one read instead of two). */
const READ_GAP = 8 * 1024
/**
 * Changes since the file beyond which the listing is not streamed (each one's rows are viewed the ordinary way):
 * as many as any process carries before it rewrites the file (persistAfterChanges, up to 317 at 100,000 tasks;
 * a long-lived one up to this), so a listing between two rewrites always streams.
 */
const MAX_CHANGES = LONG_LIVED_PERSIST_AFTER
/** Most rows `bytes` produces at once. */
const BATCH_MAX = 4096
/**
 * Most rows whose lines are read from the file together, for this and the
 * next batches the caller asks for. The lines lie in id order in the file,
 * not in listing order, so the more rows are read at once, the more of
 * their lines lie close enough to share a read: at 100,000 tasks (a 48 MB
 * file), batches of 2,000 rows took ~70,000 reads (~250 ms); groups of
 * 8,192 ~24,000 (~145 ms), for ~4 MB of lines held, the same at 10,000
 * tasks as at any larger size. (16,384 took ~110 ms, but holds 8 MB, more
 * than a list of 10,000 needs: the peak would grow with the list up to
 * there.) `TASKS_STREAM_GROUP_ROWS` sets another size (the tests use a few rows).
 */
const GROUP_MAX = 8192
/** Largest single read of neighbouring lines. */
const READ_MAX = 1 << 20

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
 * priority, …, created_at, created_by, updated_at, updated_by, revision);
 * null when the array does not have that usual shape (an `extra` object at
 * the end, a value missing), and the caller decodes it.
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
  // From the end: the revision (digits), then four strings back to created_at.
  const c = buf.lastIndexOf(COMMA, to - 2)
  if (c <= pc || c + 1 >= to - 1) return null
  for (let i = c + 1; i < to - 1; i++) if (buf[i]! < 0x30 || buf[i]! > 0x39) return null
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

/** The section's words are read as typed arrays, in the machine's byte order: little-endian, as written. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/**
 * The first eight tabs of the line buf[ls, le) into `out`; returns how many
 * were found. Four bytes a step through `view` (a DataView over `buf`, made
 * when not given) while none is a tab, the rest a byte at a time: a native
 * search costs more per call than it saves on these short fields, and a
 * tree id is 40 bytes.
 */
function findTabs(buf: Uint8Array, ls: number, le: number, out: Int32Array, view: DataView = viewOf(buf)): number {
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
      if (k === 8) return k
    }
  }
  return k
}

/** Write an ASCII string (an id, a state) into `o` at `p`. */
function putAscii(o: Buffer, p: number, text: string): number {
  for (let i = 0; i < text.length; i++) o[p++] = text.charCodeAt(i)
  return p
}

/** True when value k is the JSON null. */
function isNullAt(s: Buffer, v: Int32Array, k: number): boolean {
  return v[2 * k + 1]! - v[2 * k]! === 4 && s[v[2 * k]!] === 0x6e
}

/**
 * The fixed stretches of a row as programs of copy steps, run by `emit` in
 * one loop without a call per piece: a step k >= 0 copies frontmatter value
 * k, LIST_OR_EMPTY + k copies value k or `[]` when it is null, and a step
 * below zero copies fixed text ~step of TEXT.
 */
const LIST_OR_EMPTY = 1000
const textParts: Uint8Array[] = []
/** Program of a sequence of fixed texts (Uint8Array) and value steps (numbers). */
function program(...steps: Array<Uint8Array | number>): Int32Array {
  return Int32Array.from(steps, (step) => {
    if (typeof step === 'number') return step
    textParts.push(step)
    return ~(textParts.length - 1)
  })
}
const P_ID = program(OPEN_ID, K.id, SHORT_ID)
const P_TITLE = program(TITLE, K.title, STATUS, K.status, STATE)
const P_PRIORITY = program(PRIORITY, K.priority, TAGS, K.tags, PARENT, K.parent, SUBITEMS)
const P_DEPENDS = program(DEPENDS_ON, K.depends_on, BLOCKED_BY)
const P_OWNER = program(K.assignee, OWNER, K.owner, EPOCH, K.epoch, CLAIMED_AT, K.claimed_at, LEASE_EXPIRES, K.lease_expires)
const P_SESSION = program(K.session, FLAG)
const P_FLAG = program(FLAG_REASON, K.flag_reason, FLAG_BY, K.flagged_by, FLAG_AT, K.flagged_at, CLOSE_OBJECT)
const P_NULL = program(NULL)
const P_REST = program(
  BLOCK_NOTE,
  K.block_note,
  CANCEL_REASON,
  K.cancel_reason,
  CLOSED_AT,
  K.closed_at,
  KEY,
  K.key,
  ...LISTS.flatMap((k) => [LIST_KEYS[k]!, LIST_OR_EMPTY + k]),
  CREATED_AT,
  K.created_at,
  CREATED_BY,
  K.created_by,
  UPDATED_AT,
  K.updated_at,
  UPDATED_BY,
  K.updated_by,
  REVISION,
  K.revision,
)
const P_READY = [program(READY_FALSE), program(READY_TRUE)]
const P_WAITING = [program(WAITING_FALSE), program(WAITING_TRUE)]
const P_LIVE = [program(LIVE_FALSE), program(LIVE_TRUE)]
const P_DEPTH = [program(DEPTH_0), program(DEPTH_1)]
const P_ID_SEPARATOR = program(ID_SEPARATOR)
/** The text `[]`, for a list value that is null. */
const EMPTY_AT = ~program(EMPTY_LIST)[0]!
/** All fixed texts end to end, and where each starts (TEXT_AT[i] to TEXT_AT[i + 1]). */
const TEXT = new Uint8Array(textParts.reduce((n, t) => n + t.length, 0))
const TEXT_AT = new Int32Array(textParts.length + 1)
for (let i = 0, at = 0; i < textParts.length; i++) {
  TEXT.set(textParts[i]!, at)
  at += textParts[i]!.length
  TEXT_AT[i + 1] = at
}

/** The fixed texts as a DataView, for copying four bytes at a time. */
const TEXT_VIEW = new DataView(TEXT.buffer, TEXT.byteOffset, TEXT.byteLength)

/** A DataView over the bytes of `b`. */
function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength)
}

/**
 * Copy s[a, b) into o at `p` (od and sd: DataViews over o and s); returns
 * the position after. Four bytes a step through the DataViews, the rest one
 * by one: on Node 20, 2–3 times faster than a byte loop for the 16–60 bytes
 * of a title or a time, where a native copy's call costs more than the loop.
 */
function copyBytes(o: Uint8Array, od: DataView, p: number, s: Uint8Array, sd: DataView, a: number, b: number): number {
  for (; a + 4 <= b; a += 4, p += 4) od.setUint32(p, sd.getUint32(a, true), true)
  for (; a < b; a++) o[p++] = s[a]!
  return p
}

/**
 * Run program `prog` writing into `o` at `p` (od: a DataView over it), the
 * values' bytes taken from `s` (sd: its DataView) at the bounds in `v`;
 * returns the position after.
 */
function emit(o: Uint8Array, od: DataView, p: number, s: Uint8Array, sd: DataView, v: Int32Array, prog: Int32Array): number {
  for (let j = 0; j < prog.length; j++) {
    let step = prog[j]!
    if (step < 0) {
      p = copyBytes(o, od, p, TEXT, TEXT_VIEW, TEXT_AT[~step]!, TEXT_AT[~step + 1]!)
      continue
    }
    if (step >= LIST_OR_EMPTY) {
      step -= LIST_OR_EMPTY
      const a = v[2 * step]!
      if (v[2 * step + 1]! - a === 4 && s[a] === 0x6e) {
        p = copyBytes(o, od, p, TEXT, TEXT_VIEW, TEXT_AT[EMPTY_AT]!, TEXT_AT[EMPTY_AT + 1]!)
        continue
      }
    }
    p = copyBytes(o, od, p, s, sd, v[2 * step]!, v[2 * step + 1]!)
  }
  return p
}

/** A status code the list section does not have: a task removed since the file (for wait reasons, 'missing'). */
const MISSING = 6
/** Bits of a row's facts (`bits`): an open row, ready, its claim live, the table's waiting fact. */
const IS_OPEN = 1
const IS_READY = 2
const IS_LIVE = 4
const IS_WAITING = 8
/** Open rows read from the list section at once. */
const WINDOW_ROWS = 1024

/**
 * An open record of the list section as the columns `openRowStateAt`
 * reads (status, flags, priority, owner, assignee, lease end), over the
 * window of records the streamer has read: nothing made per row.
 */
class RecordColumns implements OpenRowColumns {
  length = 0
  buf: Buffer = Buffer.alloc(0)
  first = 0
  constructor(private readonly people: readonly string[]) {}
  private at(i: number): number {
    return (i - this.first) * OPEN_RECORD
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
}

/** A view of `length` 32-bit words at byte `at` of an ArrayBuffer (aligned by the section's layout). */
function u32At(buf: ArrayBuffer, at: number, length: number): Uint32Array {
  return new Uint32Array(buf, at, length)
}

/**
 * The listing, or null when the file does not read as expected (the caller
 * then lists the ordinary way).
 */
export function streamedListing(input: StreamInput): StreamedListing | null {
  const {file, statesByRank, notListed} = input
  const m = file.listMeta
  const n = file.size
  if (m.n !== n || input.changes.size > MAX_CHANGES || !LITTLE_ENDIAN) return null
  const layout = sectionLayout(m)
  // The line part and the extras, read whole (~10 bytes a task and the graph's edges); the open and finished
  // records a window at a time. Every byte goes through the section's CRC-32 before a row is written.
  let sum = 0
  const headBuf = new ArrayBuffer(layout.open)
  const head = Buffer.from(headBuf)
  file.readListSection(head, 0, layout.open, 0)
  sum = sectionCrc(head, sum)
  const offsets = u32At(headBuf, 0, n + 1)
  const extrasAt = u32At(headBuf, 4 * (n + 1), n)
  const shortLength = new Uint8Array(headBuf, 9 * n + 4, n)
  const extras = head.subarray(layout.extras, layout.extras + m.extrasBytes)
  const linesStart = file.linesStart
  const changes = input.changes
  /** Rows: the file's lines, then one for each changed task that exists (viewed through the snapshot). */
  const rows = n + changes.size
  const status = new Uint8Array(rows)
  status.set(new Uint8Array(headBuf, 8 * n + 4, n))
  for (let l = 0; l < n; l++) if (status[l]! > CANCELLED) return null
  const rank = new Uint8Array(rows).fill(notListed)
  const bits = new Uint8Array(rows)
  const viaView = new Uint8Array(rows)
  const firstRank = statesByRank.indexOf('done')

  let scratch = Buffer.allocUnsafe(READ_MAX)
  /** The bytes of line l (newline excluded) at the front of `scratch`; returns the length. */
  const readLine = (l: number): number => {
    const length = offsets[l + 1]! - offsets[l]! - 1
    if (scratch.length < length) scratch = Buffer.allocUnsafe(length)
    if (file.readBytes(scratch, 0, length, linesStart + offsets[l]!) !== length) throw new Error('the index cache file changed while being read')
    return length
  }
  const idAtLine = (l: number): string => {
    const length = readLine(l)
    const tab = scratch.indexOf(TAB)
    return scratch.toString('latin1', 0, tab === -1 || tab > length ? length : tab)
  }
  /** Extras of line l: its parent line (-1 none, -2 not a line), and where its dependencies and sub-items are. */
  const parentLineOf = (l: number): number => (extrasAt[l] === NONE ? -1 : extras.readInt32LE(extrasAt[l]!))

  // Changes since the file's commit. A changed task gets a row of its own, viewed through the snapshot (which
  // reads through the changes), as do the rows whose view they change: old and new parents (sub-items), the
  // neighbours in id order of a task added or removed (short ids), and every row whose open row a change can
  // affect. Statuses read below are the changed ones.
  /** The current row of each base line that changed (-1: removed). */
  const replaced = new Map<number, number>()
  /** The row of each changed id (-1: removed), its entry and where its id goes among the file's. */
  const changedRow = new Map<string, number>()
  const changedEntries: Array<{id: string; entry: TaskEntry; idPos: number; base: number}> = []
  let added = false
  for (const [id, entry] of changes) {
    const idPos = file.linePosition(id, offsets)
    const base = idPos < n && idAtLine(idPos) === id ? idPos : -1
    if (base !== -1) {
      const p = parentLineOf(base)
      if (p >= 0) viaView[p] = 1
      if (!entry) {
        if (base > 0) viaView[base - 1] = 1
        if (base + 1 < n) viaView[base + 1] = 1
        status[base] = MISSING
      }
    } else if (entry) {
      added = true
      if (idPos > 0) viaView[idPos - 1] = 1
      if (idPos < n) viaView[idPos] = 1
    }
    if (!entry) {
      changedRow.set(id, -1)
      if (base !== -1) replaced.set(base, -1)
      continue
    }
    const row = n + changedEntries.length
    changedEntries.push({id, entry, idPos, base})
    changedRow.set(id, row)
    if (base !== -1) replaced.set(base, row)
    const meta = entry.meta
    const code = meta ? statusCodeOf(meta.status) : BROKEN
    if (code < 0 || (meta && code === BROKEN)) return null
    status[row] = code
    if (base !== -1) status[base] = code
    viaView[row] = 1
  }
  /** The current row of base line l. */
  const cur = (l: number): number => (replaced.size > 0 ? (replaced.get(l) ?? l) : l)
  /** The row of `id`, or -1. */
  const rowOfId = (id: string): number => {
    const r = changedRow.get(id)
    if (r !== undefined) return r
    const at = file.linePosition(id, offsets)
    return at < n && idAtLine(at) === id ? at : -1
  }
  const idOf = (r: number): string => (r < n ? idAtLine(r) : changedEntries[r - n]!.id)
  /** The parent row of row r (-1: none, or not a row). */
  const parentRowOf = (r: number): number => {
    if (r >= n) return changedParent[r - n]!
    const p = parentLineOf(r)
    if (p >= 0) return cur(p)
    if (p === -1 || !added) return -1
    // A parent the file does not have may have been added since.
    const length = readLine(r)
    const at = new Int32Array(8)
    if (findTabs(scratch, 0, length, at) < 5) return -1
    return rowOfId(scratch.toString('latin1', at[3]! + 1, at[4]))
  }
  /** The changed rows by their parent's row now. */
  const changedKids = new Map<number, number[]>()
  /** The parent row now of each changed row. */
  const changedParent = new Int32Array(changedEntries.length).fill(-1)
  changedEntries.forEach((c, k) => {
    const parent = c.entry.meta?.parent
    if (parent === undefined) return
    const p = rowOfId(parent)
    changedParent[k] = p
    if (p === -1) return
    viaView[p] = 1
    const list = changedKids.get(p)
    if (list) list.push(n + k)
    else changedKids.set(p, [n + k])
  })

  // The open rows: the file's, less those a change can affect, with those rows as they are now merged in by
  // (priority, creation time, id). Each gets its rank (state, filters applied) and facts.
  let redone: readonly OpenRow[] = []
  const dropped = new Set<number>()
  for (const l of replaced.keys()) dropped.add(l)
  if (changes.size > 0) {
    const tables = tablesOf(input.snap)
    if (!(tables instanceof OverlayTables)) return null
    const r = tables.redoneOpenRows()
    redone = r.redone
    for (const id of r.affected) {
      const row = rowOfId(id)
      if (row === -1) continue
      viaView[row] = 1
      if (row < n) dropped.add(row)
      else if (changedEntries[row - n]!.base !== -1) dropped.add(changedEntries[row - n]!.base)
    }
  }
  const redoneCols = openRowColumns({rows: redone, finished: 0, broken: []})
  const redoneRows = redone.map((row) => rowOfId(row[0]))
  const redoneKeys = redone.map((row) => {
    const [date, time] = createdNumbers(row[3])
    return {priority: row[2], date, time}
  })
  if (redoneRows.includes(-1) || redoneKeys.some((k) => k.date < 0)) return null
  /** Where each row's id goes among the file's ids. */
  const idPosOf = (r: number): number => (r < n ? r : changedEntries[r - n]!.idPos)
  const readyOut = [false]
  /** Listed open rows in the merged order, and a sort key of each open row among them (kidsOf). */
  const openSeq = new Int32Array(m.open + redone.length)
  let openCount = 0
  const movedKey = new Map<number, number>()
  const place = (cols: OpenRowColumns, i: number, row: number): void => {
    const r = input.rankOf(cols, i, readyOut)
    if (r === notListed) return
    const st = cols.status(i)
    let b = IS_OPEN
    if (readyOut[0]) b |= IS_READY
    if (claimLiveAt(cols.owner(i), st, cols.leaseEnd(i), input.nowMs, input.config)) b |= IS_LIVE
    if ((cols.flags(i) & OPEN_ROW_WAITING) !== 0) b |= IS_WAITING
    rank[row] = r
    bits[row] = b
    openSeq[openCount++] = row
  }
  const window = Buffer.allocUnsafe(WINDOW_ROWS * Math.max(OPEN_RECORD, FINISHED_RECORD))
  const records = new RecordColumns(m.people)
  let j = 0
  for (let first = 0; first < m.open; first += WINDOW_ROWS) {
    const count = Math.min(WINDOW_ROWS, m.open - first)
    file.readListSection(window, 0, count * OPEN_RECORD, layout.open + first * OPEN_RECORD)
    sum = sectionCrc(window.subarray(0, count * OPEN_RECORD), sum)
    records.buf = window
    records.first = first
    records.length = first + count
    for (let i = first; i < first + count; i++) {
      const at = (i - first) * OPEN_RECORD
      const l = window.readUInt32LE(at)
      if (l >= n) return null
      if (dropped.size > 0 && dropped.has(l)) continue
      if (j < redone.length) {
        const p = window.readDoubleLE(at + 8)
        const date = window.readInt32LE(at + 32)
        const time = window.readInt32LE(at + 36)
        if (date < 0) return null
        for (; j < redone.length; j++) {
          const k = redoneKeys[j]!
          const before = k.priority - p || k.date - date || k.time - time || idPosOf(redoneRows[j]!) - l - 0.5
          if (before >= 0) break
          movedKey.set(redoneRows[j]!, i - 1 + (j + 1) / (redone.length + 1))
          place(redoneCols, j, redoneRows[j]!)
        }
      }
      place(records, i, l)
    }
  }
  for (; j < redone.length; j++) {
    movedKey.set(redoneRows[j]!, m.open - 1 + (j + 1) / (redone.length + 1))
    place(redoneCols, j, redoneRows[j]!)
  }

  // The finished rows: the file's in listing order, the changed ones merged in by (status, priority, creation
  // time, id).
  const wantedFinished = (code: number, priority: number): boolean => ((code === DONE && input.done) || (code === CANCELLED && input.cancelled)) && (input.priorities.size === 0 || input.priorities.has(priority))
  const changedFinished: Array<{row: number; id: string; code: number; priority: number; date: number; time: number}> = []
  for (const c of changedEntries) {
    const meta = c.entry.meta
    const row = changedRow.get(c.id)!
    if (!meta || (status[row] !== DONE && status[row] !== CANCELLED)) continue
    const [date, time] = createdNumbers(meta.created_at)
    if (date < 0) return null
    changedFinished.push({row, id: c.id, code: status[row]!, priority: meta.priority, date, time})
  }
  // Ties (the same priority and creation time) by id, as everywhere in the listing: not by the order of the changes.
  changedFinished.sort((a, b) => a.code - b.code || a.priority - b.priority || a.date - b.date || a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const finSeq = new Int32Array(m.finished + changedFinished.length)
  let finCount = 0
  const placeFinished = (row: number, code: number, priority: number): void => {
    if (!wantedFinished(code, priority)) return
    rank[row] = code === DONE ? firstRank : firstRank + 1
    finSeq[finCount++] = row
  }
  j = 0
  for (let first = 0; first < m.finished; first += WINDOW_ROWS) {
    const count = Math.min(WINDOW_ROWS, m.finished - first)
    file.readListSection(window, 0, count * FINISHED_RECORD, layout.finished + first * FINISHED_RECORD)
    sum = sectionCrc(window.subarray(0, count * FINISHED_RECORD), sum)
    for (let k = first; k < first + count; k++) {
      const at = (k - first) * FINISHED_RECORD
      const l = window.readUInt32LE(at)
      if (l >= n) return null
      if (replaced.size > 0 && replaced.has(l)) continue
      const code = status[l]!
      const p = window.readDoubleLE(at + 16)
      if (j < changedFinished.length) {
        const date = window.readInt32LE(at + 4)
        const time = window.readInt32LE(at + 8)
        if (date < 0) return null
        for (; j < changedFinished.length; j++) {
          const c = changedFinished[j]!
          const before = c.code - code || c.priority - p || c.date - date || c.time - time || idPosOf(c.row) - l - 0.5
          if (before >= 0) break
          movedKey.set(c.row, k - 1 + (j + 1) / (changedFinished.length + 1))
          placeFinished(c.row, c.code, c.priority)
        }
      }
      placeFinished(l, code, p)
    }
  }
  for (; j < changedFinished.length; j++) {
    const c = changedFinished[j]!
    movedKey.set(c.row, m.finished - 1 + (j + 1) / (changedFinished.length + 1))
    placeFinished(c.row, c.code, c.priority)
  }
  // Nothing is written from a section that does not match its sum (the ordinary path reads the lines instead).
  file.noteListSectionChecked(sum === m.sum)
  if (sum !== m.sum) return null

  /** The listed sub-items of row r, in listing order (state, then their order in the tables). */
  const kidsOf = (r: number): number[] => {
    const base = r < n ? r : changedEntries[r - n]!.base
    const out: Array<{row: number; key: number}> = []
    if (base !== -1 && extrasAt[base] !== NONE) {
      const at = extrasAt[base]!
      const dc = extras.readUInt32LE(at + 4)
      const kc = extras.readUInt32LE(at + 8)
      for (let k = 0; k < kc; k++) {
        const e = at + 12 + 4 * dc + 8 * k
        const line = extras.readUInt32LE(e)
        if (line === NONE || line >= n) continue
        const row = cur(line)
        // A changed sub-item is found below, by its parent now.
        if (row === -1 || row >= n || rank[row] === notListed) continue
        const sp = extras.readUInt32LE(e + 4)
        out.push({row, key: movedKey.get(row) ?? (sp < m.open ? sp : sp - m.open)})
      }
    }
    for (const row of changedKids.get(r) ?? []) if (rank[row] !== notListed) out.push({row, key: movedKey.get(row)!})
    out.sort((a, b) => rank[a.row]! - rank[b.row]! || a.key - b.key)
    return out.map((k) => k.row)
  }

  // Top-level rows in order, each followed by its listed sub-items in order; a sub-item's own sub-items are not listed.
  const nestedRow = (r: number): boolean => {
    const p = parentRowOf(r)
    return p !== -1 && rank[p] !== notListed
  }
  const slots = new Int32Array(openCount + finCount)
  const depths = new Uint8Array(openCount + finCount)
  const byState: Partial<Record<State, number>> = {}
  let total = 0
  const put = (l: number, depth: number) => {
    slots[total] = l
    depths[total++] = depth
    const st = statesByRank[rank[l]!]!
    byState[st] = (byState[st] ?? 0) + 1
  }
  const top = (l: number) => {
    if (nestedRow(l)) return
    put(l, 0)
    // Only a row with sub-items in the file or among the changes can have any.
    const base = l < n ? l : changedEntries[l - n]!.base
    if (!changedKids.has(l) && (base === -1 || extrasAt[base] === NONE || extras.readUInt32LE(extrasAt[base]! + 8) === 0)) return
    for (const c of kidsOf(l)) put(c, 1)
  }
  // The open rows state by state, each state's in table order: a counting sort by rank (one pass to count, one to
  // place), not a pass over every open row for each state.
  const startOfRank = new Int32Array(firstRank + 1)
  for (let i = 0; i < openCount; i++) if (rank[openSeq[i]!]! < firstRank) startOfRank[rank[openSeq[i]!]! + 1]!++
  for (let r = 0; r < firstRank; r++) startOfRank[r + 1]! += startOfRank[r]!
  const byRank = new Int32Array(startOfRank[firstRank]!)
  for (let i = 0; i < openCount; i++) {
    const r = rank[openSeq[i]!]!
    if (r < firstRank) byRank[startOfRank[r]!++] = openSeq[i]!
  }
  for (let i = 0; i < byRank.length; i++) top(byRank[i]!)
  for (let i = 0; i < finCount; i++) top(finSeq[i]!)

  const keyOf = (l: number): StreamKey => {
    if (l >= n) {
      const meta = changedEntries[l - n]!.entry.meta!
      return [rank[l]!, meta.priority, meta.created_at, meta.id]
    }
    const length = readLine(l)
    const at = new Int32Array(8)
    if (findTabs(scratch, 0, length, at) !== 8) throw new Error('the index cache file changed while being read')
    const id = scratch.toString('latin1', 0, at[0])
    const key = finishedKey(scratch, at[7]! + 1, length)
    if (key) return [rank[l]!, key.priority, key.created, id]
    const values = JSON.parse(scratch.toString('utf8', at[7]! + 1, length)) as unknown[]
    return [rank[l]!, values[K.priority] as number, values[K.created_at] as string, id]
  }

  const {snap, viewer} = input
  const bounds = new Int32Array(2 * (TASK_KEYS.length + 1))
  const at = new Int32Array(9)
  let src = Buffer.allocUnsafe(1 << 20)
  let srcView = viewOf(src)
  let out: Buffer<ArrayBufferLike> = Buffer.alloc(0)
  let outView = viewOf(out)
  /** Output buffers written out and free again. */
  const spare: Buffer<ArrayBufferLike>[] = []
  let w = 0
  const ensure = (n: number): void => {
    if (w + n <= out.length) return
    const larger = Buffer.allocUnsafe(Math.max(out.length * 2, w + n))
    out.copy(larger, 0, 0, w)
    out = larger
    outView = viewOf(out)
  }
  const text = (s: string): void => {
    ensure(Buffer.byteLength(s))
    w += out.write(s, w, 'utf8')
  }
  const equalsQuoted = (k: number, s: string): boolean => {
    const a = bounds[2 * k]!
    if (bounds[2 * k + 1]! - a !== s.length + 2 || src[a] !== QUOTE || src[a + s.length + 1] !== QUOTE) return false
    for (let i = 0; i < s.length; i++) if (src[a + 1 + i] !== s.charCodeAt(i)) return false
    return true
  }
  /** The status of a dependency at line d (NONE: not a line) whose id is `id`, as a wait reason shows it ('' for done). */
  const unfinishedAt = (d: number, id: () => string): string => {
    let code: number
    if (d === NONE || d >= rows) {
      // Not a line of the file: perhaps added since.
      const row = changedRow.get(id()) ?? -1
      code = row === -1 ? MISSING : status[row]!
    } else code = status[d]!
    return code === MISSING ? 'missing' : code === BROKEN ? 'unreadable' : code === DONE ? '' : STATUS_TEXT[code]!
  }
  /** Dependencies of items with sub-items, by row: ids and lines (NONE: not a line); read once each. */
  const parentDeps = new Map<number, {ids: string[]; lines: number[]}>()
  const depsOfParent = (p: number): {ids: string[]; lines: number[]} | null => {
    let d = parentDeps.get(p)
    if (!d) {
      if (p >= n) {
        const ids = [...(changedEntries[p - n]!.entry.meta?.depends_on ?? [])]
        d = {ids, lines: ids.map((id) => {
          const r = rowOfId(id)
          return r === -1 ? NONE : r
        })}
      } else {
        const length = readLine(p)
        const t = new Int32Array(8)
        if (findTabs(scratch, 0, length, t) < 6) return null
        const ids = t[5]! > t[4]! + 1 ? scratch.toString('latin1', t[4]! + 1, t[5]).split(' ') : []
        const e = extrasAt[p]!
        const dc = e === NONE ? 0 : extras.readUInt32LE(e + 4)
        if (dc !== ids.length) return null
        const lines: number[] = []
        for (let k = 0; k < dc; k++) lines.push(extras.readUInt32LE(e + 12 + 4 * k))
        d = {ids, lines}
      }
      parentDeps.set(p, d)
    }
    return d
  }

  /** The usual row written to the output from its line at src[ls, le); false (nothing written) when it has another shape. */
  const writeRow = (l: number, ls: number, le: number, depth: number): boolean => {
    // The short fields by bytes, the rest (a tree id, lists of ids) by the native search.
    if (findTabs(src, ls, le, at, srcView) !== 8) return false
    const count = splitArray(src, at[7]! + 1, le, bounds, srcView)
    if (count < TASK_KEYS.length) return false
    for (let r = 0; r < REQUIRED.length; r++) if (isNullAt(src, bounds, REQUIRED[r]!)) return false
    // The id as the pass read it is the line's first field: its length from the line, not the string.
    const idLength = at[0]! - ls
    const code = status[l]!
    if (bounds[2 * K.id + 1]! - bounds[2 * K.id]! !== idLength + 2 || !equalsQuoted(K.status, STATUS_TEXT[code]!)) return false
    // Wait reasons: the item's own unfinished dependencies, then its parent's not already among them (waitReasons).
    let reasons = ''
    let seen: Set<string> | null = null
    const b = bits[l]!
    const open = (b & IS_OPEN) !== 0
    // An open row without the table's waiting fact has no reasons (checked below for those that have it).
    const mayWait = !open || (b & IS_WAITING) !== 0
    // The item's dependencies from the line's field (the frontmatter's depends_on joined by spaces: task ids,
    // which hold no space, quote or backslash; anything else is viewed the ordinary way), their lines from the
    // list section, in the same order.
    if (mayWait && at[5]! > at[4]! + 1) {
      const e = extrasAt[l]!
      if (e === NONE) return false
      const dc = extras.readUInt32LE(e + 4)
      let k = 0
      for (let a = at[4]! + 1; a < at[5]!; ) {
        let q = a
        while (q < at[5]! && src[q] !== 0x20) {
          if (src[q]! >= 0x80 || src[q] === QUOTE || src[q] === BACKSLASH) return false
          q++
        }
        if (k >= dc) return false
        const s0 = a
        const s1 = q
        const st = unfinishedAt(extras.readUInt32LE(e + 12 + 4 * k++), () => src.toString('latin1', s0, s1))
        if (st !== '') {
          const dep = src.toString('latin1', a, q)
          reasons += `${reasons === '' ? '' : ','}{"id":"${dep}","status":"${st}","via":null}`
          ;(seen ??= new Set()).add(dep)
        }
        a = q + 1
      }
      if (k !== dc) return false
    }
    if (mayWait && at[4]! > at[3]! + 1) {
      const pl = parentRowOf(l)
      const pdeps = pl === -1 || status[pl] === BROKEN || status[pl] === MISSING ? null : depsOfParent(pl)
      if (pdeps && pdeps.ids.length > 0) {
        const via = JSON.stringify(src.toString('latin1', at[3]! + 1, at[4]))
        for (let k = 0; k < pdeps.ids.length; k++) {
          const dep = pdeps.ids[k]!
          if (seen?.has(dep)) continue
          const st = unfinishedAt(pdeps.lines[k]!, () => dep)
          if (st !== '') reasons += `${reasons === '' ? '' : ','}{"id":${JSON.stringify(dep)},"status":"${st}","via":${via}}`
        }
      }
    }
    if (open && ((b & IS_WAITING) !== 0) !== (reasons !== '')) return false
    const state = open ? statesByRank[rank[l]!]! : STATUS_TEXT[code]!
    const ready = (b & IS_READY) !== 0
    const claimLive = (b & IS_LIVE) !== 0
    const waiting = open && reasons !== ''
    const reasonBytes = reasons === '' ? 0 : Buffer.byteLength(reasons)
    ensure(2 * (le - ls) + 1024 + reasonBytes)
    // Locals and module-level copy loops: closures over `out` and `w` would load and store them on every byte.
    const o = out
    const od = outView
    const s = src
    const sd = srcView
    const v = bounds
    let p = w
    p = emit(o, od, p, s, sd, v, P_ID)
    // The short id: the start of the line's id field, as long as shortIdBetween makes it (the list section's).
    const short = shortLength[l]!
    if (short === 0 || short > idLength) return false
    for (let c = ls; c < ls + short; c++) o[p++] = s[c]!
    p = emit(o, od, p, s, sd, v, P_TITLE)
    p = putAscii(o, p, state)
    p = emit(o, od, p, s, sd, v, P_PRIORITY)
    if (at[6]! > at[5]! + 1) {
      o[p++] = QUOTE
      for (let c = at[5]! + 1; c < at[6]!; c++) {
        if (s[c] === 0x20) p = emit(o, od, p, s, sd, v, P_ID_SEPARATOR)
        else o[p++] = s[c]!
      }
      o[p++] = QUOTE
    }
    p = emit(o, od, p, s, sd, v, P_DEPENDS)
    if (reasonBytes > 0) p += o.write(reasons, p, 'utf8')
    p = emit(o, od, p, s, sd, v, P_READY[ready ? 1 : 0]!)
    p = emit(o, od, p, s, sd, v, P_WAITING[waiting ? 1 : 0]!)
    p = emit(o, od, p, s, sd, v, P_OWNER)
    p = emit(o, od, p, s, sd, v, P_LIVE[claimLive ? 1 : 0]!)
    p = emit(o, od, p, s, sd, v, P_SESSION)
    p = emit(o, od, p, s, sd, v, isNullAt(s, v, K.flag_reason) ? P_NULL : P_FLAG)
    p = emit(o, od, p, s, sd, v, P_REST)
    p = emit(o, od, p, s, sd, v, P_DEPTH[depth === 0 ? 0 : 1]!)
    w = p
    return true
  }

  const lineAt = (l: number): number => linesStart + offsets[l]!
  const lengthOf = (l: number): number => offsets[l + 1]! - offsets[l]! - 1
  /** Rows [groupFrom, groupTo) have their lines in `src`, row s's at start[s - groupFrom] (rows viewed the ordinary way have none). */
  let groupFrom = 0
  let groupTo = 0
  let viewedRows = 0
  let start = new Float64Array(0)
  /**
   * Read the lines of rows [from, end) into `src`: in file order, neighbouring lines in one read. Sorted as
   * numbers (offset × rows + position in the group): no comparison calls back into JavaScript.
   */
  const groupMax = Number(process.env.TASKS_STREAM_GROUP_ROWS) || GROUP_MAX
  const readGroup = (from: number, end: number): void => {
    const count = end - from
    const sorted = new Float64Array(count)
    let wanted = 0
    for (let k = 0; k < count; k++) {
      const l = slots[from + k]!
      if (viaView[l] !== 1) sorted[wanted++] = lineAt(l) * count + k
    }
    /** Positions in the group of the lines to read, in file order. */
    const want = new Int32Array(wanted)
    sorted.subarray(0, wanted).sort()
    for (let k = 0; k < wanted; k++) want[k] = sorted[k]! % count
    // Runs of lines close enough to read at once (gaps included) go through `scratch`; only the lines are
    // kept, in `src`. A line alone is read straight into `src`.
    let need = 0
    for (let k = 0; k < wanted; k++) need += lengthOf(slots[from + want[k]!]!)
    if (src.length < need) {
      src = Buffer.allocUnsafe(Math.max(need, src.length * 2))
      srcView = viewOf(src)
    }
    if (start.length < count) start = new Float64Array(count)
    let put = 0
    let k = 0
    while (k < wanted) {
      const first = slots[from + want[k]!]!
      const a = lineAt(first)
      let b = a + lengthOf(first)
      let q = k + 1
      while (q < wanted) {
        const l = slots[from + want[q]!]!
        if (lineAt(l) - b > READ_GAP || lineAt(l) + lengthOf(l) - a > READ_MAX) break
        b = Math.max(b, lineAt(l) + lengthOf(l))
        q++
      }
      if (q === k + 1) {
        if (file.readBytes(src, put, b - a, a) !== b - a) throw new Error('the index cache file changed while being read')
        start[want[k++]!] = put
        put += b - a
        continue
      }
      if (scratch.length < b - a) scratch = Buffer.allocUnsafe(b - a)
      if (file.readBytes(scratch, 0, b - a, a) !== b - a) throw new Error('the index cache file changed while being read')
      for (; k < q; k++) {
        const l = slots[from + want[k]!]!
        start[want[k]!] = put
        put += scratch.copy(src, put, lineAt(l) - a, lineAt(l) - a + lengthOf(l))
      }
    }
    groupFrom = from
    groupTo = end
  }

  return {
    total,
    byState,
    keysAt: (pos) => {
      let t = pos
      while (t > 0 && depths[t] !== 0) t--
      return {row: keyOf(slots[pos]!), top: keyOf(slots[t]!), depth: depths[pos]!}
    },
    bytes: (from, to, until = to) => {
      const end = Math.min(to, total, from + BATCH_MAX)
      if (end <= from) return Buffer.alloc(0)
      if (from < groupFrom || end > groupTo) readGroup(from, Math.max(end, Math.min(until, total, from + groupMax)))
      let need = 0
      for (let s = from; s < end; s++) if (viaView[slots[s]!] !== 1) need += lengthOf(slots[s]!)
      // An output buffer no batch still being written holds (the last may be queued on a pipe).
      const size = Math.ceil(need * 1.5) + 1024 * (end - from)
      out = spare.pop() ?? Buffer.allocUnsafe(size)
      if (out.length < size) out = Buffer.allocUnsafe(size)
      outView = viewOf(out)
      w = 0
      for (let s = from; s < end; s++) {
        if (s > from) {
          ensure(1)
          out[w++] = COMMA
        }
        const l = slots[s]!
        const depth = depths[s]!
        if (viaView[l] === 1) {
          viewedRows++
          text(JSON.stringify(Object.assign(viewer.view(snap.tasks.get(idOf(l))!.meta!), {depth})))
          continue
        }
        const ls = start[s - groupFrom]!
        const mark = w
        if (!writeRow(l, ls, ls + lengthOf(l), depth)) {
          w = mark
          viewedRows++
          // idOf reads the line into `scratch`, not `src`.
          text(JSON.stringify(Object.assign(viewer.view(snap.tasks.get(idOf(l))!.meta!), {depth})))
        }
      }
      return out.subarray(0, w)
    },
    viewed: () => viewedRows,
    written: (batch) => {
      if (batch.byteOffset === 0 && spare.length < 2) spare.push(Buffer.from(batch.buffer, 0, batch.buffer.byteLength))
    },
  }
}
