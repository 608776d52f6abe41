/**
 * Git's object formats, read and written in-process: trees and commits are
 * encoded exactly as git does, hashed with the repository's object format
 * (sha1 or sha256), and stored as zlib-deflated loose objects under the
 * object directory, the way `git hash-object -w` stores them. Doing this in
 * process saves the five or six `git` processes one mutation would otherwise
 * start (blob, trees, commit); the ref itself is still only ever moved by
 * `git update-ref` (see ref-transaction.ts).
 *
 * Must never: write anything but complete, correctly named objects. An object
 * is written to a temporary file and renamed into place, so a reader never
 * sees a partial object, and an object that already exists is not written
 * again.
 *
 * Like git, objects are flushed to disk only when the repository asks for it
 * (core.fsync naming loose objects, or core.fsyncObjectFiles): `flush` then
 * fsyncs every object written since the last flush and its directory, before
 * the ref that makes them reachable moves (git's "batch" order). A killed
 * write can leave a `tmp_obj_*` file behind in the object directory; a
 * writer's first write removes those older than STALE_TMP_OBJ_MS.
 */
import {createHash} from 'node:crypto'
import {closeSync, existsSync, fchmodSync, fsyncSync, mkdir, mkdirSync, open, openSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {deflateSync} from 'node:zlib'
import {EnvironmentError} from '../core/errors'
import {decodeUtf8} from '../core/validation'

export type ObjectType = 'blob' | 'tree' | 'commit'
export type HashAlgorithm = 'sha1' | 'sha256'

export const TREE_MODE = '40000'
export const FILE_MODE = '100644'

export interface TreeEntry {
  mode: string
  name: string
  oid: string
  /**
   * The name's bytes, when they are not valid UTF-8 (`name` then holds a
   * lossy copy for messages): a tree written back keeps them as they were.
   */
  raw?: Buffer
}

/** The all-zero object id meaning "must not exist yet" in a ref update. */
export function zeroOid(algorithm: HashAlgorithm): string {
  return '0'.repeat(algorithm === 'sha1' ? 40 : 64)
}

/** Object id of `content` stored as `type`. */
export function hashObject(algorithm: HashAlgorithm, type: ObjectType, content: Buffer): string {
  return createHash(algorithm).update(`${type} ${content.length}\0`).update(content).digest('hex')
}

function nameBytes(e: TreeEntry): Buffer {
  return e.raw ?? Buffer.from(e.name)
}

/** Git's tree order: byte order of names, with a tree's name compared as if it ended in '/'. */
function treeSortKey(e: TreeEntry): Buffer {
  return e.mode === TREE_MODE ? Buffer.concat([nameBytes(e), Buffer.from('/')]) : nameBytes(e)
}

const ASCII_RE = /^[\x00-\x7f]*$/

export function encodeTree(entries: readonly TreeEntry[]): Buffer {
  return encodeAsciiTree(entries) ?? encodeAnyTree(entries)
}

/**
 * encodeTree for the usual tree, every name ASCII and every id whole hex
 * (null otherwise): sort keys as strings (code-unit order is byte order for
 * ASCII) and one buffer written in place, instead of a few small buffers per
 * entry joined at the end (a shard tree at 100,000 tasks has ~400 entries).
 */
function encodeAsciiTree(entries: readonly TreeEntry[]): Buffer | null {
  let size = 0
  for (const e of entries) {
    if (e.raw || !ASCII_RE.test(e.name) || !ASCII_RE.test(e.mode) || e.oid.length % 2 !== 0) return null
    size += e.mode.length + e.name.length + 2 + e.oid.length / 2
  }
  let ordered: readonly TreeEntry[] = entries
  const keyOf = (e: TreeEntry) => (e.mode === TREE_MODE ? `${e.name}/` : e.name)
  for (let i = 1; i < entries.length; i++) {
    if (keyOf(entries[i - 1]!) > keyOf(entries[i]!)) {
      ordered = entries
        .map((e) => ({e, key: keyOf(e)}))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
        .map((k) => k.e)
      break
    }
  }
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (const e of ordered) {
    at += out.write(e.mode, at, 'latin1')
    out[at++] = 0x20
    at += out.write(e.name, at, 'latin1')
    out[at++] = 0
    const n = out.write(e.oid, at, 'hex')
    if (n !== e.oid.length / 2) return null
    at += n
  }
  return out
}

function encodeAnyTree(entries: readonly TreeEntry[]): Buffer {
  // Each entry's key is made once (a shard tree has hundreds of entries at 100,000 tasks), and the
  // sort is skipped when the entries are already in order, as a decoded tree edited in place is.
  const keyed = entries.map((e) => ({e, key: treeSortKey(e)}))
  let inOrder = true
  for (let i = 1; i < keyed.length && inOrder; i++) inOrder = Buffer.compare(keyed[i - 1]!.key, keyed[i]!.key) <= 0
  if (!inOrder) keyed.sort((a, b) => Buffer.compare(a.key, b.key))
  const parts: Buffer[] = []
  for (const {e} of keyed) {
    parts.push(Buffer.from(`${e.mode} `), nameBytes(e), Buffer.from([0]), Buffer.from(e.oid, 'hex'))
  }
  return Buffer.concat(parts)
}

/**
 * The entries of a tree object. A malformed tree (anyone can push one: git
 * does not check objects it receives unless transfer.fsckObjects is set) is
 * a `bad_object` error, never a loop or a garbled listing.
 */
export function decodeTree(content: Buffer, algorithm: HashAlgorithm): TreeEntry[] {
  const oidBytes = algorithm === 'sha1' ? 20 : 32
  const n = content.length
  const out: TreeEntry[] = []
  let i = 0
  // Scanned byte by byte rather than with indexOf: entries are short, and a call into the buffer
  // binding per field cost more than the scan (a catch-up decodes thousands of entries).
  while (i < n) {
    let space = i
    while (space < n && content[space] !== 0x20) space++
    let nul = space + 1
    let ascii = true
    while (nul < n && content[nul] !== 0) {
      if (content[nul]! >= 0x80) ascii = false
      nul++
    }
    if (space >= n || nul >= n || nul + 1 + oidBytes > n) {
      throw new EnvironmentError('bad_object', 'a tree object on the tasks ref is malformed (run `git fsck`)')
    }
    const mode = isMode(content, i, space, TREE_MODE) ? TREE_MODE : isMode(content, i, space, FILE_MODE) ? FILE_MODE : content.toString('latin1', i, space)
    const bytes = content.subarray(space + 1, nul)
    const name = ascii ? content.toString('latin1', space + 1, nul) : decodeUtf8(bytes)
    const oid = content.toString('hex', nul + 1, nul + 1 + oidBytes)
    out.push(name === null ? {mode, name: bytes.toString('utf8'), oid, raw: Buffer.from(bytes)} : {mode, name, oid})
    i = nul + 1 + oidBytes
  }
  return out
}

/** Whether content[start, end) is the ASCII text `mode`. */
function isMode(content: Buffer, start: number, end: number, mode: string): boolean {
  if (end - start !== mode.length) return false
  for (let k = 0; k < mode.length; k++) if (content[start + k] !== mode.charCodeAt(k)) return false
  return true
}

/**
 * Where each entry of a tree starts, where its name starts and where the
 * name ends (its NUL), three numbers per entry; null when the tree is
 * malformed, or its names are not in strictly increasing byte order (so
 * also when a name repeats). Per entry: one native search for the NUL, a
 * scan of the mode's few bytes, and a comparison of the name with the one
 * before it up to their first difference, never a pass over every byte.
 */
function entryOffsets(content: Buffer, oidBytes: number): number[] | null {
  const n = content.length
  const out: number[] = []
  let i = 0
  let prevName = -1
  let prevNul = -1
  while (i < n) {
    const nul = content.indexOf(0, i)
    if (nul === -1 || nul + 1 + oidBytes > n) return null
    let space = i
    while (space < nul && content[space] !== 0x20) space++
    if (space === nul) return null
    if (prevName >= 0 && compareBytes(content, prevName, prevNul, content, space + 1, nul) >= 0) return null
    out.push(i, space + 1, nul)
    prevName = space + 1
    prevNul = nul
    i = nul + 1 + oidBytes
  }
  return out
}

function compareBytes(a: Buffer, aStart: number, aEnd: number, b: Buffer, bStart: number, bEnd: number): number {
  const len = Math.min(aEnd - aStart, bEnd - bStart)
  for (let k = 0; k < len; k++) {
    const d = a[aStart + k]! - b[bStart + k]!
    if (d !== 0) return d
  }
  return aEnd - aStart - (bEnd - bStart)
}

export interface TreeDiff {
  /** Entries of the new tree that are not byte for byte in the old one, each with the old tree's entry of the same name (or null). */
  changed: Array<{entry: TreeEntry; was: TreeEntry | null}>
  /** Entries of the old tree whose name the new tree lacks. */
  removed: TreeEntry[]
}

/**
 * What decoding two trees and comparing their entries by name gives,
 * decoding only the entries that differ: a shard of ~400 entries that one
 * commit changed has one. Both trees are walked side by side in name order
 * and compared as bytes. Null when either tree is malformed or not in
 * strictly increasing byte order of names (a valid tree can order a name
 * before a longer name it is a prefix of): decode both instead.
 *
 * Names are compared as bytes, where decodeTree's names are strings; they
 * differ only for names that are not UTF-8, two of which can decode to the
 * same string. The caller keeps to trees where such a name cannot be in the
 * old tree (a shard without strays: such a name is never a card).
 */
export function diffTrees(old: Buffer, now: Buffer, algorithm: HashAlgorithm): TreeDiff | null {
  const oidBytes = algorithm === 'sha1' ? 20 : 32
  const a = entryOffsets(old, oidBytes)
  const b = entryOffsets(now, oidBytes)
  if (!a || !b) return null
  const one = (content: Buffer, offs: number[], k: number): TreeEntry => decodeTree(content.subarray(offs[k]!, offs[k + 2]! + 1 + oidBytes), algorithm)[0]!
  const changed: TreeDiff['changed'] = []
  const removed: TreeEntry[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const c = i >= a.length ? 1 : j >= b.length ? -1 : compareBytes(old, a[i + 1]!, a[i + 2]!, now, b[j + 1]!, b[j + 2]!)
    if (c < 0) {
      removed.push(one(old, a, i))
      i += 3
    } else if (c > 0) {
      changed.push({entry: one(now, b, j), was: null})
      j += 3
    } else {
      if (now.compare(old, a[i]!, a[i + 2]! + 1 + oidBytes, b[j]!, b[j + 2]! + 1 + oidBytes) !== 0) changed.push({entry: one(now, b, j), was: one(old, a, i)})
      i += 3
      j += 3
    }
  }
  return {changed, removed}
}

export interface CommitFields {
  tree: string
  parents: string[]
  author: {name: string; email: string; time: number}
  committer?: {name: string; email: string; time: number}
  message: string
}

function ident(p: {name: string; email: string; time: number}): string {
  // Git rejects <, > and newlines in names and emails; they were validated upstream.
  return `${p.name} <${p.email}> ${p.time} +0000`
}

export function encodeCommit(c: CommitFields): Buffer {
  const lines = [`tree ${c.tree}`, ...c.parents.map((p) => `parent ${p}`), `author ${ident(c.author)}`, `committer ${ident(c.committer ?? c.author)}`]
  return Buffer.from(`${lines.join('\n')}\n\n${c.message}`)
}

export interface DecodedCommit {
  tree: string
  parents: string[]
  message: string
}

export function decodeCommit(content: Buffer): DecodedCommit {
  const text = content.toString('utf8')
  const split = text.indexOf('\n\n')
  const header = split === -1 ? text : text.slice(0, split)
  const parents: string[] = []
  let tree = ''
  for (const line of header.split('\n')) {
    if (line.startsWith('tree ')) tree = line.slice(5)
    else if (line.startsWith('parent ')) parents.push(line.slice(7))
  }
  return {tree, parents, message: split === -1 ? '' : text.slice(split + 2)}
}

/**
 * Age after which a `tmp_obj_*` file is a leftover of a killed write, not a
 * write in progress (which takes milliseconds). An hour, like nothing git
 * itself would still be writing; `git gc` removes them after two weeks.
 */
export const STALE_TMP_OBJ_MS = 3_600_000

/**
 * Whether git fsyncs loose objects under these settings: core.fsync (a
 * comma list; `none` clears, `-x` removes; loose objects are in
 * `loose-object`, `objects`, `committed`, `added`, `all`, and not in git's
 * default) or, when core.fsync is unset, the older core.fsyncObjectFiles.
 */
export function fsyncsLooseObjects(coreFsync: string | undefined, fsyncObjectFiles: string | undefined): boolean {
  if (coreFsync === undefined) return /^(true|yes|on|1)$/i.test((fsyncObjectFiles ?? '').trim())
  let on = false
  for (const raw of coreFsync.split(',')) {
    const item = raw.trim().toLowerCase()
    if (item === 'none') on = false
    else if (item.startsWith('-')) {
      if (['loose-object', 'objects', 'committed', 'added', 'all'].includes(item.slice(1))) on = false
    } else if (['loose-object', 'objects', 'committed', 'added', 'all'].includes(item)) on = true
  }
  return on
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** How many spare temporary files a long-lived writer keeps ready (a mutation writes 6-9 objects). */
const SPARE_FILES = 16

/** A temporary file created ahead of time and still open for writing (LooseObjectWriter.replenish). */
interface Spare {
  path: string
  fd: number
}

/** The fan-out directories of an object directory, `00` to `ff`. */
const FAN_OUT = Array.from({length: 256}, (_, i) => i.toString(16).padStart(2, '0'))

/**
 * Writes loose objects into one object directory.
 *
 * Each object is written to a `tmp_obj_*` file directly in the object
 * directory (not in its fan-out directory), then renamed into
 * `objects/xx/`. Renaming within one file system is atomic, so a reader
 * sees the whole object or none; and creating every temporary file in one
 * directory is much cheaper on ext4 than creating it in the fan-out
 * directory (docs/storage.md): a new inode goes near its directory's, so
 * files spread over 256 directories touch a different block group's
 * bitmaps each time. A fan-out directory that
 * does not exist (a freshly packed repository) is made when the rename
 * says so.
 *
 * A long-lived writer (`tasks mcp`) also keeps a few temporary files
 * created and open ahead of time (`replenish`, called between calls): a
 * write then only fills one, marks it read-only and renames it, which moves
 * the file system's slowest step, creating a file, out of the call.
 */
export class LooseObjectWriter {
  /** Whether stale temporary files in the object directory were looked for (once per writer, at its first write). */
  private swept = false
  /** Objects written since the last flush (final paths). */
  private unflushed: string[] = []
  /** Temporary files created ahead, ready to be filled (long-lived writers only). */
  private spares: Spare[] = []
  private replenishing: Promise<void> | null = null
  private closed = false
  /** Bytes of new objects written (deflated), for the benchmark's size figure. */
  bytesWritten = 0
  /** New objects written by this writer (existing ones are not counted). */
  objectsWritten = 0
  /**
   * Write objects uncompressed, as git does with core.looseCompression 0
   * (a zlib stream of stored blocks): for a long-lived writer, where
   * setting up zlib for each small object cost more than the write itself.
   * The next `git gc` packs them compressed.
   */
  stored = false
  /** Told of every object written (or found already there), with its content: a long-lived reader keeps it. */
  onWrite: ((oid: string, type: ObjectType, content: Buffer) => void) | null = null

  constructor(
    readonly objectsDir: string,
    readonly algorithm: HashAlgorithm,
  ) {}

  write(type: ObjectType, content: Buffer | string): string {
    const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const header = Buffer.from(`${type} ${body.length}\0`)
    const oid = createHash(this.algorithm).update(header).update(body).digest('hex')
    const dir = join(this.objectsDir, oid.slice(0, 2))
    const file = join(dir, oid.slice(2))
    this.onWrite?.(oid, type, body)
    if (existsSync(file)) return oid
    // Same compression level git uses for loose objects by default (core.looseCompression = 1), or none (stored).
    const data = this.stored ? storedZlib(header, body) : deflateSync(Buffer.concat([header, body]), {level: 1})
    if (!this.swept) {
      this.swept = true
      removeStaleTmpObjects(this.objectsDir, Date.now())
    }
    const spare = this.spares.pop()
    if (!spare || !this.fillSpare(spare, data, dir, file)) this.writeNew(data, dir, file)
    this.bytesWritten += data.length
    this.objectsWritten++
    this.unflushed.push(file)
    return oid
  }

  /**
   * A new temporary file in the object directory, renamed into place; or,
   * once that failed (an object directory only its fan-out directories are
   * writable in, a fan-out directory on another file system), from then on
   * in the fan-out directory itself, where git writes it.
   */
  private writeNew(data: Buffer, dir: string, file: string): void {
    if (!this.inFanOut) {
      const tmp = join(this.objectsDir, tmpName())
      let written = false
      try {
        writeFileSync(tmp, data, {mode: 0o444, flag: 'wx'})
        written = true
        this.moveIntoPlace(tmp, dir, file)
        return
      } catch (error) {
        if (written) rmSync(tmp, {force: true})
        if (written && (error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
        this.inFanOut = true
      }
    }
    mkdirSync(dir, {recursive: true})
    const tmp = join(dir, tmpName())
    writeFileSync(tmp, data, {mode: 0o444, flag: 'wx'})
    this.moveIntoPlace(tmp, dir, file)
  }

  /** Set when a temporary file could not be made in, or renamed from, the object directory: write as git does. */
  private inFanOut = false

  /** Fill a spare file and rename it into place; false (nothing placed, the spare dropped) when it was gone. */
  private fillSpare(spare: Spare, data: Buffer, dir: string, file: string): boolean {
    try {
      try {
        let at = 0
        while (at < data.length) at += writeSync(spare.fd, data, at, data.length - at)
        fchmodSync(spare.fd, 0o444)
      } finally {
        closeSync(spare.fd)
      }
      this.moveIntoPlace(spare.path, dir, file)
      return true
    } catch {
      // Removed meanwhile (a sweep of stale temporary files, `git prune --expire=now`): write a new one.
      rmSync(spare.path, {force: true})
      return false
    }
  }

  /** Rename a complete temporary file to its object's path, making the fan-out directory when it is missing. */
  private moveIntoPlace(tmp: string, dir: string, file: string): void {
    try {
      renameSync(tmp, file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync(tmp)) throw error
      mkdirSync(dir, {recursive: true})
      renameSync(tmp, file)
    }
  }

  /**
   * For a long-lived writer (`tasks mcp`), between calls: create spare
   * temporary files up to SPARE_FILES, through libuv's thread pool (the
   * event loop is not held), so the next mutation's objects cost no file
   * creation. Best-effort: a failure leaves fewer spares, and writes then
   * create their files as usual.
   */
  replenish(): Promise<void> {
    if (this.replenishing || this.closed || this.inFanOut || this.spares.length >= SPARE_FILES) return this.replenishing ?? Promise.resolve()
    const wanted = SPARE_FILES - this.spares.length
    this.replenishing = (async () => {
      for (let i = 0; i < wanted && !this.closed; i++) {
        const path = join(this.objectsDir, tmpName())
        const fd = await new Promise<number | null>((resolve) => open(path, 'wx', 0o600, (error, fd) => resolve(error ? null : fd)))
        if (fd === null) break
        if (this.closed) {
          closeSync(fd)
          rmSync(path, {force: true})
          break
        }
        this.spares.push({path, fd})
      }
    })().finally(() => {
      this.replenishing = null
    })
    return this.replenishing
  }

  /**
   * For a long-lived writer: create the fan-out directories that do not
   * exist yet (all 256 at most, once; through the thread pool), so no
   * mutation waits for a `mkdir`. Best-effort.
   */
  async prepareDirs(): Promise<void> {
    let names: Set<string>
    try {
      names = new Set(readdirSync(this.objectsDir))
    } catch {
      return
    }
    for (const fan of FAN_OUT) {
      if (this.closed) return
      if (!names.has(fan)) await new Promise<void>((resolve) => mkdir(join(this.objectsDir, fan), () => resolve()))
    }
  }

  /** Close and remove the spare files (a long-lived writer, at the end). */
  close(): void {
    this.closed = true
    for (const s of this.spares.splice(0)) {
      try {
        closeSync(s.fd)
      } catch {
        // Closed already.
      }
      rmSync(s.path, {force: true})
    }
  }

  /**
   * Objects a batch wrote as a pack instead (PackedObjects, pack-writer.ts),
   * in `files` (the pack and its index): counted as written, told to
   * `onWrite`, and flushed with the loose ones before the ref moves.
   */
  notePacked(files: readonly string[], objects: ReadonlyArray<{oid: string; type: ObjectType; body: Buffer}>, bytes: number): void {
    for (const o of objects) this.onWrite?.(o.oid, o.type, o.body)
    this.objectsWritten += objects.length
    this.bytesWritten += bytes
    this.unflushed.push(...files)
  }

  /** True when objects were written since the last flush. */
  get pending(): boolean {
    return this.unflushed.length > 0
  }

  /** Spare temporary files ready (for tests). */
  get spareCount(): number {
    return this.spares.length
  }

  /**
   * Objects written since the last flush are about to become reachable:
   * with `fsync`, flush each of them and their directories to disk.
   */
  flush(fsync: boolean): void {
    const files = this.unflushed
    this.unflushed = []
    if (!fsync) return
    for (const f of files) fsyncPath(f)
    for (const d of new Set(files.map((f) => dirname(f)))) fsyncPath(d)
    fsyncPath(this.objectsDir)
  }
}

/**
 * `header` + `body` as a zlib stream (RFC 1950) of stored deflate blocks
 * (RFC 1951, BTYPE 00: at most 65,535 bytes each, uncompressed) with its
 * Adler-32 checksum: what zlib writes at level 0, without setting up zlib.
 */
export function storedZlib(header: Buffer, body: Buffer): Buffer {
  const length = header.length + body.length
  const blocks = Math.max(1, Math.ceil(length / 65535))
  const out = Buffer.allocUnsafe(2 + 5 * blocks + length + 4)
  out[0] = 0x78 // deflate, 32K window
  out[1] = 0x01 // fastest; (0x7801 % 31) === 0
  let at = 2
  let copied = 0
  for (let i = 0; i < blocks; i++) {
    const len = Math.min(65535, length - copied)
    out[at] = i === blocks - 1 ? 1 : 0 // BFINAL on the last block, BTYPE 00
    out.writeUInt16LE(len, at + 1)
    out.writeUInt16LE(len ^ 0xffff, at + 3)
    at += 5
    for (let end = copied + len; copied < end; ) {
      // The block's bytes, from the header and then the body.
      if (copied < header.length) {
        const n = Math.min(header.length - copied, end - copied)
        header.copy(out, at, copied, copied + n)
        at += n
        copied += n
      } else {
        const n = end - copied
        body.copy(out, at, copied - header.length, copied - header.length + n)
        at += n
        copied += n
      }
    }
  }
  let a = 1
  let b = 0
  for (const part of [header, body]) {
    // Sums reduced every 5,552 bytes, the most that cannot overflow before the modulo (as zlib does).
    for (let i = 0; i < part.length; ) {
      const end = Math.min(part.length, i + 5552)
      for (; i < end; i++) {
        a += part[i]!
        b += a
      }
      a %= 65521
      b %= 65521
    }
  }
  out.writeUInt32BE(((b << 16) | a) >>> 0, at)
  return out
}

function tmpName(): string {
  return `tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`
}

/**
 * Remove temporary files (`tmp_obj_*`, or those with the `prefixes` given:
 * a pack's in `objects/pack`) in one directory that are older than
 * STALE_TMP_OBJ_MS (best-effort).
 */
export function removeStaleTmpObjects(dir: string, now: number, prefixes: readonly string[] = ['tmp_obj_']): number {
  let removed = 0
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return 0
  }
  for (const name of names) {
    if (!prefixes.some((p) => name.startsWith(p))) continue
    const path = join(dir, name)
    try {
      if (now - statSync(path).mtimeMs > STALE_TMP_OBJ_MS) {
        unlinkSync(path)
        removed++
      }
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed
}
