/**
 * The search index cache: `<common-dir>/git-tasks/search-<list>.json`,
 * derived data like the task index (task-index.ts), written by rename of a
 * complete file; a file that cannot be read is treated as missing and
 * rebuilt.
 *
 * Layout: a first line of JSON (the header: format version, list, the
 * commit it describes, and the byte range of each section in the rest of
 * the file), then the sections, one JSON text each:
 * - `docs`: MiniSearch's serialized index without its terms (document ids,
 *   field lengths, averages);
 * - `dirs`: task id → tree id of its directory when it was indexed (so the
 *   next search after the ref moved re-reads only the tasks whose directory
 *   changed);
 * - one shard per term prefix (the first three characters): the terms with
 *   that prefix and their postings, as MiniSearch serializes them.
 * A query at the cached commit parses only `docs` and the shards of its
 * words' prefixes, not the whole index: loading all of MiniSearch's index
 * at 10,000 tasks takes longer than the rest of the command together.
 */
import {closeSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

export const SEARCH_CACHE_VERSION = 2

/** MiniSearch's plain-object form (AsPlainObject), the parts this file splits. */
export interface PlainIndex {
  index: Array<[string, unknown]>
  [key: string]: unknown
}

interface Header {
  version: number
  list: string
  commit: string
  docs: [number, number]
  dirs: [number, number]
  shards: Record<string, [number, number]>
}

export function searchCachePath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `search-${list}.json`)
}

/** The shard a term belongs to. */
export function shardKey(term: string): string {
  return term.slice(0, 3)
}

/** An opened cache file: its commit, and readers of its sections. Any read may throw on a damaged file. */
export interface SearchCache {
  commit: string
  dirs(): Record<string, string>
  /** The whole index (to update it). */
  full(): PlainIndex
  /** The index with only the terms of these shards (to answer a query). */
  only(keys: (shard: string) => boolean): PlainIndex
  close(): void
}

/** Bytes at [start, end) of the open file, read in place (a query reads a few sections, not the whole file). */
function readRange(fd: number, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(end - start)
  let done = 0
  while (done < out.length) {
    const n = readSync(fd, out, done, out.length - done, start + done)
    if (n === 0) throw new Error('damaged search cache: shorter than its header says')
    done += n
  }
  return out
}

/** The first line of the open file (the header), or null when there is none. */
function readHeaderLine(fd: number): {text: string; bodyAt: number} | null {
  {
    const chunks: Buffer[] = []
    let pos = 0
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024)
      const n = readSync(fd, chunk, 0, chunk.length, pos)
      if (n === 0) return null
      const nl = chunk.subarray(0, n).indexOf(0x0a)
      if (nl !== -1) {
        chunks.push(chunk.subarray(0, nl))
        return {text: Buffer.concat(chunks).toString('utf8'), bodyAt: pos + nl + 1}
      }
      chunks.push(chunk.subarray(0, n))
      pos += n
    }
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
  const cache = openedCache(fd, list)
  if (!cache) closeSync(fd)
  return cache
}

function openedCache(fd: number, list: string): SearchCache | null {
  let line: {text: string; bodyAt: number} | null
  let header: Header
  try {
    line = readHeaderLine(fd)
    if (!line) return null
    header = JSON.parse(line.text) as Header
  } catch {
    return null
  }
  if (header?.version !== SEARCH_CACHE_VERSION || header.list !== list || typeof header.commit !== 'string' || !header.shards || !Array.isArray(header.docs) || !Array.isArray(header.dirs)) return null
  const body = line.bodyAt
  const section = (range: [number, number]): unknown => {
    const [start, end] = range
    if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && end >= start)) throw new Error('damaged search cache')
    return JSON.parse(readRange(fd, body + start, body + end).toString('utf8'))
  }
  const index = (keys: (shard: string) => boolean): PlainIndex => {
    const docs = section(header.docs) as PlainIndex
    const terms: Array<[string, unknown]> = []
    for (const [key, range] of Object.entries(header.shards)) if (keys(key)) for (const entry of section(range) as Array<[string, unknown]>) terms.push(entry)
    return {...docs, index: terms}
  }
  return {
    commit: header.commit,
    dirs: () => section(header.dirs) as Record<string, string>,
    full: () => index(() => true),
    only: index,
    close: () => closeSync(fd),
  }
}

export function writeSearchCache(commonDir: string, list: string, commit: string, plain: PlainIndex, dirs: Record<string, string>): void {
  const path = searchCachePath(commonDir, list)
  const tmp = `${path}.${process.pid}.tmp`
  try {
    const {index, ...docs} = plain
    const shards = new Map<string, Array<[string, unknown]>>()
    for (const entry of index) {
      const key = shardKey(entry[0])
      let list = shards.get(key)
      if (!list) shards.set(key, (list = []))
      list.push(entry)
    }
    const parts: string[] = []
    let offset = 0
    const add = (text: string): [number, number] => {
      const start = offset
      parts.push(text, '\n')
      offset += Buffer.byteLength(text) + 1
      return [start, offset - 1]
    }
    const header: Header = {version: SEARCH_CACHE_VERSION, list, commit, docs: add(JSON.stringify(docs)), dirs: add(JSON.stringify(dirs)), shards: {}}
    for (const [key, entries] of shards) header.shards[key] = add(JSON.stringify(entries))
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    writeFileSync(tmp, `${JSON.stringify(header)}\n${parts.join('')}`)
    renameSync(tmp, path)
  } catch {
    // A cache that cannot be written is rebuilt next time; the search result stands.
    rmSync(tmp, {force: true})
  }
}
