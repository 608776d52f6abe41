/**
 * Reads git objects through one long-lived `git cat-file --batch` process:
 * requests are written one per line and answered in order, so many reads
 * can be in flight at once (pipelined) without a process per object.
 * Names may be object ids, `<commit>:<path>`, or ref names (resolved fresh
 * on every request, which is how a retry sees a moved ref).
 *
 * A read may carry a size limit: the object's size is in cat-file's header,
 * so content over the limit is discarded as it streams past, never held in
 * memory (a hostile 50 MB task.md costs a pipe's worth of copying, not the
 * heap). Arriving output is kept as a list of chunks and joined only when a
 * whole object is there, so a large object is not copied once per chunk.
 *
 * Every answer is a round trip through another process, and a command's
 * reads often depend on each other (a commit, then its tree, then a subtree):
 * on a busy machine each wait costs more than git's work. So trees are kept
 * by id (objects never change; a bounded number, first in first out), and
 * `prefetch` asks for an object the caller will want next by a name git can
 * resolve now (`<tree>:<path>`, `<commit>^{tree}`), in the same write as
 * the read it depends on; the answer is kept by its id for the read that
 * asks for it by id (once for objects other than trees over 64 KB).
 */
import {type ChildProcessByStdio, spawn} from 'node:child_process'
import type {Readable, Writable} from 'node:stream'
import {EnvironmentError} from '../core/errors'
import {takeEarlyGit} from './early-git'
import {git} from './git-process'

export interface GitObject {
  oid: string
  type: string
  /** Size in bytes, from cat-file's header. */
  size: number
  /** The content; empty when `oversized`. */
  content: Buffer
  /** True when the object was larger than the read's limit and its content was skipped. */
  oversized?: boolean
}

interface Pending {
  name: string
  limit: number
  /** Keep the answer for a later read by id (prefetch). */
  keep?: boolean
  resolve: (o: GitObject | null) => void
  reject: (e: Error) => void
}

const EMPTY = Buffer.alloc(0)
const OID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
/** Trees kept by id: the trees on a few paths (root, tasks, shards, task directories) and then some. */
const TREES_KEPT = 512
/** Prefetched objects not yet asked for, at most. */
const AHEAD_KEPT = 1024
/** Prefetched objects up to this size stay kept after a read (until AHEAD_KEPT newer ones push them out). */
const AHEAD_REREAD_BYTES = 64 * 1024

export class ObjectReader {
  private proc: ChildProcessByStdio<Writable, Readable, null> | null = null
  /** Reads waiting for their answer, in request order; `head` is the first not yet answered (a plain queue: Array#shift is linear on large arrays). */
  private pending: Pending[] = []
  private head = 0
  /** Names asked for in this tick, not yet written to cat-file. */
  private outgoing: string[] = []
  /** Output received and not yet consumed, in arrival order. */
  private chunks: Buffer[] = []
  private buffered = 0
  /** Bytes drain() needs before it can make progress (0: try on any data). */
  private need = 0
  /** Bytes of an oversized object (and its newline) still to discard as they arrive. */
  private skip = 0
  private failed: Error | null = null
  /** Trees by id, oldest first (see the class comment). */
  private trees = new Map<string, GitObject>()
  /** Prefetched objects other than trees, by id, until a read takes them. */
  private ahead = new Map<string, GitObject>()
  /** Objects by full id, for a long-lived process (keepObjects): least recently used first. */
  private cache: Map<string, GitObject> | null = null
  private cacheBytes = 0
  private cacheLimit = 0

  /**
   * With `batchCommand`, git answers through `cat-file --batch-command --buffer`
   * (git 2.36 or later: see batchCommandSupported): a batch of requests is
   * followed by `flush`, and git writes the answers with ordinary output
   * buffering instead of one write an object. For a pass over many objects
   * (a cold index build reads two a task): fewer system calls on both sides.
   */
  constructor(
    readonly cwd: string,
    private readonly batchCommand = false,
  ) {}

  /**
   * Keep objects read or written by id, up to `maxBytes` of content, for a
   * long-lived process (`tasks mcp`): objects never change, so a read of an
   * id this process has seen, or wrote itself (remember), is answered from
   * memory without a round trip to cat-file. Names that are not full ids
   * (refs, `<commit>:<path>`) always go to git. Objects over a sixteenth of
   * the budget are not kept.
   */
  keepObjects(maxBytes: number): void {
    this.cache ??= new Map()
    this.cacheLimit = maxBytes
  }

  /** An object this process wrote (the writer's hook): the next read of its id needs no round trip. */
  remember(oid: string, type: string, content: Buffer): void {
    this.keep({oid, type, size: content.length, content})
  }

  private keep(o: GitObject): void {
    const cache = this.cache
    if (!cache || o.oversized || o.content.length > this.cacheLimit / 16 || cache.has(o.oid)) return
    cache.set(o.oid, o)
    this.cacheBytes += o.content.length
    for (const [oid, old] of cache) {
      if (this.cacheBytes <= this.cacheLimit) break
      cache.delete(oid)
      this.cacheBytes -= old.content.length
    }
  }

  /** A kept object by id (a tree kept, or an object a long-lived reader keeps), or null; nothing is asked of git. */
  keptObject(oid: string): GitObject | null {
    return this.trees.get(oid) ?? this.cache?.get(oid) ?? null
  }

  /** The type of a kept object, or null when it is not kept (nothing is asked of git). */
  keptType(oid: string): string | null {
    return this.cache?.get(oid)?.type ?? this.trees.get(oid)?.type ?? null
  }

  private start(): ChildProcessByStdio<Writable, Readable, null> {
    if (this.proc) return this.proc
    // The one bin/early-git.js started before the bundles loaded, if any; else a new one.
    const proc = this.batchCommand
      ? spawn('git', ['cat-file', '--batch-command', '--buffer'], {cwd: this.cwd, stdio: ['pipe', 'pipe', 'ignore']})
      : ((takeEarlyGit('catFile', this.cwd) as ChildProcessByStdio<Writable, Readable, null> | null) ?? spawn('git', ['cat-file', '--batch'], {cwd: this.cwd, stdio: ['pipe', 'pipe', 'ignore']}))
    proc.stdout.on('data', (chunk: Buffer) => this.receive(chunk))
    const fail = (e: Error) => {
      this.failed = new EnvironmentError('git_failed', `git cat-file stopped: ${e.message}`)
      for (const p of this.takeAll()) p.reject(this.failed)
    }
    proc.on('error', fail)
    proc.on('close', () => {
      if (this.waiting() === 0) return
      if (this.prefetching && this.pending.slice(this.head).some((p) => p.keep)) return this.restart()
      fail(new Error('exited early'))
    })
    proc.stdin.on('error', () => undefined)
    this.proc = proc
    return proc
  }

  /**
   * git stops at a tree it cannot parse, and a prefetch by path may walk
   * through one that the reads themselves (by id, decoded here, where a bad
   * tree is a broken card) never give to git. When git stopped while a
   * prefetch was waiting: a new process answers the reads again, in order,
   * and nothing more is prefetched by this reader; if git stops again, the
   * reads fail.
   */
  private restart(): void {
    this.prefetching = false
    const rest = this.takeAll()
    this.proc = null
    this.chunks = []
    this.buffered = 0
    this.need = 0
    this.skip = 0
    this.outgoing = []
    for (const p of rest) {
      if (p.keep) p.resolve(null)
      else this.request(p.name, p.limit, false).then(p.resolve, p.reject)
    }
  }

  /** Whether prefetch() asks git for anything (off after git stopped during one). */
  private prefetching = true

  private waiting(): number {
    return this.pending.length - this.head
  }

  /** The oldest unanswered read, removed from the queue. */
  private next(): Pending {
    const p = this.pending[this.head]!
    this.pending[this.head++] = undefined as unknown as Pending
    if (this.head === this.pending.length) {
      this.pending = []
      this.head = 0
    } else if (this.head >= 4096 && this.head * 2 >= this.pending.length) {
      this.pending = this.pending.slice(this.head)
      this.head = 0
    }
    return p
  }

  private takeAll(): Pending[] {
    const rest = this.pending.slice(this.head)
    this.pending = []
    this.head = 0
    return rest
  }

  private receive(chunk: Buffer): void {
    if (this.skip > 0) {
      const n = Math.min(this.skip, chunk.length)
      this.skip -= n
      chunk = chunk.subarray(n)
      if (chunk.length === 0) return
    }
    this.chunks.push(chunk)
    this.buffered += chunk.length
    if (this.buffered >= this.need) this.drain()
  }

  /** Everything buffered, as one buffer (joined at most once per call). */
  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)]
    return this.chunks[0] ?? EMPTY
  }

  private consume(n: number): void {
    const rest = this.joined().subarray(n)
    this.chunks = rest.length > 0 ? [rest] : []
    this.buffered = rest.length
  }

  private drain(): void {
    this.need = 0
    while (this.waiting() > 0) {
      const buf = this.joined()
      const nl = buf.indexOf(0x0a)
      if (nl === -1) return
      const header = buf.toString('utf8', 0, nl)
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.consume(nl + 1)
        this.next().resolve(null)
        continue
      }
      const [oid, type, sizeText] = header.split(' ')
      const size = Number(sizeText)
      if (!oid || !type || !Number.isSafeInteger(size) || size < 0) {
        this.consume(nl + 1)
        this.next().reject(new EnvironmentError('git_failed', `unexpected cat-file output: ${header.slice(0, 200)}`))
        continue
      }
      const total = nl + 1 + size + 1
      if (size > this.pending[this.head]!.limit) {
        // Too large to read: resolve now and let the content stream past.
        const have = buf.length
        if (have >= total) this.consume(total)
        else {
          this.consume(have)
          this.skip = total - have
        }
        this.next().resolve({oid, type, size, content: EMPTY, oversized: true})
        if (this.skip > 0) return
        continue
      }
      if (buf.length < total) {
        this.need = total
        return
      }
      const content = Buffer.from(buf.subarray(nl + 1, nl + 1 + size))
      this.consume(total)
      const p = this.next()
      const obj = {oid, type, size, content}
      // A read by full id is kept for a long-lived process (names that resolve through refs or paths are not: they can change).
      if (this.cache && p.name === oid) this.keep(obj)
      // Kept before anyone hears of it: the reads that answer may start are then served from here.
      if (type === 'tree' && limitIsNone(p.limit)) this.keepIn(this.trees, obj, TREES_KEPT)
      else if (p.keep) this.keepIn(this.ahead, obj, AHEAD_KEPT)
      p.resolve(obj)
    }
  }

  private keepIn(map: Map<string, GitObject>, obj: GitObject, max: number): void {
    map.delete(obj.oid)
    map.set(obj.oid, obj)
    if (map.size > max) map.delete(map.keys().next().value!)
  }

  /** A kept answer for a read of `name` with `limit`, or null. */
  private kept(name: string, limit: number): GitObject | null {
    if (!OID_RE.test(name)) return null
    let obj = this.trees.get(name) ?? this.ahead.get(name)
    const cached = obj ? undefined : this.cache?.get(name)
    if (cached) {
      // Moved to the most recently used end.
      this.cache!.delete(name)
      this.cache!.set(name, cached)
      obj = cached
    }
    // Kept without its content (over the prefetch's limit) but wanted whole: ask git.
    if (!obj || (obj.oversized && obj.size <= limit)) return null
    // A prefetched answer, read by its id: a long-lived reader keeps it from now on, as any read by id.
    // A small one also stays among the prefetched for a second read by id (a mutation's prefetch and the
    // tree edit both read the card's old file); a large one is read once (those are bounded in number only).
    if (this.ahead.has(name)) {
      this.keep(obj)
      if (obj.size > AHEAD_REREAD_BYTES) this.ahead.delete(name)
    }
    return obj.size > limit ? {oid: obj.oid, type: obj.type, size: obj.size, content: EMPTY, oversized: true} : obj
  }

  /**
   * Read one object by name; null if it does not exist. With `limit`, an
   * object larger than that many bytes comes back `oversized`, without content.
   */
  read(name: string, limit = Number.POSITIVE_INFINITY): Promise<GitObject | null> {
    return this.request(name, limit, false)
  }

  /**
   * Start git now when reads are sure to follow (a mutation, `show`): its
   * start-up then overlaps the work before the first read.
   */
  warm(): void {
    if (!this.failed) this.start()
  }

  /**
   * Ask now for an object a later read will want by id (see the class
   * comment); nothing happens if it is missing or never asked for. A read
   * with a smaller limit than the prefetch's gets it as `oversized` when it
   * is larger than its own limit, as from git.
   */
  prefetch(name: string, limit = Number.POSITIVE_INFINITY): void {
    if (this.prefetching) this.request(name, limit, true).catch(() => undefined)
  }

  private request(name: string, limit: number, keep: boolean): Promise<GitObject | null> {
    if (this.failed) return Promise.reject(this.failed)
    if (/[\n\r]/.test(name)) return Promise.reject(new Error(`bad object name ${JSON.stringify(name)}`))
    const hit = keep ? null : this.kept(name, limit)
    if (hit) return Promise.resolve(hit)
    const proc = this.start()
    return new Promise((resolve, reject) => {
      this.pending.push({name, limit, keep, resolve, reject})
      // Requests made in one tick go out in one write: a cold read of a large list asks for
      // hundreds of thousands of objects, and one pipe write each would cost more than git's answer.
      if (this.outgoing.length === 0) queueMicrotask(() => this.flush(this.proc ?? proc))
      this.outgoing.push(name)
    })
  }

  private flush(proc: ChildProcessByStdio<Writable, Readable, null>): void {
    const names = this.outgoing
    this.outgoing = []
    proc.stdin.write(this.batchCommand ? `contents ${names.join('\ncontents ')}\nflush\n` : `${names.join('\n')}\n`)
  }

  /** Read an object that must exist and have the given type (see read() for `limit`). */
  async readType(name: string, type: string, limit?: number): Promise<GitObject> {
    const o = await this.read(name, limit)
    if (!o) throw new EnvironmentError('missing_object', `git object ${name} is missing from the repository`, {name})
    if (o.type !== type) throw new EnvironmentError('bad_object', `git object ${name} is a ${o.type}, expected a ${type}`, {name})
    return o
  }

  /** Let the process exit. Safe to call more than once. */
  close(): void {
    if (this.proc) {
      this.proc.stdin.end()
      this.proc = null
    }
  }
}

let batchCommandCheck: Promise<boolean> | undefined

/**
 * Whether this git has `cat-file --batch-command` with `flush` (2.36 and
 * later), asked once a process (`git version`). Asynchronous, so that a
 * caller that will read many objects can start it early and the answer
 * arrives while it does other work (a cold index build asks before it
 * reads the shard trees); a git that cannot be run answers no.
 */
export function batchCommandSupported(cwd: string): Promise<boolean> {
  batchCommandCheck ??= git(['version'], {cwd}).then(
    (r) => {
      const m = r.code === 0 ? /git version (\d+)\.(\d+)/.exec(r.stdout) : null
      return !!m && (Number(m[1]) > 2 || (Number(m[1]) === 2 && Number(m[2]) >= 36))
    },
    () => false,
  )
  return batchCommandCheck
}

function limitIsNone(limit: number): boolean {
  return limit === Number.POSITIVE_INFINITY
}
