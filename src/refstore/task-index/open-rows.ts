/**
 * The open rows line of the cache file: `SnapshotTables.openRows` (every
 * open item in list order with the facts its state needs) encoded as binary
 * columns (`encodeOpenRows`) and read back in place through typed arrays
 * (`ColumnOpenRows`), so a page of a listing allocates nothing per row.
 */
import {type OpenRow, type OpenRowColumns, type OpenRows, openRowColumns} from '../../core/snapshot'
import {LITTLE_ENDIAN, damaged, indexIn} from './format'

/**
 * The open rows line of the file, made to be read without an object per
 * row: the small fields of every row as binary columns in one base64
 * string (`packed`, little-endian: per row a byte of status and flags,
 * then 32-bit words: positions in `priorities`, in `people` ('' first) for
 * the owner and the assignee, the position of the parent's row (-1 when it
 * has none or the parent is not open), and the title's hash (`titleHash`,
 * core/title.ts: what the same-title check of `add` compares before it reads
 * any frontmatter), since cache format 12); ids and creation times concatenated
 * when they all have one length (the usual case), else as lists; the
 * parents of rows that have one, and the lease ends as [row, ms] pairs for
 * the canonical ISO form (`leaseText` keeps any other text, parsed when
 * read).
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
  /** Issue 33 (cache format 13): [row, ms] pairs of rows whose wake time (`wakeMsOf`) is not -Infinity; null for +Infinity. */
  wakes: Array<number | null>
}

/** 32-bit words of a row in `packed` after the status bytes: priority, owner, assignee, parent row, title hash. */
const ROW_WORDS = 5

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
  const wakes: Array<number | null> = []
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
    bytes.writeInt32LE(cols.titleHash(i), w + 16)
    const parent = cols.parent(i)
    if (parent !== '') parents[String(i)] = parent
    const lease = cols.leaseText(i)
    if (lease !== '') {
      const ms = Date.parse(lease)
      // Only the canonical form is kept as a number: any other text is kept and parsed when read.
      if (Number.isFinite(ms) && ms >= 0 && new Date(ms).toISOString() === lease) leases.push(i, ms)
      else leaseText[String(i)] = lease
    }
    const wake = cols.wake(i)
    if (wake !== Number.NEGATIVE_INFINITY) wakes.push(i, Number.isFinite(wake) ? wake : null)
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
    wakes,
  }
}

/** The open rows of the file, read in place from the packed columns; the rows as arrays are made only if asked for (the overlay). */
export class ColumnOpenRows implements OpenRows, OpenRowColumns {
  readonly length: number
  readonly finished: number
  readonly broken: readonly string[]
  private readonly head: Uint8Array
  /** Per row: priority, owner, assignee, parent row, title hash. */
  private readonly words: Int32Array
  private readonly leaseEnds: Float64Array
  private readonly wakes: Float64Array
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
      ![e.broken, e.statuses, e.priorities, e.people, e.leases, e.wakes].every(Array.isArray) ||
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
    this.wakes = new Float64Array(n).fill(Number.NEGATIVE_INFINITY)
    for (let k = 0; k + 1 < e.wakes.length; k += 2) {
      const at = e.wakes[k]
      if (typeof at !== 'number' || at < 0 || at >= n) throw damaged('the open rows line')
      this.wakes[at] = e.wakes[k + 1] ?? Number.POSITIVE_INFINITY
    }
  }

  wake(i: number): number {
    return this.wakes[i]!
  }

  get columns(): OpenRowColumns {
    return this
  }

  get rows(): readonly OpenRow[] {
    if (!this.tuples) {
      const out: OpenRow[] = []
      for (let i = 0; i < this.length; i++) {
        out.push([this.id(i), this.status(i), this.priority(i), this.created(i), this.parent(i), this.owner(i), this.assignee(i), this.leaseText(i), this.flags(i), this.titleHash(i), this.wake(i)])
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

  titleHash(i: number): number {
    return this.words[i * ROW_WORDS + 4]!
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
