/**
 * Many new objects at once (an import, a sync's merge, a large batch) are
 * written as one pack file with its index, the way `git fetch` keeps a
 * received pack of 100 objects or more (`transfer.unpackLimit`), instead of
 * one loose file each: creating a file is the slowest step of a loose
 * object, a 10,000-task import writes some 23,000 objects, and so many
 * loose objects also make the next `git gc` slower.
 *
 * `PackedObjects` stands in for the loose writer while a tree is built
 * (TreeBuilder writes each blob and changed tree once and never reads them
 * back from git before it is done): it hashes each object, keeps it, and
 * `finish` writes them, loose when there are few, else as a pack. Only the
 * objects written through it are held back, never another caller's on the
 * same writer; nothing can point at them before `finish` (their ids are
 * only known to the tree being built).
 *
 * Must never: leave a pack git could see without its index, or an index
 * that does not match its pack. Both are written to temporary files in
 * `objects/pack` and renamed into place, the pack first and its index last
 * (git looks for packs by their `.idx`), as git does. A killed write leaves
 * `tmp_pack_*`/`tmp_idx_*` files, which a writer's first pack removes once
 * they are older than STALE_TMP_OBJ_MS (and `git gc` removes too).
 *
 * The format is git's pack version 2 (undeltified objects, each deflated)
 * and pack index version 2, with the repository's hash (sha1 or sha256).
 * A later `git gc` finds deltas for these objects as for loose ones.
 */
import {createHash} from 'node:crypto'
import {mkdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {deflateSync} from 'node:zlib'
import {type HashAlgorithm, type LooseObjectWriter, type ObjectType, removeStaleTmpObjects} from './git-objects'
import {sectionCrc} from './list-section'

/** What a tree builder writes objects through: the loose writer itself, or PackedObjects. */
export interface ObjectSink {
  readonly algorithm: HashAlgorithm
  /** Store an object (if new); returns its id. */
  write(type: ObjectType, content: Buffer | string): string
}

/** Objects at or above which a batch is written as a pack (git keeps a fetched pack from 100). `TASKS_PACK_AT_OBJECTS` sets another (tests). */
const PACK_AT_OBJECTS = 100

/** Content held before a pack is written while the batch goes on: bounds the memory of a large import. */
const PACK_MAX_BYTES = 32 * 1024 * 1024

const TYPE_CODE: Record<ObjectType, number> = {commit: 1, tree: 2, blob: 3}

function packAt(): number {
  const v = Number(process.env.TASKS_PACK_AT_OBJECTS)
  return Number.isSafeInteger(v) && v > 0 ? v : PACK_AT_OBJECTS
}

interface Held {
  oid: string
  type: ObjectType
  body: Buffer
}

export class PackedObjects implements ObjectSink {
  private held: Held[] = []
  private byId = new Map<string, Held>()
  private heldBytes = 0
  /** Whether a pack was written already (a batch too large to hold): the rest then goes to a pack too. */
  private packed = false
  readonly algorithm: HashAlgorithm

  constructor(
    private readonly loose: LooseObjectWriter,
    private readonly packFrom = packAt(),
    private readonly maxBytes = PACK_MAX_BYTES,
  ) {
    this.algorithm = loose.algorithm
  }

  write(type: ObjectType, content: Buffer | string): string {
    const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const oid = createHash(this.algorithm).update(`${type} ${body.length}\0`).update(body).digest('hex')
    if (this.byId.has(oid)) return oid
    const held = {oid, type, body}
    this.held.push(held)
    this.byId.set(oid, held)
    this.heldBytes += body.length
    if (this.heldBytes >= this.maxBytes && this.held.length >= this.packFrom) this.writeHeld()
    return oid
  }

  /** The content of an object this batch holds (written through it and not yet on disk), or undefined. */
  content(oid: string): Buffer | undefined {
    return this.byId.get(oid)?.body
  }

  /** Put every object written so far on disk: loose when few (and no pack was written yet), else as a pack. */
  finish(): void {
    if (this.held.length === 0) return
    if (!this.packed && this.held.length < this.packFrom) {
      for (const h of this.held) this.loose.write(h.type, h.body)
      this.held = []
      this.heldBytes = 0
      return
    }
    this.writeHeld()
  }

  private writeHeld(): void {
    const held = this.held
    // On disk from here: let their content go (a later read of one asks git).
    this.held = []
    this.byId.clear()
    this.heldBytes = 0
    this.packed = true
    const files = writePackFiles(this.loose.objectsDir, this.algorithm, held)
    this.loose.notePacked([files.pack, files.idx], held, files.bytes)
  }
}

/** A pack file and its index for `objects` (at least one), as bytes: git's pack v2 (no deltas) and index v2. */
export function encodePack(algorithm: HashAlgorithm, objects: ReadonlyArray<{oid: string; type: ObjectType; body: Buffer}>): {pack: Buffer; idx: Buffer; name: string} {
  const n = objects.length
  // Into one growing buffer: deflateSync's result is a slice of a 16 KiB chunk, so keeping thousands of those
  // for objects of a few hundred bytes would hold 16 KiB each.
  let out = Buffer.allocUnsafe(64 * 1024)
  let at = 0
  const put = (b: Uint8Array): void => {
    if (at + b.length > out.length) {
      const larger = Buffer.allocUnsafe(Math.max(out.length * 2, at + b.length))
      out.copy(larger, 0, 0, at)
      out = larger
    }
    out.set(b, at)
    at += b.length
  }
  const header = Buffer.alloc(12)
  header.write('PACK', 0, 'latin1')
  header.writeUInt32BE(2, 4)
  header.writeUInt32BE(n, 8)
  put(header)
  const offsets = new Float64Array(n)
  const crcs = new Uint32Array(n)
  objects.forEach((o, i) => {
    // The entry's header: type and inflated size, 4 bits of the size in the first byte, then 7 a byte.
    const sizeBytes: number[] = []
    let size = o.body.length
    let first = (TYPE_CODE[o.type] << 4) | (size & 0x0f)
    size = Math.floor(size / 16)
    while (size > 0) {
      sizeBytes.push(first | 0x80)
      first = size & 0x7f
      size = Math.floor(size / 128)
    }
    sizeBytes.push(first)
    const entryHeader = Buffer.from(sizeBytes)
    const data = deflateSync(o.body, {level: 1})
    offsets[i] = at
    crcs[i] = sectionCrc(data, sectionCrc(entryHeader))
    put(entryHeader)
    put(data)
  })
  const packSum = createHash(algorithm).update(out.subarray(0, at)).digest()
  put(packSum)
  const pack = out.subarray(0, at)

  // The index: 256 cumulative counts by first byte, the ids in order, their CRC-32s, their offsets (31 bits, or a
  // pointer into a table of 64-bit ones), the pack's checksum, and the index's own.
  const order = Array.from({length: n}, (_, i) => i).sort((a, b) => (objects[a]!.oid < objects[b]!.oid ? -1 : objects[a]!.oid > objects[b]!.oid ? 1 : 0))
  const hashBytes = packSum.length
  const large = order.filter((i) => offsets[i]! >= 0x80000000)
  const idxBody = Buffer.alloc(8 + 256 * 4 + n * (hashBytes + 8) + large.length * 8 + hashBytes)
  idxBody.writeUInt32BE(0xff744f63, 0)
  idxBody.writeUInt32BE(2, 4)
  const fanout = new Uint32Array(256)
  for (const o of objects) fanout[parseInt(o.oid.slice(0, 2), 16)]!++
  let count = 0
  for (let b = 0; b < 256; b++) {
    count += fanout[b]!
    idxBody.writeUInt32BE(count, 8 + 4 * b)
  }
  const idsAt = 8 + 256 * 4
  const crcsAt = idsAt + n * hashBytes
  const offsetsAt = crcsAt + n * 4
  const largeAt = offsetsAt + n * 4
  let nextLarge = 0
  order.forEach((i, k) => {
    const o = objects[i]!
    if (k > 0 && objects[order[k - 1]!]!.oid === o.oid) throw new Error(`pack: object ${o.oid} twice`)
    idxBody.write(o.oid, idsAt + k * hashBytes, 'hex')
    idxBody.writeUInt32BE(crcs[i]!, crcsAt + 4 * k)
    if (offsets[i]! < 0x80000000) idxBody.writeUInt32BE(offsets[i]!, offsetsAt + 4 * k)
    else {
      idxBody.writeUInt32BE((0x80000000 | nextLarge) >>> 0, offsetsAt + 4 * k)
      idxBody.writeBigUInt64BE(BigInt(offsets[i]!), largeAt + 8 * nextLarge++)
    }
  })
  packSum.copy(idxBody, largeAt + 8 * large.length)
  const idx = Buffer.concat([idxBody, createHash(algorithm).update(idxBody).digest()])
  return {pack, idx, name: `pack-${packSum.toString('hex')}`}
}

/**
 * Write `objects` as a pack with its index into `objectsDir/pack`; returns
 * the two paths. Temporary files first, renamed into place pack first.
 */
export function writePackFiles(objectsDir: string, algorithm: HashAlgorithm, objects: ReadonlyArray<{oid: string; type: ObjectType; body: Buffer}>): {pack: string; idx: string; bytes: number} {
  const {pack, idx, name} = encodePack(algorithm, objects)
  const dir = join(objectsDir, 'pack')
  mkdirSync(dir, {recursive: true})
  removeStaleTmpObjects(dir, Date.now(), ['tmp_pack_', 'tmp_idx_'])
  const suffix = `${process.pid}_${Math.random().toString(36).slice(2)}`
  const tmpPack = join(dir, `tmp_pack_${suffix}`)
  const tmpIdx = join(dir, `tmp_idx_${suffix}`)
  const paths = {pack: join(dir, `${name}.pack`), idx: join(dir, `${name}.idx`), bytes: pack.length}
  try {
    writeFileSync(tmpPack, pack, {mode: 0o444, flag: 'wx'})
    writeFileSync(tmpIdx, idx, {mode: 0o444, flag: 'wx'})
    renameSync(tmpPack, paths.pack)
    renameSync(tmpIdx, paths.idx)
  } catch (error) {
    rmSync(tmpPack, {force: true})
    rmSync(tmpIdx, {force: true})
    throw error
  }
  return paths
}
