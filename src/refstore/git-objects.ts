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
 * sees a partial object, and an object that already exists is left alone.
 *
 * Like git, objects are flushed to disk only when the repository asks for it
 * (core.fsync naming loose objects, or core.fsyncObjectFiles): `flush` then
 * fsyncs every object written since the last flush and its directory, before
 * the ref that makes them reachable moves (git's "batch" order). A killed
 * write can leave a `tmp_obj_*` file behind; the first write into a fan-out
 * directory removes those older than STALE_TMP_OBJ_MS.
 */
import {createHash} from 'node:crypto'
import {closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync} from 'node:fs'
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

const ASCII_NAME = /^[\x00-\x7f]*$/

export function encodeTree(entries: readonly TreeEntry[]): Buffer {
  // The sort is skipped when the entries are already in order, as a decoded tree edited in place is.
  // Names all ASCII (every name the tool writes): JavaScript's string order is git's byte order, so
  // the keys are strings, with no buffer made per entry (a shard tree has hundreds at 100,000 tasks).
  let ordered: readonly TreeEntry[]
  if (entries.every((e) => !e.raw && ASCII_NAME.test(e.name))) {
    const keyed = entries.map((e) => ({e, key: e.mode === TREE_MODE ? `${e.name}/` : e.name}))
    let inOrder = true
    for (let i = 1; i < keyed.length && inOrder; i++) inOrder = keyed[i - 1]!.key <= keyed[i]!.key
    if (!inOrder) keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    ordered = keyed.map((k) => k.e)
  } else {
    const keyed = entries.map((e) => ({e, key: treeSortKey(e)}))
    let inOrder = true
    for (let i = 1; i < keyed.length && inOrder; i++) inOrder = Buffer.compare(keyed[i - 1]!.key, keyed[i]!.key) <= 0
    if (!inOrder) keyed.sort((a, b) => Buffer.compare(a.key, b.key))
    ordered = keyed.map((k) => k.e)
  }
  // One buffer for the whole tree: "<mode> <name>\0<binary id>" per entry.
  let size = 0
  for (const e of ordered) size += e.mode.length + 2 + (e.raw ? e.raw.length : Buffer.byteLength(e.name)) + e.oid.length / 2
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (const e of ordered) {
    at += out.write(e.mode, at, 'latin1')
    out[at++] = 0x20
    at += e.raw ? e.raw.copy(out, at) : out.write(e.name, at, 'utf8')
    out[at++] = 0
    at += out.write(e.oid, at, 'hex')
  }
  return out.subarray(0, at)
}

function isAscii(bytes: Buffer): boolean {
  for (let k = 0; k < bytes.length; k++) if (bytes[k]! >= 0x80) return false
  return true
}

/**
 * The entries of a tree object. A malformed tree (anyone can push one: git
 * does not check objects it receives unless transfer.fsckObjects is set) is
 * a `bad_object` error, never a loop or a garbled listing.
 */
export function decodeTree(content: Buffer, algorithm: HashAlgorithm): TreeEntry[] {
  const oidBytes = algorithm === 'sha1' ? 20 : 32
  const out: TreeEntry[] = []
  let i = 0
  while (i < content.length) {
    const space = content.indexOf(0x20, i)
    const nul = space === -1 ? -1 : content.indexOf(0, space)
    if (space === -1 || nul === -1 || nul + 1 + oidBytes > content.length) {
      throw new EnvironmentError('bad_object', 'a tree object on the tasks ref is malformed (run `git fsck`)')
    }
    const mode = content.toString('latin1', i, space)
    const bytes = content.subarray(space + 1, nul)
    const name = isAscii(bytes) ? bytes.toString('latin1') : decodeUtf8(bytes)
    const oid = content.toString('hex', nul + 1, nul + 1 + oidBytes)
    out.push(name === null ? {mode, name: bytes.toString('utf8'), oid, raw: Buffer.from(bytes)} : {mode, name, oid})
    i = nul + 1 + oidBytes
  }
  return out
}

/**
 * The entries that differ between two versions of a tree, found by walking
 * their bytes: entries equal byte for byte are skipped without being
 * decoded, so comparing two shard trees of hundreds of cards that differ in
 * a few costs a few decoded entries. `before`: entries of `old` with no
 * identical entry in `now`; `after`: the same the other way round. Throws
 * like decodeTree on a malformed tree. An entry is only ever skipped when
 * it is identical on both sides, so nothing that differs is missed even in
 * trees out of git's order (there an unchanged entry may be listed on both
 * sides: pair the answer by name).
 */
export function treeDifference(old: Buffer, now: Buffer, algorithm: HashAlgorithm): {before: TreeEntry[]; after: TreeEntry[]} {
  const oidBytes = algorithm === 'sha1' ? 20 : 32
  const ends = (buf: Buffer, at: number): {nameEnd: number; end: number; tree: boolean} => {
    const space = buf.indexOf(0x20, at)
    const nul = space === -1 ? -1 : buf.indexOf(0, space)
    if (space === -1 || nul === -1 || nul + 1 + oidBytes > buf.length) {
      throw new EnvironmentError('bad_object', 'a tree object on the tasks ref is malformed (run `git fsck`)')
    }
    // Modes are written without leading zeros; a tree's is 40000.
    return {nameEnd: nul, end: nul + 1 + oidBytes, tree: space - at === 5 && buf[at] === 0x34}
  }
  const before: TreeEntry[] = []
  const after: TreeEntry[] = []
  let i = 0
  let j = 0
  while (i < old.length && j < now.length) {
    const a = ends(old, i)
    const b = ends(now, j)
    if (a.end - i === b.end - j && old.compare(now, j, b.end, i, a.end) === 0) {
      i = a.end
      j = b.end
      continue
    }
    // Git's order: names by bytes, a tree's as if it ended in '/'.
    const nameA = old.subarray(old.indexOf(0x20, i) + 1, a.nameEnd)
    const nameB = now.subarray(now.indexOf(0x20, j) + 1, b.nameEnd)
    let c = Buffer.compare(nameA.subarray(0, Math.min(nameA.length, nameB.length)), nameB.subarray(0, Math.min(nameA.length, nameB.length)))
    if (c === 0) {
      const ca = nameA.length > nameB.length ? nameA[nameB.length]! : a.tree ? 0x2f : 0
      const cb = nameB.length > nameA.length ? nameB[nameA.length]! : b.tree ? 0x2f : 0
      c = ca - cb
    }
    if (c <= 0) {
      before.push(...decodeTree(old.subarray(i, a.end), algorithm))
      i = a.end
    }
    if (c >= 0) {
      after.push(...decodeTree(now.subarray(j, b.end), algorithm))
      j = b.end
    }
  }
  if (i < old.length) before.push(...decodeTree(old.subarray(i), algorithm))
  if (j < now.length) after.push(...decodeTree(now.subarray(j), algorithm))
  return {before, after}
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

/** Writes loose objects into one object directory. */
export class LooseObjectWriter {
  private readonly madeDirs = new Set<string>()
  /** Objects written since the last flush (final paths). */
  private unflushed: string[] = []
  /** Bytes of new objects written (deflated), for the benchmark's size figure. */
  bytesWritten = 0
  /** New objects written by this writer (existing ones are not counted). */
  objectsWritten = 0

  constructor(
    private readonly objectsDir: string,
    readonly algorithm: HashAlgorithm,
  ) {}

  write(type: ObjectType, content: Buffer | string): string {
    const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const header = Buffer.from(`${type} ${body.length}\0`)
    const oid = createHash(this.algorithm).update(header).update(body).digest('hex')
    const dir = join(this.objectsDir, oid.slice(0, 2))
    const file = join(dir, oid.slice(2))
    if (existsSync(file)) return oid
    if (!this.madeDirs.has(dir)) {
      mkdirSync(dir, {recursive: true})
      removeStaleTmpObjects(dir, Date.now())
      this.madeDirs.add(dir)
    }
    // Same compression level git uses for loose objects by default (core.looseCompression = 1).
    const data = deflateSync(Buffer.concat([header, body]), {level: 1})
    const tmp = join(dir, `tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`)
    writeFileSync(tmp, data, {mode: 0o444})
    renameSync(tmp, file)
    this.bytesWritten += data.length
    this.objectsWritten++
    this.unflushed.push(file)
    return oid
  }

  /** True when objects were written since the last flush. */
  get pending(): boolean {
    return this.unflushed.length > 0
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

/** Remove `tmp_obj_*` files in one fan-out directory that are older than STALE_TMP_OBJ_MS (best-effort). */
export function removeStaleTmpObjects(dir: string, now: number): number {
  let removed = 0
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return 0
  }
  for (const name of names) {
    if (!name.startsWith('tmp_obj_')) continue
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
