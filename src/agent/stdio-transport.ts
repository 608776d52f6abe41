/**
 * The MCP server's stdio transport: newline-delimited JSON-RPC, as the
 * SDK's StdioServerTransport reads it, with a byte limit per line that
 * never takes the server down.
 *
 * The SDK's transport buffers stdin up to 10 MiB; past that it clears its
 * buffer, closes itself and stops reading, while the process lives on with
 * nothing on stderr (issue 31). Here each line is bounded on its own
 * (`maxLineBytes`): a line that grows past the limit stops being kept (only
 * its first and last few KiB are, to find the request's id) and the rest
 * of it is skipped up to its newline; then it is answered with a JSON-RPC
 * "Invalid Request" error carrying the id when one is found in those ends
 * (the SDK's client writes `"id"` last, others first), else id null, and a
 * line on stderr. A line that is not JSON gets a parse error (id null), one
 * that is JSON but not a JSON-RPC message an Invalid Request error; neither
 * quotes the line. The server then reads the next line as usual.
 *
 * The transport closes only when stdin ends or fails, or the server closes
 * it; `closedBy` tells the caller whether it ended well (the client went
 * away) or not (a read or write error: the process should exit non-zero
 * so that the client starts a new one).
 */
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js'
import type {JSONRPCMessage} from '@modelcontextprotocol/sdk/types.js'

/** How much of each end of an oversized line is kept to look for its id. */
const END_BYTES = 4096
/** JSON-RPC 2.0's codes. */
export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600

/** A JSON-RPC id: a number, or a string without escapes (at most 200 characters). */
const ID_VALUE = String.raw`(-?\d{1,16}|"[^"\\]{0,200}")`
/** `{"id": …` or `{"jsonrpc": "2.0", "id": …` at the start of a line. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*[,}]`)
/** `, "id": …}` closing the line: the last member of the outer object (an inner object's would close with `}}`). */
const ID_LAST = new RegExp(String.raw`,\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`)

/** The id of a line seen only by its two ends, when it can be found there; else null. */
export function idOfEnds(head: string, tail: string): string | number | null {
  const m = ID_FIRST.exec(head) ?? ID_LAST.exec(tail)
  if (!m) return null
  const raw = m[1]!
  return raw.startsWith('"') ? raw.slice(1, -1) : Number(raw)
}

export interface BoundedTransportOptions {
  /** The largest line (one message) read, in bytes, without its newline. */
  maxLineBytes: number
  /** Checks a parsed line as a JSON-RPC message (the SDK's JSONRPCMessageSchema.parse): throws when it is not one. */
  parseMessage: (value: unknown) => JSONRPCMessage
  /** Where a refused line is reported (stderr). */
  log: (line: string) => void
  stdin?: NodeJS.ReadableStream
  stdout?: NodeJS.WritableStream
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Why the transport closed: 'end' (stdin ended: the client went away), 'error', or 'closed' (by the server). */
  closedBy: 'end' | 'error' | 'closed' | null = null

  private readonly stdin: NodeJS.ReadableStream
  private readonly stdout: NodeJS.WritableStream
  /** The current line's pieces while it is within the limit. */
  private pieces: Buffer[] = []
  private size = 0
  /** Set once the current line passed the limit: its first and last bytes only. */
  private over: {head: Buffer; tail: Buffer} | null = null

  constructor(private readonly options: BoundedTransportOptions) {
    this.stdin = options.stdin ?? process.stdin
    this.stdout = options.stdout ?? process.stdout
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData)
    this.stdin.on('end', this.onEnd)
    this.stdin.on('error', this.onStreamError)
    this.stdout.on('error', this.onStreamError)
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let start = 0
    while (start <= data.length && this.closedBy === null) {
      const newline = data.indexOf(10, start)
      const end = newline < 0 ? data.length : newline
      if (end > start) this.take(data.subarray(start, end))
      if (newline < 0) break
      this.endLine()
      start = newline + 1
    }
  }

  /** Part of the current line. */
  private take(piece: Buffer): void {
    this.size += piece.length
    if (this.over) {
      this.over.tail = lastBytes([this.over.tail, piece], END_BYTES)
      return
    }
    if (this.size <= this.options.maxLineBytes) {
      this.pieces.push(piece)
      return
    }
    // Past the limit: keep the ends only; what is in between is dropped as it arrives.
    const kept = [...this.pieces, piece]
    this.over = {head: Buffer.from(firstBytes(kept, END_BYTES)), tail: lastBytes(kept, END_BYTES)}
    this.pieces = []
  }

  private endLine(): void {
    const over = this.over
    const size = this.size
    const line = over ? null : Buffer.concat(this.pieces, size)
    this.pieces = []
    this.size = 0
    this.over = null
    if (over) return this.refuseOversized(over, size)
    this.deliver(line!)
  }

  private refuseOversized(over: {head: Buffer; tail: Buffer}, size: number): void {
    const limit = this.options.maxLineBytes
    const id = idOfEnds(over.head.toString('latin1'), over.tail.toString('latin1').replace(/\r$/, ''))
    this.options.log(`git-tasks mcp: refused a message of more than ${limit} bytes (${size} bytes${id === null ? ', no id found' : `, id ${JSON.stringify(id)}`}); TASKS_MCP_MAX_MESSAGE_BYTES sets the limit`)
    this.answerError(id, INVALID_REQUEST, `the message is ${size} bytes, larger than this server reads (${limit} bytes; TASKS_MCP_MAX_MESSAGE_BYTES)`, {code: 'message_too_large', bytes: size, limit})
  }

  private deliver(bytes: Buffer): void {
    const text = bytes.toString('utf8').replace(/\r$/, '')
    if (text.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      this.options.log(`git-tasks mcp: a line of ${bytes.length} bytes is not JSON; answered with a parse error`)
      return this.answerError(null, PARSE_ERROR, 'Parse error: the line is not JSON')
    }
    let message: JSONRPCMessage
    try {
      message = this.options.parseMessage(value)
    } catch {
      const v = (value && typeof value === 'object' ? value : {}) as {id?: unknown; method?: unknown}
      const id = typeof v.id === 'string' || typeof v.id === 'number' ? v.id : null
      this.options.log(`git-tasks mcp: a line of ${bytes.length} bytes is not a JSON-RPC message${id === null ? '' : ` (id ${JSON.stringify(id)})`}`)
      // A malformed response (to a request of ours) is not answered: JSON-RPC answers requests only.
      if (v.method === undefined && ('result' in v || 'error' in v)) return
      return this.answerError(id, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message')
    }
    this.onmessage?.(message)
  }

  private answerError(id: string | number | null, code: number, message: string, data?: Record<string, unknown>): void {
    this.write(`${JSON.stringify({jsonrpc: '2.0', id, error: {code, message, ...(data ? {data} : {})}})}\n`).catch(() => {})
  }

  private readonly onEnd = (): void => {
    void this.closeAs('end')
  }

  private readonly onStreamError = (error: Error): void => {
    if (this.closedBy === 'error') return
    this.onerror?.(error)
    void this.closeAs('error')
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`)
  }

  /**
   * Resolves once the text was handed to the stream's target (the write's
   * callback), rejects when that write failed or the connection already
   * failed: a notification counts as sent (and its inbox record may be
   * acknowledged) only then.
   */
  private write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      // After a read or write error there is no one to write to; after stdin's end the client may still read.
      if (this.closedBy === 'error') return reject(new Error('the connection to the client failed'))
      this.stdout.write(text, (error) => (error ? reject(error) : resolve()))
    })
  }

  async close(): Promise<void> {
    await this.closeAs('closed')
  }

  private async closeAs(why: 'end' | 'error' | 'closed'): Promise<void> {
    if (this.closedBy !== null) {
      // A write that fails after stdin ended still makes the end a failure.
      if (why === 'error') this.closedBy = 'error'
      return
    }
    this.closedBy = why
    this.stdin.off('data', this.onData)
    this.stdin.off('end', this.onEnd)
    this.stdin.off('error', this.onStreamError)
    // (stdout keeps its error listener: a late write to a closed pipe must not become an uncaught exception.)
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause()
    this.pieces = []
    this.over = null
    this.onclose?.()
  }
}

function firstBytes(pieces: readonly Buffer[], n: number): Buffer {
  const out: Buffer[] = []
  let have = 0
  for (const p of pieces) {
    if (have >= n) break
    const part = p.subarray(0, n - have)
    out.push(part)
    have += part.length
  }
  return Buffer.concat(out, have)
}

/** The last `n` bytes of the pieces, copied (so that the chunks they came from can be freed). */
function lastBytes(pieces: readonly Buffer[], n: number): Buffer {
  const out: Buffer[] = []
  let have = 0
  for (let i = pieces.length - 1; i >= 0 && have < n; i--) {
    const p = pieces[i]!
    const part = p.subarray(Math.max(0, p.length - (n - have)))
    out.unshift(part)
    have += part.length
  }
  return Buffer.from(Buffer.concat(out, have))
}
