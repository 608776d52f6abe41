/**
 * Reading the cache (`readCachedIndex`: the cache file plus the delta file
 * beside it) and writing the delta file (`writeIndexDelta`): the changed
 * tasks a command learnt by bringing the cache file forward, so the next
 * command starts from the commit it reached. The delta is only a shortcut:
 * anything wrong with it and it is ignored.
 */
import {createHash} from 'node:crypto'
import {readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {isStoredId} from '../../core/ids'
import {withConfigDefaults} from '../../core/task'
import {type IndexHeader, type IndexedTask, type TaskIndex, parseLine} from './entry'
import {MAGIC, NL, cachePath} from './format'
import {IndexFile} from './index-file'

/**
 * Read the cache file, and the delta beside it when it continues this very
 * file (see writeIndexDelta); null when the file is absent, of another
 * version or list, or torn. A delta that is missing, stale (written for
 * another version of the file), damaged or torn is ignored: the index is
 * then the file's alone, brought forward from its commit.
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
 * replaying the same commits again (rewriting the whole file for a few
 * changes would cost far more). Format (text):
 *   git-tasks index 10 delta <commit of the cache file it continues>
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
export const fileCommits = new WeakMap<IndexFile, string>()
/** For an index read with its delta: the cache file alone (used when the delta's trees are gone from the repository). */
export const deltaFallback = new WeakMap<TaskIndex, TaskIndex>()
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
    header.config = withConfigDefaults(header.config)
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
