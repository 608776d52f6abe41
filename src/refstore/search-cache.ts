/**
 * The search index cache: `<common-dir>/git-tasks/search-<list>.json`,
 * derived data like the task index (task-index.ts). It records the commit
 * it describes, the tree id of every indexed task's directory (so the next
 * search re-reads only the tasks whose directory changed), and the
 * serialized MiniSearch index: a first line of JSON (the header) and then
 * MiniSearch's own JSON. Written by rename of a complete file; a file that
 * cannot be parsed is treated as missing and rebuilt.
 */
import {mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

export const SEARCH_CACHE_VERSION = 1

export interface SearchCacheFile {
  version: number
  list: string
  commit: string
  /** Task id → tree id of its directory when it was indexed. */
  dirs: Record<string, string>
  /** MiniSearch's own JSON (MiniSearch.loadJSON reads it back). */
  index: string
}

export function searchCachePath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `search-${list}.json`)
}

/** The cached file, or null when missing, unreadable, of another version or list. */
export function readSearchCache(commonDir: string, list: string): SearchCacheFile | null {
  let text: string
  try {
    text = readFileSync(searchCachePath(commonDir, list), 'utf8')
  } catch {
    return null
  }
  try {
    const nl = text.indexOf('\n')
    if (nl === -1) return null
    const parsed = {...(JSON.parse(text.slice(0, nl)) as Omit<SearchCacheFile, 'index'>), index: text.slice(nl + 1)} as SearchCacheFile
    if (parsed?.version !== SEARCH_CACHE_VERSION || parsed.list !== list || typeof parsed.commit !== 'string' || typeof parsed.index !== 'string' || typeof parsed.dirs !== 'object' || parsed.dirs === null) return null
    return parsed
  } catch {
    return null
  }
}

export function writeSearchCache(commonDir: string, file: SearchCacheFile): void {
  const path = searchCachePath(commonDir, file.list)
  try {
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    const tmp = `${path}.${process.pid}.tmp`
    const {index, ...header} = file
    writeFileSync(tmp, `${JSON.stringify(header)}\n${index}`)
    renameSync(tmp, path)
  } catch {
    // A cache that cannot be written is rebuilt next time; the search result stands.
    rmSync(`${path}.${process.pid}.tmp`, {force: true})
  }
}
