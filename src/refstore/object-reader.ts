/**
 * Reads git objects through one long-lived `git cat-file --batch` process:
 * requests are written one per line and answered in order, so many reads
 * can be in flight at once (pipelined) without a process per object.
 * Names may be object ids, `<commit>:<path>`, or ref names (resolved fresh
 * on every request, which is how a retry sees a moved ref).
 */
import {type ChildProcessByStdio, spawn} from 'node:child_process'
import type {Readable, Writable} from 'node:stream'
import {EnvironmentError} from '../core/errors'

export interface GitObject {
  oid: string
  type: string
  content: Buffer
}

interface Pending {
  name: string
  resolve: (o: GitObject | null) => void
  reject: (e: Error) => void
}

export class ObjectReader {
  private proc: ChildProcessByStdio<Writable, Readable, null> | null = null
  private readonly pending: Pending[] = []
  private buf: Buffer = Buffer.alloc(0)
  private failed: Error | null = null

  constructor(private readonly cwd: string) {}

  private start(): ChildProcessByStdio<Writable, Readable, null> {
    if (this.proc) return this.proc
    const proc = spawn('git', ['cat-file', '--batch'], {cwd: this.cwd, stdio: ['pipe', 'pipe', 'ignore']})
    proc.stdout.on('data', (chunk: Buffer) => {
      this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk])
      this.drain()
    })
    const fail = (e: Error) => {
      this.failed = new EnvironmentError('git_failed', `git cat-file stopped: ${e.message}`)
      for (const p of this.pending.splice(0)) p.reject(this.failed)
    }
    proc.on('error', fail)
    proc.on('close', () => {
      if (this.pending.length > 0) fail(new Error('exited early'))
    })
    proc.stdin.on('error', () => undefined)
    this.proc = proc
    return proc
  }

  private drain(): void {
    while (this.pending.length > 0) {
      const nl = this.buf.indexOf(0x0a)
      if (nl === -1) return
      const header = this.buf.toString('utf8', 0, nl)
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.buf = this.buf.subarray(nl + 1)
        this.pending.shift()!.resolve(null)
        continue
      }
      const [oid, type, sizeText] = header.split(' ')
      const size = Number(sizeText)
      if (!oid || !type || !Number.isFinite(size)) {
        this.pending.shift()!.reject(new EnvironmentError('git_failed', `unexpected cat-file output: ${header}`))
        this.buf = this.buf.subarray(nl + 1)
        continue
      }
      const end = nl + 1 + size
      if (this.buf.length < end + 1) return
      const content = Buffer.from(this.buf.subarray(nl + 1, end))
      this.buf = this.buf.subarray(end + 1)
      this.pending.shift()!.resolve({oid, type, content})
    }
  }

  /** Read one object by name; null if it does not exist. */
  read(name: string): Promise<GitObject | null> {
    if (this.failed) return Promise.reject(this.failed)
    if (/[\n\r]/.test(name)) return Promise.reject(new Error(`bad object name ${JSON.stringify(name)}`))
    const proc = this.start()
    return new Promise((resolve, reject) => {
      this.pending.push({name, resolve, reject})
      proc.stdin.write(`${name}\n`)
    })
  }

  /** Read an object that must exist and have the given type. */
  async readType(name: string, type: string): Promise<GitObject> {
    const o = await this.read(name)
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
