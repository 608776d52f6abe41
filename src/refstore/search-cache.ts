/**
 * The search index cache: `<common-dir>/git-tasks/search-<list>.idx`,
 * derived data like the task index (task-index.ts), written by rename of a
 * complete file; a file that cannot be read is treated as missing and
 * rebuilt.
 *
 * Layout (app/text-index.ts describes the arrays): a first line of JSON
 * (the header: format version, list, the commit it describes, the index's
 * figures, and the byte range and checksum of each section in the rest of
 * the file), then the sections, each padded to 4 bytes, little-endian:
 * - `termStart` (u32), `termChars` (u16): the sorted term dictionary;
 * - `fieldLength` (u32, docs × fields);
 * - `idStart` (u32), `ids` (UTF-8): the task id of each document number;
 * - `termFields` (u32): where each term's postings in each field start;
 * - `pairs` (u32): the postings, [document, term frequency] pairs;
 * - `status` (u8, one per document): the card's stored status
 *   (`STORED_STATUS_ORDER`), so a `--status` filter needs no card and no open rows;
 * - `textStart` (u32, five per document and the end), `texts` (UTF-8):
 *   each document's title, description, comments, check texts and check
 *   evidence (each joined by a blank line): the exact-title check and the snippets of the hits shown read
 *   them here, not from the cards or git;
 * - `dirs` (JSON): task id → tree id of its directory when it was indexed
 *   (so the next search after the ref moved re-reads only the tasks whose
 *   directory changed).
 * A query at the cached commit reads the dictionary and document tables
 * whole (checked against their checksums) and, in place, only the
 * postings of its terms (a word's exact and prefix matches are one range)
 * and the texts of the hits shown; the status table only with a filter.
 * Everything the index keeps of a document comes from its directory, so it
 * is right exactly as long as the directory's tree id is the one in `dirs`.
 */
import {closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {isAscii} from 'node:buffer'
import {join} from 'node:path'
import {createHash} from 'node:crypto'
import * as zlib from 'node:zlib'
import {type FlatIndex, type TextIndex, flatIndex, startsOf} from '../core/text-index'

export const SEARCH_CACHE_VERSION = 6

const SECTIONS = ['termStart', 'termChars', 'fieldLength', 'idStart', 'ids', 'termFields', 'pairs', 'status', 'textStart', 'texts', 'dirs'] as const
type Section = (typeof SECTIONS)[number]

interface Header {
  version: number
  list: string
  commit: string
  endian: 'le'
  docCount: number
  docs: number
  terms: number
  fields: string[]
  avgFieldLength: number[]
  /** How the sections are checked: `crc32` (Node 20.15 and later) or `sha1`. */
  sum: 'crc32' | 'sha1'
  /** Byte offset (after the header line), byte length, checksum of the padded words. */
  sections: Record<Section, [number, number, string]>
}

export function searchCachePath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `search-${list}.idx`)
}

/** The stored statuses, by code (`DocFacts.status`); 0 is any other value. */
// Issue 33: deferred and failed appended (search cache format 6).
export const STORED_STATUS_ORDER = ['', 'todo', 'in_progress', 'blocked', 'done', 'cancelled', 'deferred', 'failed'] as const

export function statusCode(status: string): number {
  const code = (STORED_STATUS_ORDER as readonly string[]).indexOf(status)
  return code > 0 ? code : 0
}

export const TEXTS_PER_DOC = 5
export const TEXT_TITLE = 0
export const TEXT_BODY = 1
export const TEXT_COMMENTS = 2
/** The texts of the card's checks, joined by a blank line. */
export const TEXT_CHECKS = 3
/** The evidence of the card's checks, joined by a blank line. */
export const TEXT_EVIDENCE = 4

/** What the index keeps of each document besides its terms, by document number. */
export interface DocFacts {
  /** The card's stored status (`STORED_STATUS_ORDER`). */
  status: Uint8Array
  /** `TEXTS_PER_DOC` UTF-8 texts per document (`TEXT_TITLE`, `TEXT_BODY`, `TEXT_COMMENTS`, `TEXT_CHECKS`, `TEXT_EVIDENCE`): 5n its title, 5n+1 its description, 5n+2 its comments, 5n+3 its checks' texts, 5n+4 their evidence, each joined by a blank line. */
  texts: readonly Uint8Array[]
}

/** An opened cache file: its commit, and readers of its sections. Any read may throw on a damaged file. */
export interface SearchCache {
  commit: string
  dirs(): Record<string, string>
  /** The index for a query: tables read whole, postings read in place when asked for. */
  index(): TextIndex
  /** The stored status of every document (`STORED_STATUS_ORDER`), read whole. */
  status(): Uint8Array
  /** Texts `from` to `to` - 1 (`TEXT_TITLE`, …) of one document, read in place. */
  text(doc: number, from: number, to: number): string[]
  /** The whole index and the documents' facts in memory (to update them). */
  full(): FlatIndex
  facts(): DocFacts
  close(): void
}

function damaged(what: string): Error {
  return new Error(`damaged search cache: ${what}`)
}

/** zlib's CRC-32 where this Node has it (20.15 and later). */
const crc32 = (zlib as {crc32?: (data: Uint8Array) => number}).crc32

/**
 * The checksum of a section's padded words, hex: CRC-32 when this Node has
 * it (it catches a torn or altered file as well, at a fraction of SHA-1's
 * cost, and without initializing OpenSSL, which a query pays for only this),
 * else SHA-1. The header says which; a file summed by a kind this Node
 * lacks is rebuilt.
 */
const SUM: Header['sum'] = crc32 ? 'crc32' : 'sha1'

function checksum(words: Uint32Array, sum: Header['sum'] = SUM): string {
  if (sum === 'crc32') return crc32!(new Uint8Array(words.buffer, words.byteOffset, words.byteLength)).toString(16)
  return createHash('sha1').update(words).digest('hex')
}

const padded = (n: number): number => (n + 3) & ~3

/** `length` bytes at `position` into a fresh, 4-byte aligned buffer (padded to whole words). */
function readWords(fd: number, position: number, length: number): Uint32Array {
  const out = new Uint32Array(padded(length) / 4)
  const bytes = new Uint8Array(out.buffer, 0, length)
  let done = 0
  while (done < length) {
    const n = readSync(fd, bytes, done, length - done, position + done)
    if (n === 0) throw damaged('shorter than its header says')
    done += n
  }
  return out
}

/** The first line of the open file (the header), or null when there is none. */
function readHeaderLine(fd: number): {text: string; bodyAt: number} | null {
  const chunks: Buffer[] = []
  let pos = 0
  for (;;) {
    const chunk = Buffer.allocUnsafe(4096)
    const n = readSync(fd, chunk, 0, chunk.length, pos)
    if (n === 0) return null
    const nl = chunk.subarray(0, n).indexOf(0x0a)
    if (nl !== -1) {
      chunks.push(chunk.subarray(0, nl))
      return {text: Buffer.concat(chunks).toString('utf8'), bodyAt: pos + nl + 1}
    }
    chunks.push(chunk.subarray(0, n))
    pos += n
    if (pos > 1 << 20) return null
  }
}

/**
 * The cached file, or null when missing or of another version or list.
 * Sections are read when asked for, from the file as it was opened (a
 * newer version renamed over it meanwhile is not mixed in); close() when done.
 */
export function readSearchCache(commonDir: string, list: string): SearchCache | null {
  let fd: number
  try {
    fd = openSync(searchCachePath(commonDir, list), 'r')
  } catch {
    return null
  }
  let cache: SearchCache | null = null
  try {
    cache = openedCache(fd, list)
  } catch {
    cache = null
  }
  if (!cache) closeSync(fd)
  return cache
}

function openedCache(fd: number, list: string): SearchCache | null {
  let line: {text: string; bodyAt: number} | null
  let h: Header
  try {
    line = readHeaderLine(fd)
    if (!line) return null
    h = JSON.parse(line.text) as Header
  } catch {
    return null
  }
  if (h?.version !== SEARCH_CACHE_VERSION || (h.sum !== 'sha1' && !(h.sum === 'crc32' && crc32)) || h.list !== list || typeof h.commit !== 'string' || h.endian !== 'le' || !h.sections || !Array.isArray(h.fields) || !Array.isArray(h.avgFieldLength)) return null
  const F = h.fields.length
  const T = h.terms
  const D = h.docs
  if (![T, D, F, h.docCount].every((n) => Number.isInteger(n) && n >= 0) || F > 8 || h.avgFieldLength.length !== F) return null
  const body = line.bodyAt
  const size = fstatSync(fd).size
  const range = (name: Section): [number, number] => {
    const s = h.sections[name]
    if (!Array.isArray(s) || !Number.isInteger(s[0]) || !Number.isInteger(s[1]) || s[0] < 0 || s[1] < 0 || body + s[0] + padded(s[1]) > size) throw damaged(`section ${name}`)
    return [body + s[0], s[1]]
  }
  for (const name of SECTIONS) range(name)
  /** A section read whole and checked against its checksum. */
  const whole = (name: Section, expectBytes?: number): Uint32Array => {
    const [at, length] = range(name)
    if (expectBytes !== undefined && length !== expectBytes) throw damaged(`section ${name} has the wrong size`)
    const words = readWords(fd, at, length)
    if (checksum(words, h.sum) !== h.sections[name][2]) throw damaged(`section ${name} fails its checksum`)
    return words
  }
  const tables = () => {
    const termStart = whole('termStart', (T + 1) * 4)
    const chars = termStart[T]!
    const termChars = new Uint16Array(whole('termChars', chars * 2).buffer, 0, chars)
    const fieldLength = whole('fieldLength', D * F * 4)
    const idStart = whole('idStart', (D + 1) * 4)
    const idBytes = idStart[D]!
    const ids = Buffer.from(whole('ids', idBytes).buffer, 0, idBytes)
    return {termStart, termChars, fieldLength, idStart, ids}
  }
  const [textStartAt, textStartBytes] = range('textStart')
  if (textStartBytes !== (TEXTS_PER_DOC * D + 1) * 4) throw damaged('textStart size')
  const [textsAt, textsBytes] = range('texts')
  const [termFieldsAt, termFieldsBytes] = range('termFields')
  const [pairsAt, pairsBytes] = range('pairs')
  if (termFieldsBytes !== (T * F + 1) * 4) throw damaged('termFields size')
  const P = pairsBytes / 8
  if (!Number.isInteger(P)) throw damaged('pairs size')
  return {
    commit: h.commit,
    dirs: () => {
      const [at, length] = range('dirs')
      const words = readWords(fd, at, length)
      if (checksum(words, h.sum) !== h.sections.dirs[2]) throw damaged('section dirs fails its checksum')
      return JSON.parse(Buffer.from(words.buffer, 0, length).toString('utf8')) as Record<string, string>
    },
    index: (): TextIndex => {
      const t = tables()
      return {
        docCount: h.docCount,
        docs: D,
        fields: h.fields,
        avgFieldLength: h.avgFieldLength,
        termCount: T,
        termChars: t.termChars,
        termStart: t.termStart,
        fieldLength: t.fieldLength,
        termFields: (lo, hi) => {
          if (!(lo >= 0 && hi >= lo && hi <= T)) throw damaged('term range')
          const out = readWords(fd, termFieldsAt + lo * F * 4, ((hi - lo) * F + 1) * 4)
          for (let i = 1; i < out.length; i++) if (out[i]! < out[i - 1]!) throw damaged('posting offsets')
          if (out[out.length - 1]! > P) throw damaged('posting offsets')
          return out
        },
        pairs: (from, to) => {
          if (!(from >= 0 && to >= from && to <= P)) throw damaged('posting range')
          return readWords(fd, pairsAt + from * 8, (to - from) * 8)
        },
        // Task ids are ASCII: one decoded string, sliced per document (a hit's id is a slice, not a decode).
        docId: isAscii(t.ids) ? ((text) => (doc: number) => text.slice(t.idStart[doc]!, t.idStart[doc + 1]!))(t.ids.toString('latin1')) : (doc) => t.ids.toString('utf8', t.idStart[doc]!, t.idStart[doc + 1]!),
      }
    },
    status: () => new Uint8Array(whole('status', D).buffer, 0, D),
    text: (doc, from, to) => {
      if (!(Number.isInteger(doc) && doc >= 0 && doc < D && from >= 0 && from < to && to <= TEXTS_PER_DOC)) throw damaged('document number')
      // Their offsets and their bytes: two reads.
      const at = readWords(fd, textStartAt + (doc * TEXTS_PER_DOC + from) * 4, (to - from + 1) * 4)
      for (let i = 1; i < at.length; i++) if (!(at[i - 1]! <= at[i]!)) throw damaged('text offsets')
      if (at[at.length - 1]! > textsBytes) throw damaged('text offsets')
      const bytes = Buffer.from(readWords(fd, textsAt + at[0]!, at[at.length - 1]! - at[0]!).buffer, 0, at[at.length - 1]! - at[0]!)
      const out: string[] = []
      for (let i = 0; i < to - from; i++) out.push(bytes.toString('utf8', at[i]! - at[0]!, at[i + 1]! - at[0]!))
      return out
    },
    facts: (): DocFacts => {
      const status = new Uint8Array(whole('status', D).buffer, 0, D)
      const starts = whole('textStart')
      const texts = Buffer.from(whole('texts').buffer, 0, textsBytes)
      if (starts[0] !== 0 || starts[TEXTS_PER_DOC * D] !== textsBytes) throw damaged('text offsets')
      const parts: Uint8Array[] = []
      for (let i = 0; i < TEXTS_PER_DOC * D; i++) {
        if (starts[i + 1]! < starts[i]!) throw damaged('text offsets')
        parts.push(texts.subarray(starts[i]!, starts[i + 1]!))
      }
      return {status, texts: parts}
    },
    full: (): FlatIndex => {
      const t = tables()
      const termFields = whole('termFields')
      const pairs = whole('pairs')
      const ids: string[] = []
      for (let n = 0; n < D; n++) ids.push(t.ids.toString('utf8', t.idStart[n]!, t.idStart[n + 1]!))
      for (let i = 1; i < termFields.length; i++) if (termFields[i]! < termFields[i - 1]!) throw damaged('posting offsets')
      if (termFields[T * F] !== P) throw damaged('posting offsets')
      for (let p = 0; p < pairs.length; p += 2) if (pairs[p]! >= D) throw damaged('a posting names no document')
      return flatIndex({docCount: h.docCount, fields: h.fields, avgFieldLength: h.avgFieldLength, termChars: t.termChars, termStart: t.termStart, fieldLength: t.fieldLength, termFields, pairs, ids})
    },
    close: () => closeSync(fd),
  }
}

export function writeSearchCache(commonDir: string, list: string, commit: string, flat: FlatIndex, facts: DocFacts, dirs: Record<string, string>): void {
  const path = searchCachePath(commonDir, list)
  const tmp = `${path}.${process.pid}.tmp`
  try {
    if (facts.status.length !== flat.docs || facts.texts.length !== TEXTS_PER_DOC * flat.docs) throw new Error('document facts do not match the index')
    const idBuffers = flat.ids.map((id) => Buffer.from(id, 'utf8'))
    const idStart = startsOf(idBuffers.map((b) => b.length))
    const content: Record<Section, Uint8Array> = {
      termStart: bytesOf(flat.termStart),
      termChars: bytesOf(flat.termChars),
      fieldLength: bytesOf(flat.fieldLength),
      idStart: bytesOf(idStart),
      ids: Buffer.concat(idBuffers),
      termFields: bytesOf(flat.allTermFields),
      pairs: bytesOf(flat.allPairs),
      status: facts.status,
      textStart: bytesOf(startsOf(facts.texts.map((t) => t.length))),
      texts: Buffer.concat(facts.texts),
      dirs: Buffer.from(JSON.stringify(dirs), 'utf8'),
    }
    const sections = {} as Header['sections']
    const parts: Uint8Array[] = []
    let offset = 0
    for (const name of SECTIONS) {
      const bytes = content[name]
      const words = new Uint32Array(padded(bytes.length) / 4)
      new Uint8Array(words.buffer).set(bytes)
      sections[name] = [offset, bytes.length, checksum(words)]
      parts.push(new Uint8Array(words.buffer))
      offset += words.byteLength
    }
    const header: Header = {
      version: SEARCH_CACHE_VERSION,
      sum: SUM,
      list,
      commit,
      endian: 'le',
      docCount: flat.docCount,
      docs: flat.docs,
      terms: flat.termCount,
      fields: [...flat.fields],
      avgFieldLength: [...flat.avgFieldLength],
      sections,
    }
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), ...parts]))
    renameSync(tmp, path)
    // The cache of format 2 (MiniSearch's JSON) under its old name is no longer read.
    rmSync(join(commonDir, 'git-tasks', `search-${list}.json`), {force: true})
  } catch {
    // A cache that cannot be written is rebuilt next time; the search result stands.
    rmSync(tmp, {force: true})
  }
}

function bytesOf(a: Uint32Array | Uint16Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
}
