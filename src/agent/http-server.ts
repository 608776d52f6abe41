/**
 * `tasks mcp --http`: the same MCP server over the official SDK's
 * Streamable HTTP transport (StreamableHTTPServerTransport, stateful: one
 * transport and one McpServer per client session), at `/mcp` on
 * 127.0.0.1:8765 unless told otherwise. All sessions share one core
 * (mcp-server.ts: one Session, one call queue, one inbox notifier).
 *
 * Safety, as the board (src/board/server.ts): on loopback the Host header
 * must name the loopback address (no DNS rebinding) and a request from a
 * page of another origin is refused; listening on any other address needs
 * a token (TASKS_MCP_TOKEN, at least 16 characters; refused at start
 * without one), and then every request must carry it as
 * `Authorization: Bearer <token>` (compared in constant time). A token set
 * on loopback is required there too. Each request body is read up to the
 * stdio transport's limit per message (TASKS_MCP_MAX_MESSAGE_BYTES), past
 * which it is answered 413 before anything is parsed; sessions are capped.
 *
 * Inbox events (`--agent A`) go to every session of A that holds an open
 * event stream (the GET the SDK's client opens after initialising); a
 * record is acknowledged once one of them was written, and kept for the
 * next poll while no client listens.
 */
import {randomUUID} from 'node:crypto'
import {addressedToLoopback, isLoopbackHost, sameSecret} from '../core/http-guard'
import {type IncomingMessage, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {EnvironmentError, UsageError} from '../core/errors'
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import type * as StreamableHttp from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {type McpCore, type McpOptions, buildServer, createCore, maxMessageBytes, preflight, sendRecord} from './mcp-server'

export const DEFAULT_HTTP_PORT = 8765
export const DEFAULT_HTTP_HOST = '127.0.0.1'
export const MCP_PATH = '/mcp'
/** The environment variable holding the bearer token. */
export const TOKEN_ENV = 'TASKS_MCP_TOKEN'
export const MIN_TOKEN_CHARS = 16
/** Client sessions held at once; beyond, a new one is answered 503. */
export const MAX_SESSIONS = 64
/** A session with no request and no open stream for this long is closed. */
const IDLE_MS = 60 * 60_000


export interface HttpOptions extends McpOptions {
  host: string
  port: number
  /** The bearer token every request must carry (required beyond loopback). */
  token?: string
}

export interface RunningHttp {
  url: string
  host: string
  port: number
  /** Reachable from other machines (then the token guards every request). */
  exposed: boolean
  /** Whether requests need `Authorization: Bearer`. */
  token_required: boolean
  agent: string | null
  list: string
  /** Open client sessions (tests, status). */
  sessions(): number
  close(): Promise<void>
}

interface Entry {
  transport: StreamableHttp.StreamableHTTPServerTransport
  server: McpServer
  initialized: boolean
  /** Open GET event streams of this session. */
  streams: number
  lastSeen: number
}


/** The refusals made before the SDK sees a request, in the JSON-RPC error shape its client reads. */
function refuse(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}, data: Record<string, unknown> = {}): void {
  if (res.headersSent) return void res.end()
  res.writeHead(status, {'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers})
  res.end(JSON.stringify({jsonrpc: '2.0', id: null, error: {code: status === 413 ? -32600 : -32000, message, data: {code, ...data}}}))
}

/** The body of a POST, read up to `limit` bytes; past it, null (the rest is not kept). */
async function readBounded(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) return null
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) return null
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks, size)
}

/** The token's checks at start: none needed on loopback; beyond it, one of at least 16 characters. */
export function checkToken(host: string, token: string | undefined): void {
  const exposed = !isLoopbackHost(host)
  if (token !== undefined && token.length < MIN_TOKEN_CHARS) {
    throw new UsageError(`${TOKEN_ENV} is too short to guard anything: use at least ${MIN_TOKEN_CHARS} characters (e.g. \`openssl rand -hex 24\`)`, {variable: TOKEN_ENV}, 'weak_token')
  }
  if (exposed && token === undefined) {
    throw new UsageError(
      `listening on ${host} makes the server reachable from other machines: set ${TOKEN_ENV} to a secret of at least ${MIN_TOKEN_CHARS} characters (clients send it as "Authorization: Bearer <token>"), or keep the default 127.0.0.1`,
      {host, variable: TOKEN_ENV},
      'token_required',
    )
  }
}

export async function serveHttp(options: HttpOptions): Promise<RunningHttp> {
  checkToken(options.host, options.token)
  await preflight(options)
  const limit = maxMessageBytes()
  const {StreamableHTTPServerTransport} = require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof StreamableHttp
  const {isInitializeRequest} = require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js')
  const exposed = !isLoopbackHost(options.host)
  const token = options.token
  const sessions = new Map<string, Entry>()
  let port = options.port

  // An inbox record goes to every listening session; it counts as sent when one write succeeded.
  const core: McpCore = createCore(options, async (record) => {
    const listening = [...sessions.values()].filter((e) => e.initialized && e.streams > 0)
    if (listening.length === 0) throw Object.assign(new Error('no client holds an open event stream (GET /mcp) yet'), {quiet: true})
    let sent = 0
    let last: unknown = null
    for (const e of listening) {
      try {
        await sendRecord(e.server, core, record)
        // The SDK drops an event for a stream that closed meanwhile without saying so: such a write does not
        // count (the record is sent again, at worst twice, rather than acknowledged and lost).
        if (e.streams === 0) throw new Error('the event stream closed while the record was sent')
        sent++
      } catch (error) {
        last = error
      }
    }
    if (sent === 0) throw last instanceof Error ? last : new Error('no event stream took the record')
  })

  const drop = (id: string): void => {
    const e = sessions.get(id)
    if (!e) return
    sessions.delete(id)
    void e.server.close().catch(() => {})
  }

  function hostAllowed(req: IncomingMessage): boolean {
    if (exposed) return true // the token guards every request there
    return addressedToLoopback(req.headers.host, options.host, port)
  }

  function authorised(req: IncomingMessage): boolean {
    if (token === undefined) return true
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')
    return m !== null && sameSecret(m[1]!, token)
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req)) return refuse(res, 421, 'wrong_host', 'this server answers only requests addressed to its loopback address')
    if (!authorised(req)) return refuse(res, 401, 'token_required', `this server needs its token: send "Authorization: Bearer <${TOKEN_ENV}>"`, {'WWW-Authenticate': 'Bearer realm="git-tasks"'})
    const origin = req.headers.origin
    if (origin && origin !== `http://${req.headers.host}`) return refuse(res, 403, 'bad_origin', 'requests from web pages of other sites are refused')
    const path = (req.url ?? '').split('?')[0]
    if (path !== MCP_PATH) return refuse(res, 404, 'not_found', `the MCP endpoint is ${MCP_PATH}`)
    const header = req.headers['mcp-session-id']
    const sid = typeof header === 'string' ? header : undefined
    const entry = sid ? sessions.get(sid) : undefined
    if (sid && !entry) return refuse(res, 404, 'unknown_session', 'no such session (it ended, or the server restarted): initialise again')
    if (entry) entry.lastSeen = Date.now()

    if (req.method === 'POST') {
      const bytes = await readBounded(req, limit)
      if (bytes === null) {
        return refuse(res, 413, 'message_too_large', `the request is larger than this server reads (${limit} bytes; TASKS_MCP_MAX_MESSAGE_BYTES)`, {Connection: 'close'}, {limit})
      }
      let body: unknown
      try {
        body = JSON.parse(bytes.toString('utf8'))
      } catch {
        res.writeHead(400, {'Content-Type': 'application/json'})
        return void res.end(JSON.stringify({jsonrpc: '2.0', id: null, error: {code: -32700, message: 'Parse error: the body is not JSON'}}))
      }
      if (entry) return entry.transport.handleRequest(req, res, body)
      const initialising = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body)
      if (!initialising) return refuse(res, 400, 'no_session', 'send initialize first (no Mcp-Session-Id header)')
      if (sessions.size >= MAX_SESSIONS) return refuse(res, 503, 'too_many_sessions', `this server holds ${MAX_SESSIONS} client sessions already`, {'Retry-After': '30'})
      const fresh: Entry = {transport: null as never, server: buildServer(core), initialized: false, streams: 0, lastSeen: Date.now()}
      fresh.transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, fresh),
        onsessionclosed: (id) => drop(id),
        maxRequestBodySize: limit,
      })
      fresh.transport.onclose = () => {
        if (fresh.transport.sessionId) sessions.delete(fresh.transport.sessionId)
      }
      fresh.server.server.oninitialized = () => {
        fresh.initialized = true
      }
      await fresh.server.connect(fresh.transport)
      return fresh.transport.handleRequest(req, res, body)
    }
    if (!entry) return refuse(res, 400, 'no_session', 'this request needs the Mcp-Session-Id header of an initialised session')
    if (req.method === 'GET') {
      entry.streams++
      res.once('close', () => {
        entry.streams--
        entry.lastSeen = Date.now()
      })
      return entry.transport.handleRequest(req, res)
    }
    if (req.method === 'DELETE') return entry.transport.handleRequest(req, res)
    return refuse(res, 405, 'method_not_allowed', 'use POST, GET or DELETE', {Allow: 'POST, GET, DELETE'})
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      process.stderr.write(`git-tasks mcp: ${(error as Error).message}\n`)
      refuse(res, 500, 'internal', 'the request failed')
    })
  })
  // Long-lived event streams must not be cut by the default request timeout.
  http.requestTimeout = 0
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(new EnvironmentError('listen_failed', `cannot listen on ${options.host}:${options.port}: ${error.code ?? error.message} (another program has the port? try --port 0 for any free one)`, {host: options.host, port: options.port})),
    )
    http.listen(options.port, options.host, () => resolve())
  })
  port = (http.address() as AddressInfo).port
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const [id, e] of sessions) if (e.streams === 0 && now - e.lastSeen > IDLE_MS) drop(id)
  }, 60_000)
  sweep.unref()
  core.notifier?.start()
  const shownHost = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    host: options.host,
    port,
    exposed,
    token_required: token !== undefined,
    agent: core.agent,
    list: options.list,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweep)
      core.notifier?.stop()
      for (const id of [...sessions.keys()]) drop(id)
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
      await core.close()
    },
  }
}
