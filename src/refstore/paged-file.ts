/**
 * A file read by pages on demand: what the index cache needs to read a
 * few lines of a file tens of megabytes long without reading it whole.
 * The descriptor stays open while the object
 * lives, so the bytes are those of the file that was opened even if a newer
 * version is renamed over it meanwhile (every version is complete and
 * correct for the commit it names).
 */
import {closeSync, fstatSync, openSync, readSync} from 'node:fs'

const PAGE = 16 * 1024
/** A range spanning this many pages or more is read in one piece rather than page by page. */
const LONG_RANGE_PAGES = 8

/** Closes the descriptor of a PagedFile that was dropped without reading it whole. */
const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd)
  } catch {
    // already closed
  }
})

export class PagedFile {
  readonly length: number
  private readonly pages = new Map<number, Buffer>()
  private whole: Buffer | undefined
  private fd: number | undefined

  private constructor(fd: number, length: number) {
    this.fd = fd
    this.length = length
    closer.register(this, fd, this)
  }

  /** Null when the file cannot be opened. */
  static open(path: string): PagedFile | null {
    let fd: number
    try {
      fd = openSync(path, 'r')
    } catch {
      return null
    }
    try {
      return new PagedFile(fd, fstatSync(fd).size)
    } catch {
      closeSync(fd)
      return null
    }
  }

  /** The whole file as one buffer (read once; the descriptor is closed then). */
  all(): Buffer {
    if (!this.whole) {
      const buf = Buffer.allocUnsafe(this.length)
      let at = 0
      while (at < this.length) {
        const n = readSync(this.fd!, buf, at, this.length - at, at)
        if (n === 0) throw new Error('the index cache file was truncated while being read')
        at += n
      }
      this.whole = buf
      this.pages.clear()
      this.release()
    }
    return this.whole
  }

  private release(): void {
    if (this.fd === undefined) return
    closer.unregister(this)
    closeSync(this.fd)
    this.fd = undefined
  }

  private page(n: number): Buffer {
    let p = this.pages.get(n)
    if (!p) {
      const start = n * PAGE
      const size = Math.min(PAGE, this.length - start)
      p = Buffer.allocUnsafe(size)
      let at = 0
      while (at < size) {
        const got = readSync(this.fd!, p, at, size - at, start + at)
        if (got === 0) throw new Error('the index cache file was truncated while being read')
        at += got
      }
      this.pages.set(n, p)
    }
    return p
  }

  /** The bytes [start, end) in one read, not kept as pages (a long section read once, like the open rows). */
  private read(start: number, end: number): Buffer {
    const buf = Buffer.allocUnsafe(end - start)
    let at = 0
    while (at < buf.length) {
      const got = readSync(this.fd!, buf, at, buf.length - at, start + at)
      if (got === 0) throw new Error('the index cache file was truncated while being read')
      at += got
    }
    return buf
  }

  /**
   * Copy the bytes [position, position + length) into `target` at `at`,
   * neither keeping them as pages nor reading the file whole: what a pass
   * over a long section a chunk at a time needs (memory stays that of the
   * chunk). Returns the bytes copied (fewer only at the end of the file).
   */
  readInto(target: Buffer, at: number, length: number, position: number): number {
    const n = Math.max(0, Math.min(length, this.length - position))
    if (this.whole) return this.whole.copy(target, at, position, position + n)
    let done = 0
    while (done < n) {
      const got = readSync(this.fd!, target, at + done, n - done, position + done)
      if (got === 0) throw new Error('the index cache file was truncated while being read')
      done += got
    }
    return n
  }

  /** Offset of the first `byte` at or after `from`, or -1. */
  indexOf(byte: number, from: number): number {
    if (this.whole) return this.whole.indexOf(byte, from)
    for (let n = Math.floor(from / PAGE); n * PAGE < this.length; n++) {
      const p = this.page(n)
      const base = n * PAGE
      const i = p.indexOf(byte, Math.max(0, from - base))
      if (i !== -1) return base + i
    }
    return -1
  }

  /** Offset of the last `byte` at or before `from`, or -1. */
  lastIndexOf(byte: number, from: number): number {
    if (from < 0) return -1
    if (this.whole) return this.whole.lastIndexOf(byte, from)
    for (let n = Math.floor(Math.min(from, this.length - 1) / PAGE); n >= 0; n--) {
      const p = this.page(n)
      const base = n * PAGE
      const i = p.lastIndexOf(byte, Math.min(from - base, p.length - 1))
      if (i !== -1) return base + i
    }
    return -1
  }

  /** The bytes [start, end) decoded as UTF-8. */
  toString(start: number, end: number): string {
    if (this.whole) return this.whole.toString('utf8', start, end)
    const first = Math.floor(start / PAGE)
    const last = Math.floor((end - 1) / PAGE)
    if (end <= start) return ''
    if (first === last) return this.page(first).toString('utf8', start - first * PAGE, end - first * PAGE)
    if (last - first >= LONG_RANGE_PAGES) return this.read(start, end).toString('utf8')
    const parts: Buffer[] = []
    for (let n = first; n <= last; n++) {
      const p = this.page(n)
      const base = n * PAGE
      parts.push(p.subarray(Math.max(0, start - base), Math.min(p.length, end - base)))
    }
    return Buffer.concat(parts).toString('utf8')
  }
}
