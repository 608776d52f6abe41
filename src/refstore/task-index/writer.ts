/**
 * The writer of the index cache file (`writeCachedIndex`): the header, the
 * stored tables, the list section (list-section-writer.ts) and one line per
 * task. A file brought forward copies the old file's lines of the tasks
 * that did not change. Written by rename of a complete file; a failure
 * leaves the old file, and is not the command's failure.
 */
import {closeSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {type Snapshot, type SnapshotTables, tablesOf} from '../../core/snapshot'
import {type IndexedTask, type TaskIndex, snapshotOf} from './entry'
import {DIRECTORY_EVERY, MAGIC, NL, cachePath} from './format'
import {IndexFile} from './index-file'
import {encodeListSection} from './list-section-writer'
import {encodeOpenRows} from './open-rows'

/** Lines of the cache file made and written at once. */
const WRITE_BATCH = 4096
/** Bytes of the lines copied at a time from their file into the cache file. */
const COPY_CHUNK = 1024 * 1024
const NEWLINE = Buffer.from('\n')

/** Write all of `buf` at `position` of the open file `fd`. */
function writeAll(fd: number, buf: Uint8Array, position: number): void {
  for (let done = 0; done < buf.length; ) done += writeSync(fd, buf, done, buf.length - done, position + done)
}

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
    // them records their sizes and the line directory, and holding every line until the header is known
    // would keep a second copy of the body at the peak of a cold build. The header and the list section
    // are then written, and the lines copied after them.
    const fd = openSync(tmp, 'w')
    let bodyFd = -1
    try {
      bodyFd = openSync(bodyTmp, 'w+')
      const lines = writeTaskLines(bodyFd, ids, lineOf, lengths)
      const {base, changes, ...header} = index
      const {text, openRows} = tableLines(tables)
      const list = encodeListSection(snap, openRows, ids, lengths, old, index.changes, touched)
      const sizes = {listBytes: list.bytes.length, listSection: list.meta, leasesBytes: Buffer.byteLength(text.leases), count: ids.length, bytes: lines.bytes, queueBytes: Buffer.byteLength(text.queue), reservedBytes: Buffer.byteLength(text.reserved), claimsBytes: Buffer.byteLength(text.claims), openBytes: Buffer.byteLength(text.open), directoryBytes: Buffer.byteLength(lines.directory)}
      const head = Buffer.from(`${MAGIC}\n${JSON.stringify({...header, ...sizes})}\n${text.queue}\n${text.reserved}\n${text.claims}\n${text.open}\n${text.leases}\n${lines.directory}\n`)
      writeAll(fd, head, 0)
      writeAll(fd, list.bytes, head.length)
      writeAll(fd, NEWLINE, head.length + list.bytes.length)
      copyLines(bodyFd, lines.bytes, fd, head.length + list.bytes.length + 1)
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
 * Write the line of every id (`lineOf`) to `bodyFd`, a batch at a time,
 * noting each line's byte length in `lengths`; returns the bytes written and
 * the line directory (every DIRECTORY_EVERY-th line's id and offset) as JSON.
 */
function writeTaskLines(bodyFd: number, ids: readonly string[], lineOf: (id: string) => string, lengths: Int32Array): {bytes: number; directory: string} {
  const dirIds: string[] = []
  const dirAt: number[] = []
  let bytes = 0
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
  return {bytes, directory: JSON.stringify({ids: dirIds.join(' '), at: dirAt})}
}

/** The stored tables' lines (next queue, reservations, claims, open rows, leases), and the open rows they were made from. */
function tableLines(tables: SnapshotTables): {text: {queue: string; reserved: string; claims: string; open: string; leases: string}; openRows: ReturnType<SnapshotTables['openRows']>} {
  const queue = tables.nextQueue().join(' ')
  const byKey = (m: ReadonlyMap<string, readonly string[]>) => JSON.stringify(Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))
  const reserved = byKey(tables.reservations())
  const claims = byKey(tables.claims())
  // Made once: a snapshot without store tables (a cold build) works the open rows out on every call.
  const openRows = tables.openRows()
  const open = JSON.stringify(encodeOpenRows(openRows))
  const leases = JSON.stringify(tables.leases())
  return {text: {queue, reserved, claims, open, leases}, openRows}
}

/** Copy the `bytes` bytes of lines in `bodyFd` into `fd` from `into`, a chunk at a time. */
function copyLines(bodyFd: number, bytes: number, fd: number, into: number): void {
  let copied = 0
  const chunk = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(bytes, 1)))
  while (copied < bytes) {
    const n = readSync(bodyFd, chunk, 0, Math.min(chunk.length, bytes - copied), copied)
    if (n === 0) throw new Error(`index cache lines end at ${copied} of ${bytes} bytes`)
    writeAll(fd, chunk.subarray(0, n), into + copied)
    copied += n
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
