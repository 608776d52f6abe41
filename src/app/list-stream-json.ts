/**
 * The JSON of a streamed listing (list-stream.ts), a batch of rows at a
 * time: each usual row put together from its cache line's bytes, as
 * refstore's ListSectionReader splits them (the frontmatter values' JSON
 * text as the file holds it, copied by small programs of fixed texts and
 * values), with the derived fields (short id, sub-items, wait reasons,
 * state, readiness, claim); any other row viewed and stringified the
 * ordinary way. Byte for byte what JSON.stringify of each view writes.
 */
import type {State} from '../core/readiness'
import type {Snapshot, TaskEntry} from '../core/snapshot'
import {isOverdue} from '../core/dates'
import {type Status, TASK_KEYS} from '../core/task'
import type {TaskViewer} from '../core/task-view'
import {BROKEN, CANCELLED, DONE, NONE, STATUS_TEXT} from '../refstore/list-section'
import {F_DEPS, F_ID, F_PARENT, F_SUBITEMS, LINE_FIELDS, type LineBatch, type ListSectionReader, findTabs, splitArray, viewOf} from '../refstore/task-index'

/** What the writer asks of the listing's rows (list-stream.ts's ListingRows). */
export interface ListedRows {
  /** Lines in the file; rows from n on are changed tasks. */
  readonly n: number
  readonly status: Uint8Array
  readonly rank: Uint8Array
  readonly bits: Uint8Array
  readonly viaView: Uint8Array
  readonly slots: Int32Array
  readonly depths: Uint8Array
  readonly total: number
  readonly byState: Partial<Record<State, number>>
  readonly changedRow: ReadonlyMap<string, number>
  readonly changedEntries: ReadonlyArray<{id: string; entry: TaskEntry}>
  rowOfId(id: string): number
  idOf(r: number): string
  parentRowOf(r: number): number
  keyOf(l: number): [number, number, string, string]
}

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
/** After the sub-items: the parent's progress (issue 33), then the dependencies. */
const PROGRESS = bytesOf('],"progress":')
const DEPENDS_ON = bytesOf(',"depends_on":')
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
const BLOCKED_ON = bytesOf(',"blocked_on":')
const CANCEL_REASON = bytesOf(',"cancel_reason":')
const CLOSED_AT = bytesOf(',"closed_at":')
const KEY = bytesOf(',"key":')
const EMPTY_LIST = bytesOf('[]')
const CREATED_AT = bytesOf(',"created_at":')
const CREATED_BY = bytesOf(',"created_by":')
const UPDATED_AT = bytesOf(',"updated_at":')
const UPDATED_BY = bytesOf(',"updated_by":')
const REVISION = bytesOf(',"revision":')
const WORK_SESSION = bytesOf(',"work_session":')
// Issue 33: the states-and-dates keys after work_session (TaskView order); overdue is worked out from the due date, the status and the viewer's clock.
const DEFER_REASON = bytesOf(',"defer_reason":')
const DEFER_UNTIL = bytesOf(',"defer_until":')
const FAIL_REASON = bytesOf(',"fail_reason":')
const DUE = bytesOf(',"due":')
const SCHEDULED = bytesOf(',"scheduled":')
const EVERY = bytesOf(',"every":')
const PREVIOUS = bytesOf(',"previous":')
const NOT_OVERDUE = bytesOf(',"overdue":false')
const OVERDUE = bytesOf(',"overdue":true')
/** Issue 33: the custom fields, `{}` when the card has none. */
const FIELDS = bytesOf(',"fields":')
const EMPTY_OBJECT = bytesOf('{}')
const SHORT_ID = bytesOf(',"short_id":"')
const TITLE = bytesOf('","title":')
const STATE = bytesOf(',"state":"')
/** The type (after the state): `task` when the card has none. */
const TYPE_DEFAULT = bytesOf('","type":"task","priority":')
const TYPE_KEY = bytesOf('","type":')
const PRIORITY_AFTER_TYPE = bytesOf(',"priority":')
const READY_TRUE = bytesOf('],"ready":true')
const READY_FALSE = bytesOf('],"ready":false')
const WAITING_TRUE = bytesOf(',"waiting":true,"assignee":')
const WAITING_FALSE = bytesOf(',"waiting":false,"assignee":')
const LIVE_TRUE = bytesOf(',"claim_live":true,"session":')
const LIVE_FALSE = bytesOf(',"claim_live":false,"session":')
/** The depth of a row, 0 (top level) to 4 (the deepest max_depth). */
const DEPTHS = [0, 1, 2, 3, 4].map((d) => bytesOf(`,"depth":${d}}`))

/** Values a view always writes as they are: when one is null, the row is viewed the ordinary way. */
const REQUIRED = Int32Array.from((['id', 'title', 'status', 'priority', 'tags', 'depends_on', 'epoch', 'created_at', 'created_by', 'updated_at', 'updated_by', 'revision'] as const).map((k) => K[k]))

/** Most rows `bytes` produces at once. */
const BATCH_MAX = 4096
/**
 * Most rows whose lines are read from the file together, for this and the
 * next batches the caller asks for. The lines lie in id order in the file,
 * not in listing order, so the more rows are read at once, the more of
 * their lines lie close enough to share a read; the lines held grow with
 * the group, so it is bounded (docs/scale.md has the figures that chose
 * it). `TASKS_STREAM_GROUP_ROWS` sets another size (the tests use a few rows).
 */
const GROUP_MAX = 8192

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
/** OBJECT_OR_EMPTY + k copies value k or `{}` when it is null (the custom fields). */
const OBJECT_OR_EMPTY = 2000
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
const P_PRIORITY = [program(TYPE_DEFAULT, K.priority, TAGS, K.tags, PARENT, K.parent, SUBITEMS), program(TYPE_KEY, K.type, PRIORITY_AFTER_TYPE, K.priority, TAGS, K.tags, PARENT, K.parent, SUBITEMS)]
const P_PROGRESS = program(PROGRESS)
const P_DEPENDS = program(DEPENDS_ON, K.depends_on, BLOCKED_BY)
const P_OWNER = program(K.assignee, OWNER, K.owner, EPOCH, K.epoch, CLAIMED_AT, K.claimed_at, LEASE_EXPIRES, K.lease_expires)
const P_SESSION = program(K.session, FLAG)
const P_FLAG = program(FLAG_REASON, K.flag_reason, FLAG_BY, K.flagged_by, FLAG_AT, K.flagged_at, CLOSE_OBJECT)
const P_NULL = program(NULL)
const restOf = (overdue: Uint8Array) =>
  program(
    BLOCK_NOTE,
    K.block_note,
    BLOCKED_ON,
    K.blocked_on,
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
    WORK_SESSION,
    K.work_session,
    DEFER_REASON,
    K.defer_reason,
    DEFER_UNTIL,
    K.defer_until,
    FAIL_REASON,
    K.fail_reason,
    DUE,
    K.due,
    SCHEDULED,
    K.scheduled,
    EVERY,
    K.every,
    PREVIOUS,
    K.previous,
    overdue,
    FIELDS,
    OBJECT_OR_EMPTY + K.fields,
  )
/** The rest of a row, after the flag: [not overdue, overdue]. */
const P_REST = [restOf(NOT_OVERDUE), restOf(OVERDUE)]
const P_READY = [program(READY_FALSE), program(READY_TRUE)]
const P_WAITING = [program(WAITING_FALSE), program(WAITING_TRUE)]
const P_LIVE = [program(LIVE_FALSE), program(LIVE_TRUE)]
const P_DEPTH = DEPTHS.map((d) => program(d))
const P_ID_SEPARATOR = program(ID_SEPARATOR)
/** The text `[]`, for a list value that is null. */
const EMPTY_AT = ~program(EMPTY_LIST)[0]!
/** The text `{}`, for custom fields that are null. */
const EMPTY_OBJECT_AT = ~program(EMPTY_OBJECT)[0]!
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

/**
 * Copy s[a, b) into o at `p` (od and sd: DataViews over o and s); returns
 * the position after. Four bytes a step through the DataViews, the rest one
 * by one: for the short values of a row (a title, a time) a native copy's
 * call costs more than this loop.
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
      const empty = step >= OBJECT_OR_EMPTY ? EMPTY_OBJECT_AT : EMPTY_AT
      step -= step >= OBJECT_OR_EMPTY ? OBJECT_OR_EMPTY : LIST_OR_EMPTY
      const a = v[2 * step]!
      if (v[2 * step + 1]! - a === 4 && s[a] === 0x6e) {
        p = copyBytes(o, od, p, TEXT, TEXT_VIEW, TEXT_AT[empty]!, TEXT_AT[empty + 1]!)
        continue
      }
    }
    p = copyBytes(o, od, p, s, sd, v[2 * step]!, v[2 * step + 1]!)
  }
  return p
}

/** A status code the list section does not have: a task removed since the file (for wait reasons, 'missing'). */
export const MISSING = 6
/** Bits of a row's facts (`bits`): an open row, ready, its claim live, the table's waiting fact. */
export const IS_OPEN = 1
export const IS_READY = 2
export const IS_LIVE = 4
export const IS_WAITING = 8

/**
 * The JSON of the listing, a batch of rows at a time: each usual row put
 * together from its line's bytes (writeRow), any other viewed and
 * stringified the ordinary way.
 */
export class RowWriter {
  readonly total: number
  readonly byState: Partial<Record<State, number>>
  private readonly rowCount: number
  /** The line's field ends and the frontmatter values' bounds, of the row being written. */
  private readonly fields = new Int32Array(8)
  private readonly bounds = new Int32Array(2 * (TASK_KEYS.length + 1))
  /** The lines of rows [groupFrom, groupTo), read together (rows viewed the ordinary way have none). */
  private lines: LineBatch | undefined
  private groupFrom = 0
  private groupTo = 0
  private readonly groupMax = Number(process.env.TASKS_STREAM_GROUP_ROWS) || GROUP_MAX
  private out: Buffer<ArrayBufferLike> = Buffer.alloc(0)
  private outView = viewOf(this.out)
  private w = 0
  /** Output buffers written out and free again. */
  private readonly spare: Buffer<ArrayBufferLike>[] = []
  private viewedRows = 0
  /** Dependencies of items with sub-items, by row: ids and lines (NONE: not a line); read once each. */
  private readonly parentDeps = new Map<number, {ids: string[]; lines: number[]}>()

  constructor(
    private readonly section: ListSectionReader,
    private readonly rows: ListedRows,
    private readonly input: {snap: Snapshot; viewer: TaskViewer; statesByRank: readonly State[]},
  ) {
    this.total = rows.total
    this.byState = rows.byState
    this.rowCount = rows.status.length
  }

  keysAt(pos: number): {row: [number, number, string, string]; top: [number, number, string, string]; depth: number} {
    const {slots, depths} = this.rows
    let t = pos
    while (t > 0 && depths[t] !== 0) t--
    return {row: this.rows.keyOf(slots[pos]!), top: this.rows.keyOf(slots[t]!), depth: depths[pos]!}
  }

  viewed(): number {
    return this.viewedRows
  }

  written(batch: Buffer): void {
    if (batch.byteOffset === 0 && this.spare.length < 2) this.spare.push(Buffer.from(batch.buffer, 0, batch.buffer.byteLength))
  }

  bytes(from: number, to: number, until = to): Buffer {
    const {slots, depths, viaView} = this.rows
    const section = this.section
    const end = Math.min(to, this.total, from + BATCH_MAX)
    if (end <= from) return Buffer.alloc(0)
    if (from < this.groupFrom || end > this.groupTo) this.readGroup(from, Math.max(end, Math.min(until, this.total, from + this.groupMax)))
    const lines = this.lines!
    let need = 0
    for (let s = from; s < end; s++) if (viaView[slots[s]!] !== 1) need += section.lineLength(slots[s]!)
    // An output buffer no batch still being written holds (the last may be queued on a pipe).
    const size = Math.ceil(need * 1.5) + 1024 * (end - from)
    let out = this.spare.pop() ?? Buffer.allocUnsafe(size)
    if (out.length < size) out = Buffer.allocUnsafe(size)
    this.out = out
    this.outView = viewOf(out)
    this.w = 0
    for (let s = from; s < end; s++) {
      if (s > from) {
        this.ensure(1)
        this.out[this.w++] = COMMA
      }
      const l = slots[s]!
      const depth = depths[s]!
      if (viaView[l] === 1) {
        this.viewRow(l, depth)
        continue
      }
      const ls = lines.start[s - this.groupFrom]!
      const mark = this.w
      if (!this.writeRow(l, lines.buf, lines.view, ls, ls + section.lineLength(l), depth)) {
        this.w = mark
        this.viewRow(l, depth)
      }
    }
    return this.out.subarray(0, this.w)
  }

  /** Read the lines of rows [from, end) (those not viewed the ordinary way). */
  private readGroup(from: number, end: number): void {
    const {slots, viaView} = this.rows
    const lines = new Int32Array(end - from)
    for (let k = 0; k < lines.length; k++) {
      const l = slots[from + k]!
      lines[k] = viaView[l] !== 1 ? l : -1
    }
    this.lines = this.section.readLines(lines)
    this.groupFrom = from
    this.groupTo = end
  }

  /** Row l written by viewing its task through the snapshot. */
  private viewRow(l: number, depth: number): void {
    this.viewedRows++
    const {snap, viewer} = this.input
    this.text(JSON.stringify(Object.assign(viewer.view(snap.tasks.get(this.rows.idOf(l))!.meta!), {depth})))
  }

  private ensure(n: number): void {
    if (this.w + n <= this.out.length) return
    const larger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.w + n))
    this.out.copy(larger, 0, 0, this.w)
    this.out = larger
    this.outView = viewOf(larger)
  }

  private text(s: string): void {
    this.ensure(Buffer.byteLength(s))
    this.w += this.out.write(s, this.w, 'utf8')
  }

  /** Whether frontmatter value k (in `src`) is the JSON string of `s`. */
  private equalsQuoted(src: Buffer, k: number, s: string): boolean {
    const bounds = this.bounds
    const a = bounds[2 * k]!
    if (bounds[2 * k + 1]! - a !== s.length + 2 || src[a] !== QUOTE || src[a + s.length + 1] !== QUOTE) return false
    for (let i = 0; i < s.length; i++) if (src[a + 1 + i] !== s.charCodeAt(i)) return false
    return true
  }

  /** The status of a dependency at line d (NONE: not a line) whose id is `id`, as a wait reason shows it ('' for done). */
  private unfinishedAt(d: number, id: () => string): string {
    const status = this.rows.status
    let code: number
    if (d === NONE || d >= this.rowCount) {
      // Not a line of the file: perhaps added since.
      const row = this.rows.changedRow.get(id()) ?? -1
      code = row === -1 ? MISSING : status[row]!
    } else code = status[d]!
    return code === MISSING ? 'missing' : code === BROKEN ? 'unreadable' : code === DONE ? '' : STATUS_TEXT[code]!
  }

  /** The dependencies of row p (a parent), as ids and their lines; null when its line and the section disagree. */
  private depsOfParent(p: number): {ids: string[]; lines: number[]} | null {
    let d = this.parentDeps.get(p)
    if (!d) {
      const rows = this.rows
      if (p >= rows.n) {
        const ids = [...(rows.changedEntries[p - rows.n]!.entry.meta?.depends_on ?? [])]
        d = {ids, lines: ids.map((id) => {
          const r = rows.rowOfId(id)
          return r === -1 ? NONE : r
        })}
      } else {
        const ids = this.section.dependencyIdsAt(p)
        if (ids === null) return null
        const dc = this.section.dependencyCount(p)
        if (dc !== ids.length) return null
        const lines: number[] = []
        for (let k = 0; k < dc; k++) lines.push(this.section.dependencyLine(p, k))
        d = {ids, lines}
      }
      this.parentDeps.set(p, d)
    }
    return d
  }

  /**
   * Wait reasons of row l as JSON objects joined by commas: its own
   * unfinished dependencies, then its parent's not already among them
   * (waitReasons). The line's dependency field (`at`: field ends) lists
   * task ids, which hold no space, quote or backslash; null when it holds
   * anything else or disagrees with the section (the row is then viewed the
   * ordinary way).
   */
  private waitReasons(l: number, src: Buffer, at: Int32Array): string | null {
    const section = this.section
    let reasons = ''
    let seen: Set<string> | null = null
    if (at[F_DEPS]! > at[F_PARENT]! + 1) {
      const dc = section.dependencyCount(l)
      let k = 0
      for (let a = at[F_PARENT]! + 1; a < at[F_DEPS]!; ) {
        let q = a
        while (q < at[F_DEPS]! && src[q] !== 0x20) {
          if (src[q]! >= 0x80 || src[q] === QUOTE || src[q] === BACKSLASH) return null
          q++
        }
        if (k >= dc) return null
        const s0 = a
        const s1 = q
        const st = this.unfinishedAt(section.dependencyLine(l, k++), () => src.toString('latin1', s0, s1))
        if (st !== '') {
          const dep = src.toString('latin1', a, q)
          reasons += `${reasons === '' ? '' : ','}{"id":"${dep}","status":"${st}","via":null}`
          ;(seen ??= new Set()).add(dep)
        }
        a = q + 1
      }
      if (k !== dc) return null
    }
    if (at[F_PARENT]! > at[F_PARENT - 1]! + 1) {
      const status = this.rows.status
      const pl = this.rows.parentRowOf(l)
      const pdeps = pl === -1 || status[pl] === BROKEN || status[pl] === MISSING ? null : this.depsOfParent(pl)
      if (pdeps && pdeps.ids.length > 0) {
        const via = JSON.stringify(src.toString('latin1', at[F_PARENT - 1]! + 1, at[F_PARENT]))
        for (let k = 0; k < pdeps.ids.length; k++) {
          const dep = pdeps.ids[k]!
          if (seen?.has(dep)) continue
          const st = this.unfinishedAt(pdeps.lines[k]!, () => dep)
          if (st !== '') reasons += `${reasons === '' ? '' : ','}{"id":${JSON.stringify(dep)},"status":"${st}","via":${via}}`
        }
      }
    }
    return reasons
  }

  /**
   * The progress of line l's sub-items as the view writes it
   * (`{"done":D,"total":T}`: done of those not cancelled, core/task-view.ts
   * progressOf), from the section's sub-item lines and their status codes;
   * null when the section does not list the `listed` sub-items of the line
   * (the row is then viewed the ordinary way). A row written from its line
   * has no changed sub-item: a change marks its parent's row to be viewed.
   */
  private progressAt(l: number, listed: number): string | null {
    const section = this.section
    const count = section.subItemCount(l)
    if (count !== listed) return null
    const status = this.rows.status
    let done = 0
    let total = 0
    for (let k = 0; k < count; k++) {
      const c = section.subItemLine(l, k)
      if (c === NONE || c >= this.rows.n) return null
      const code = status[c]!
      if (code === CANCELLED) continue
      if (code === BROKEN || code === MISSING) return null
      total++
      if (code === DONE) done++
    }
    return `{"done":${done},"total":${total}}`
  }

  /** The viewer's clock in ms, read once. */
  private nowMs = NaN

  /**
   * Whether the row is overdue at the viewer's clock (core/dates.ts
   * isOverdue, of its status and its due date's text read in place); null
   * (view the row the ordinary way) when the value is not a plain quoted string.
   */
  private overdueAt(src: Buffer, bounds: Int32Array, code: number): boolean | null {
    if (isNullAt(src, bounds, K.due)) return false
    const a = bounds[2 * K.due]!
    const z = bounds[2 * K.due + 1]!
    if (z - a < 3 || z - a > 64 || src[a] !== QUOTE || src[z - 1] !== QUOTE) return null
    for (let c = a + 1; c < z - 1; c++) if (src[c] === 0x5c || src[c]! >= 0x80) return null
    if (Number.isNaN(this.nowMs)) this.nowMs = Date.parse(this.input.viewer.now)
    return isOverdue({status: STATUS_TEXT[code] as Status, due: src.toString('latin1', a + 1, z - 1)}, this.nowMs)
  }

  /**
   * The usual row written to the output from its line at src[ls, le) (sv: a
   * DataView over src); false (nothing written) when it has another shape.
   */
  private writeRow(l: number, src: Buffer, sv: DataView, ls: number, le: number, depth: number): boolean {
    const at = this.fields
    const bounds = this.bounds
    if (depth >= P_DEPTH.length) return false
    // The line's fields, then its frontmatter's values, found in place (no call a field).
    if (findTabs(src, ls, le, at, sv) !== LINE_FIELDS) return false
    const count = splitArray(src, at[LINE_FIELDS - 1]! + 1, le, bounds, sv)
    if (count < TASK_KEYS.length) return false
    for (let r = 0; r < REQUIRED.length; r++) if (isNullAt(src, bounds, REQUIRED[r]!)) return false
    // The id as the pass read it is the line's first field: its length from the line, not the string.
    const idLength = at[F_ID]! - ls
    const rows = this.rows
    const code = rows.status[l]!
    if (bounds[2 * K.id + 1]! - bounds[2 * K.id]! !== idLength + 2 || !this.equalsQuoted(src, K.status, STATUS_TEXT[code]!)) return false
    const overdue = this.overdueAt(src, bounds, code)
    if (overdue === null) return false
    const b = rows.bits[l]!
    const open = (b & IS_OPEN) !== 0
    // An open row without the table's waiting fact has no reasons (checked below for those that have it).
    const mayWait = !open || (b & IS_WAITING) !== 0
    // Only a row with dependencies or a parent can wait.
    const reasons = mayWait && (at[F_DEPS]! > at[F_PARENT]! + 1 || at[F_PARENT]! > at[F_PARENT - 1]! + 1) ? this.waitReasons(l, src, at) : ''
    if (reasons === null) return false
    if (open && ((b & IS_WAITING) !== 0) !== (reasons !== '')) return false
    const state = open ? this.input.statesByRank[rows.rank[l]!]! : STATUS_TEXT[code]!
    const ready = (b & IS_READY) !== 0
    const claimLive = (b & IS_LIVE) !== 0
    const waiting = open && reasons !== ''
    const reasonBytes = reasons === '' ? 0 : Buffer.byteLength(reasons)
    this.ensure(2 * (le - ls) + 1024 + reasonBytes)
    // Locals and module-level copy loops: fields read in the loops would be loaded and stored on every byte.
    const o = this.out
    const od = this.outView
    const s = src
    const sd = sv
    const v = bounds
    let p = this.w
    p = emit(o, od, p, s, sd, v, P_ID)
    // The short id: the start of the line's id field, as long as shortIdBetween makes it (the list section's).
    const short = this.section.shortIdLengths[l]!
    if (short === 0 || short > idLength) return false
    for (let c = ls; c < ls + short; c++) o[p++] = s[c]!
    p = emit(o, od, p, s, sd, v, P_TITLE)
    p = putAscii(o, p, state)
    p = emit(o, od, p, s, sd, v, P_PRIORITY[isNullAt(s, v, K.type) ? 0 : 1]!)
    let progress: string | null = null
    if (at[F_SUBITEMS]! > at[F_DEPS]! + 1) {
      o[p++] = QUOTE
      let listed = 1
      for (let c = at[F_DEPS]! + 1; c < at[F_SUBITEMS]!; c++) {
        if (s[c] === 0x20) {
          p = emit(o, od, p, s, sd, v, P_ID_SEPARATOR)
          listed++
        } else o[p++] = s[c]!
      }
      o[p++] = QUOTE
      progress = this.progressAt(l, listed)
      if (progress === null) return false
    }
    p = emit(o, od, p, s, sd, v, P_PROGRESS)
    p = progress === null ? emit(o, od, p, s, sd, v, P_NULL) : putAscii(o, p, progress)
    p = emit(o, od, p, s, sd, v, P_DEPENDS)
    if (reasonBytes > 0) p += o.write(reasons, p, 'utf8')
    p = emit(o, od, p, s, sd, v, P_READY[ready ? 1 : 0]!)
    p = emit(o, od, p, s, sd, v, P_WAITING[waiting ? 1 : 0]!)
    p = emit(o, od, p, s, sd, v, P_OWNER)
    p = emit(o, od, p, s, sd, v, P_LIVE[claimLive ? 1 : 0]!)
    p = emit(o, od, p, s, sd, v, P_SESSION)
    p = emit(o, od, p, s, sd, v, isNullAt(s, v, K.flag_reason) ? P_NULL : P_FLAG)
    p = emit(o, od, p, s, sd, v, P_REST[overdue ? 1 : 0]!)
    p = emit(o, od, p, s, sd, v, P_DEPTH[depth]!)
    this.w = p
    return true
  }
}
