/**
 * The small shared facts of the index cache file's format: its version and
 * first line, the separators of its text lines, where the file lives, and
 * the error a damaged file raises. Every module of the folder that reads or
 * writes the file takes these from here, so the format has one version.
 */
import {join} from 'node:path'
import {EnvironmentError} from '../../core/errors'
import {ID_PREFIX, MIN_PREFIX} from '../../core/ids'

export const CACHE_VERSION = 15
/** First line of the file; it names the format version, so another version is simply not read. */
export const MAGIC = `git-tasks index ${CACHE_VERSION}`
export const NO_IDS: readonly string[] = Object.freeze([])
/** The shortest short id (shortIdBetween). */
export const SHORTEST_ID = ID_PREFIX.length + MIN_PREFIX
/** Every how many task lines the line directory notes an id and its offset (a few pages of lines apart). */
export const DIRECTORY_EVERY = 128
export const NL = 0x0a
export const TAB = 0x09
/** A shard's name under tasks/: two hex digits. */
export const SHARD_RE = /^[0-9a-f]{2}$/
/** Binary parts of the file are little-endian; on another machine they are read word by word or not used. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** The index of `value` in `table`, appended (and noted in `at`) the first time it is asked for. */
export function indexIn<T>(table: T[], at: Map<T, number>, value: T): number {
  let i = at.get(value)
  if (i === undefined) {
    i = table.length
    table.push(value)
    at.set(value, i)
  }
  return i
}

/** Where the cache file of `list` lives. */
export function cachePath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `index-${list}`)
}

/** A line of the file that does not parse: the cache was damaged outside git-tasks. */
export function damaged(what: string): EnvironmentError {
  return new EnvironmentError('index_damaged', `the git-tasks index cache is damaged (${what}); delete .git/git-tasks/ and run the command again`)
}
