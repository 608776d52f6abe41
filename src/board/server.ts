/**
 * `tasks board`: a small HTTP server over the app layer. Reads use one
 * long-lived session (the ref's tip re-read before each); every action opens
 * a session as the board's actor and calls the same use case the CLI
 * command calls (src/app), so it goes through the one
 * transaction path and a refusal ("already claimed by agent-3") comes back
 * to the page with its code. The server never touches git itself.
 *
 * Safety: it listens on 127.0.0.1 unless told otherwise; a random token made
 * at start is required in a header on every request that changes state
 * (a page from another origin cannot set it), reads check the Host header
 * (no DNS rebinding), and beyond loopback every request needs the token. The
 * pages load only /board.js and /board.css, under a Content-Security-Policy
 * that allows no other script.
 *
 * Hostile input: actions are looked up in the board's own Map (a name like
 * `constructor` or `__proto__` is unknown_action, never a property of
 * Object.prototype); an address with malformed percent-encoding is a 400;
 * every Location header goes through one function that only ever names a
 * path on this origin (never `//host`, which a browser reads as another
 * site).
 *
 * Writes: the board's own writes (actions and its periodic sync) run one at
 * a time, in arrival order, on one in-process queue, so the board never
 * races itself for the ref (a lost compare-and-swap then only ever means
 * another process wrote). When too many are waiting the newest is answered
 * 503 `board_busy` with Retry-After, before anything runs.
 *
 * Live updates: the tip is polled (in-process reads, no git process) and a
 * move is sent to every open page as a Server-Sent Event; the page then
 * fetches itself again and swaps its content.
 */
import {randomBytes} from 'node:crypto'
import {addressedToLoopback, isLoopbackHost, sameSecret} from '../core/http-guard'
import {type IncomingMessage, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import type * as Engine from '../engine'
import type {Session} from '../app/session'
import type {ListResult} from '../app/list-query'
import type {TaskView} from '../core/task-view'
import type {BatchTable} from '../core/ops/batch-file'
import {BOARD_CSS, BOARD_JS} from './assets'
import {catalogueQuery, cataloguePage} from './catalogue'
import {renderMarkdown} from './markdown'
import {pageWording} from './wording'
import {type BoardFilters, type PageContext, activityPage, boardPage, columnPage, columnsOf, esc, layout, taskPage} from './pages'
import {GRAPH_CSS, GRAPH_JS, graphPage} from './graph-view'

export interface BoardOptions {
  /** The engine bundle (dist/engine.js): the app layer's use cases. */
  engine: typeof Engine
  /** The SVG renderer, loaded on first use. */
  svg: () => {renderSvg(g: import('../core/task-graph').TaskGraph, title?: string, options?: import('../render/graph-svg').SvgOptions): string}
  cwd: string
  list: string
  as?: string
  offline?: boolean
  host: string
  port: number
  /** How often the ref is checked for moves, in ms. */
  pollMs?: number
  /** With a remote configured: run `tasks sync` this often (seconds), so other clones' work arrives by itself. 0: never. */
  syncEverySeconds?: number
  /** Writes that may wait for their turn (running one included); beyond it: 503 board_busy. */
  maxQueuedWrites?: number
  /** The operation table's batch operations (src/operations): the bulk actions run as one batch. */
  batchTable?: BatchTable
}

export interface RunningBoard {
  url: string
  host: string
  port: number
  token: string
  actor: string
  list: string
  /** True when the address is reachable from other machines (then reads need the token too). */
  exposed: boolean
  close(): Promise<void>
}

/** A request the board refuses before reaching the app layer. */
class Refusal {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
    readonly headers: Record<string, string> = {},
    readonly details: Record<string, unknown> = {},
  ) {}
}

/** An action of the board: the session it runs in and the request's JSON object. */
type Action = (s: Session, p: Record<string, unknown>) => Promise<unknown>


/** HTTP status for a refused use case, from the CLI's exit code. */
const STATUS_OF_EXIT: Record<number, number> = {1: 500, 2: 400, 3: 404, 4: 409, 5: 422, 6: 403}

/** Cached per commit (and for a few seconds at most: leases expire with time, not commits). */
const CACHE_MS = 5000
const MAX_BODY = 1 << 20
const MIN_EVENT_GAP_MS = 1000
/**
 * Writes that may wait (the running one included) before a new one is
 * answered 503. A board is one person's or a few people's; 256 is far more
 * than clicks arrive, and at ~0.1 s a write the last waits under half a
 * minute.
 */
const MAX_QUEUED_WRITES = 256
/** Error codes of a write that ran and lost to other writers every time: nothing was written, so trying again later is right. */
const RETRY_LATER = new Set(['cas_exhausted', 'ref_locked'])

/**
 * A Location value that a browser can only resolve on this origin: a path
 * with exactly one leading slash. `//host/…` (and `/\host/…`, which
 * browsers read the same way) would be protocol-relative, another site; a
 * scheme or anything not starting with `/` is replaced by the board's root.
 */
export function localLocation(location: string): string {
  if (!location.startsWith('/')) return '/'
  const path = `/${location.replace(/^[/\\]+/, '')}`
  // Control characters are never sent (and browsers strip tabs and newlines, which could rebuild a `//`).
  return /[\u0000-\u001f\u007f]/.test(path) ? '/' : path
}

/** The path of an address decoded, or a 400 when its percent-encoding is malformed (`%E0%A4%A`, `%zz`). */
function decodePath(path: string): string {
  try {
    return decodeURIComponent(path)
  } catch {
    throw new Refusal(400, 'bad_request', 'the address holds malformed percent-encoding')
  }
}

function cookieValue(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=')
    if (i !== -1 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim()
  }
  return null
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY) throw new Refusal(413, 'too_large', 'the request is too large')
    chunks.push(chunk as Buffer)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
  } catch {
    throw new Refusal(400, 'bad_request', 'the request is not JSON')
  }
}

function text(p: Record<string, unknown>, key: string): string {
  const v = p[key]
  if (typeof v !== 'string') throw new Refusal(400, 'bad_request', `"${key}" must be text`)
  return v
}

function optionalText(p: Record<string, unknown>, key: string): string | undefined {
  const v = p[key]
  if (v === undefined || v === null || v === '') return undefined
  if (typeof v !== 'string') throw new Refusal(400, 'bad_request', `"${key}" must be text`)
  return v
}

/** Start the board; resolves once it listens. */
export async function startBoard(o: BoardOptions): Promise<RunningBoard> {
  const e = o.engine
  const token = randomBytes(24).toString('base64url')
  const reader: Session = await e.Session.open({cwd: o.cwd, list: o.list, as: o.as, offline: o.offline, json: true})
  let actor: string
  try {
    actor = await reader.actor()
    await reader.store.load() // not_initialised: say so now, not on the first page
  } catch (error) {
    reader.close()
    throw error
  }
  // What reads would warn about on a terminal (behind the remote, unpublished commits) goes on the pages instead.
  let notices = new Map<string, string>()
  let gathering = new Map<string, string>()
  reader.warn = (w) => void gathering.set(w.kind, w.message)
  const exposed = !isLoopbackHost(o.host)
  const cookieName = () => `tasks_board_${port}`
  let port = o.port

  // One read at a time on the shared session (its store keeps one index and one reader process).
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const run = queue.then(f, f)
    queue = run.catch(() => undefined)
    return run
  }
  const fresh = async (): Promise<string> => (await reader.store.refreshTip()) ?? ''

  // The board's own writes, one at a time in arrival order (a queue separate from the reads': pages keep
  // being served while a write runs). `waiting` counts the running one too.
  const maxQueued = Math.max(1, o.maxQueuedWrites ?? MAX_QUEUED_WRITES)
  let writes: Promise<unknown> = Promise.resolve()
  let waiting = 0
  let averageWriteMs = 100
  /** Seconds to suggest in Retry-After: about how long the writes ahead take, 1 at least. */
  const retryAfter = () => String(Math.min(60, Math.max(1, Math.ceil((waiting * averageWriteMs) / 1000))))
  const inTurn = <T>(f: () => Promise<T>): Promise<T> => {
    if (waiting >= maxQueued) {
      const seconds = retryAfter()
      // A rejection, never a throw: the sync timer calls this outside any async function.
      return Promise.reject(new Refusal(503, 'board_busy', `the board has ${waiting} changes waiting to be written; nothing was done, try again in ${seconds} s`, {'Retry-After': seconds}, {retry_after: Number(seconds)}))
    }
    waiting++
    const timed = async () => {
      const started = Date.now()
      try {
        return await f()
      } finally {
        averageWriteMs = averageWriteMs * 0.8 + (Date.now() - started) * 0.2
        waiting--
      }
    }
    const run = writes.then(timed, timed)
    writes = run.catch(() => undefined)
    return run
  }

  let boardCache: {commit: string; at: number; list: ListResult} | null = null
  const boardRows = (): Promise<ListResult> =>
    serial(async () => {
      const commit = await fresh()
      if (boardCache && boardCache.commit === commit && Date.now() - boardCache.at < CACHE_MS) return boardCache.list
      gathering = new Map()
      const list = await e.listing.list(reader, {all: true})
      notices = gathering
      boardCache = {commit, at: Date.now(), list}
      return list
    })
  /** The graph of one commit (and scope), drawn for the page and as a file as each is asked for. */
  const svgCache = new Map<string, {graph: import('../core/task-graph').TaskGraph; title: string; svg: {page?: string; file?: string}}>()

  const context = (authed: boolean, commit: string, at?: PageContext['at']): PageContext =>
    at ? {list: o.list, actor, commit, now: reader.now(), token: null, notices: [], at} : {list: o.list, actor, commit, now: reader.now(), token: authed ? token : null, notices: [...notices.values()]}

  /**
   * `?at=WHEN` (docs/history.md, "Time travel"): the pages read the list as it
   * was then, on a session pinned at that commit (the live caches are not
   * written), with no actions. Null for the live list.
   */
  const pastOf = async (url: URL): Promise<{past: Session; at: NonNullable<PageContext['at']>} | null> => {
    const when = url.searchParams.get('at')
    if (when === null || when === '') return null
    return serial(async () => {
      await fresh()
      return e.timeTravel.pastSession(reader, when)
    })
  }

  // ------------------------------------------------------------ live updates
  const streams = new Set<ServerResponse>()
  let lastTip = reader.store.tip ?? ''
  let lastSent = 0
  const poll = async () => {
    // At most one event a second: a list many agents write to moves several times a second, and each event
    // makes every open page ask again (the server builds its view once per commit).
    if (Date.now() - lastSent < MIN_EVENT_GAP_MS) return
    const tip = await serial(fresh).catch(() => lastTip)
    if (tip === lastTip) return
    lastTip = tip
    lastSent = Date.now()
    for (const res of streams) res.write(`event: ref\ndata: ${tip}\n\n`)
  }
  const poller = setInterval(() => void poll(), o.pollMs ?? 300)
  const keepAlive = setInterval(() => {
    for (const res of streams) res.write(': keep-alive\n\n')
  }, 15000)

  // ------------------------------------------------------------ sync with the remote, when asked to
  let syncing = false
  let lastSyncProblem = ''
  const syncer =
    o.syncEverySeconds && o.syncEverySeconds > 0
      ? setInterval(() => {
          if (syncing) return
          syncing = true
          // In the write queue like an action: a sync moves the ref too, and must not race the board's own writes.
          void inTurn(async () => {
            const session = await e.Session.open({cwd: o.cwd, list: o.list, as: actor, json: true})
            try {
              await e.admin.sync(session)
              lastSyncProblem = ''
            } catch (error) {
              const message = e.toTasksError(error as Error).message
              if (message !== lastSyncProblem) process.stderr.write(`${JSON.stringify({warning: {kind: 'board_sync_failed', message}})}\n`)
              lastSyncProblem = message
            } finally {
              session.close()
              syncing = false
              void poll()
            }
          }).catch(() => {
            syncing = false
          })
        }, o.syncEverySeconds * 1000)
      : null

  // ------------------------------------------------------------ actions
  // A Map, not an object literal: a name sent in the address is looked up among these keys only
  // (`constructor`, `__proto__`, `toString` are not actions, whatever Object.prototype holds).
  const ACTIONS = new Map<string, Action>(
    Object.entries({
      add: (s, p) =>
        e.cards.add(s, {
          title: text(p, 'title'),
          body: optionalText(p, 'body'),
          tags: Array.isArray(p.tags) ? p.tags.map((t) => String(t)) : undefined,
          priority: typeof p.priority === 'number' || typeof p.priority === 'string' ? p.priority : undefined,
          parent: optionalText(p, 'parent'),
          // The creation gate (require_checks) holds here too: the checks come with the card.
          acceptance: Array.isArray(p.acceptance) ? p.acceptance.map((t) => String(t)) : undefined,
          test: Array.isArray(p.test) ? p.test.map((t) => String(t)) : undefined,
          type: optionalText(p, 'type'),
        }),
      comment: (s, p) => e.cards.comment(s, {id: text(p, 'id'), text: text(p, 'text')}),
      claim: (s, p) => e.claims.claim(s, {id: text(p, 'id')}),
      done: (s, p) => e.claims.finish(s, {ids: [text(p, 'id')]}),
      block: (s, p) => e.claims.block(s, {id: text(p, 'id'), reason: text(p, 'note')}),
      reopen: (s, p) => e.claims.reopen(s, {ids: [text(p, 'id')]}),
      // A card dragged from In progress back to Ready: its holder lets go (as `tasks release`).
      release: (s, p) => e.claims.release(s, {ids: [text(p, 'id')]}),
      assign: (s, p) => e.cards.assign(s, {ids: [text(p, 'id')], assignee: optionalText(p, 'assignee') ?? null}),
      edit: async (s, p) => {
        // Only the fields the person changed, and only if nobody changed the card since the form was filled.
        const current = await e.listing.show(s, {id: text(p, 'id')})
        const t = current.task
        if (typeof p.revision === 'number' && p.revision !== t.revision) {
          throw new Refusal(409, 'edit_conflict', `${t.short_id} was changed by ${t.updated_by} since this page was loaded; reload it and edit again`)
        }
        const title = optionalText(p, 'title')
        const body = typeof p.body === 'string' ? p.body : undefined
        const priority = p.priority === undefined || p.priority === '' ? undefined : Number(p.priority)
        return e.cards.edit(s, {
          id: t.id,
          title: title !== undefined && title !== t.title ? title : undefined,
          body: body !== undefined && body.replace(/\r\n/g, '\n').trimEnd() !== current.body.trimEnd() ? body.replace(/\r\n/g, '\n') : undefined,
          priority: priority !== undefined && priority !== t.priority ? priority : undefined,
          // The spec of an item someone else holds is theirs: the op refuses it (not_owner), the board has no --force.
          type: optionalText(p, 'type') !== undefined && optionalText(p, 'type') !== t.type ? optionalText(p, 'type') : undefined,
          reason: optionalText(p, 'reason'),
        })
      },
      // Several selected cards, one action (claim, assign, tag, done): one batch, so one commit or none.
      bulk: (s, p) => {
        if (!o.batchTable) throw new Refusal(404, 'unknown_action', 'this board has no bulk actions')
        return e.bulkActions.bulk(s, {action: text(p, 'action'), ids: p.ids, assignee: p.assignee, tags: p.tags, table: o.batchTable})
      },
    } satisfies Record<string, Action>),
  )

  async function runAction(name: string, payload: Record<string, unknown>): Promise<unknown> {
    const f = ACTIONS.get(name)
    if (!f) throw new Refusal(404, 'unknown_action', `no action "${name.slice(0, 64)}"`)
    return inTurn(async () => {
      const session = await e.Session.open({cwd: o.cwd, list: o.list, as: actor, offline: o.offline, json: true})
      try {
        const result = await f(session, payload)
        const pub = session.publication()
        return pub ? {...(result as object), published: pub.published} : result
      } catch (error) {
        // Nothing was written and only other writers were in the way (ours wait their turn): say when to try again.
        const te = error instanceof Refusal ? null : e.toTasksError(error as Error)
        if (te && RETRY_LATER.has(te.code)) {
          const seconds = retryAfter()
          throw new Refusal(503, te.code, te.message, {'Retry-After': seconds}, {retry_after: Number(seconds)})
        }
        throw error
      } finally {
        session.close()
        void poll()
      }
    })
  }

  // ------------------------------------------------------------ requests
  function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
    // Every redirect the board makes passes here: whatever a handler put together, it stays on this origin.
    if (headers.Location !== undefined) headers = {...headers, Location: localLocation(headers.Location)}
    res.writeHead(status, {
      'Content-Type': type,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      ...headers,
    })
    res.end(body)
  }
  const html = (res: ServerResponse, status: number, body: string) => send(res, status, 'text/html; charset=utf-8', body)
  const json = (res: ServerResponse, status: number, body: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(body))

  function hostAllowed(req: IncomingMessage): boolean {
    if (exposed) return true // the token guards every request there
    return addressedToLoopback(req.headers.host, o.host, port)
  }

  function tokenFrom(req: IncomingMessage, url: URL): {header: boolean; any: boolean} {
    const header = req.headers['x-board-token']
    const h = typeof header === 'string' && sameSecret(header, token)
    const q = url.searchParams.get('token')
    const c = cookieValue(req, cookieName())
    return {header: h, any: h || (q !== null && sameSecret(q, token)) || (c !== null && sameSecret(c, token))}
  }

  /** A card's short id as the kanban shows it (the full id when the board has not seen the card). */
  const shortOf = (id: string): string => boardCache?.list.tasks.find((t) => t.id === id)?.short_id ?? id

  function failure(res: ServerResponse, error: unknown, asJson: boolean, ctx: PageContext | null, action?: string): void {
    let status: number
    let body: {code: string; message: string; [k: string]: unknown}
    let headers: Record<string, string> = {}
    if (error instanceof Refusal) {
      status = error.status
      body = {code: error.code, message: error.message, ...error.details}
      headers = error.headers
    } else {
      const te = e.toTasksError(error as Error)
      status = STATUS_OF_EXIT[te.exitCode] ?? 500
      body = te.toJSON().error as typeof body
    }
    // A refused action is also said in the board's own words (no CLI commands or flags the page cannot act on).
    if (action !== undefined) body = {...body, page: pageWording(body, action, reader.now(), shortOf)}
    if (asJson || !ctx) send(res, status, 'application/json; charset=utf-8', JSON.stringify({error: body}), headers)
    else send(res, status, 'text/html; charset=utf-8', layout(ctx, 'error', 'error', `<h1>${esc(status)}</h1><p>${esc(body.message)}</p><p><a href="/">back to the board</a></p>`))
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req)) return send(res, 421, 'text/plain', 'wrong host\n')
    const refuse = (r: Refusal) =>
      req.method === 'POST' ? failure(res, r, true, null) : send(res, r.status, 'text/plain; charset=utf-8', `${r.message}\n`, r.headers)
    // Only a path (origin-form) is ours to answer; an absolute address or `*` is a request meant for a proxy.
    // The path is appended to a fixed origin rather than resolved against it: `//evil.example/` stays a path
    // here, where `new URL(path, base)` would read it as another host.
    const target = req.url ?? '/'
    if (!target.startsWith('/')) return refuse(new Refusal(400, 'bad_request', 'the request must name a path on this board'))
    let url: URL
    try {
      url = new URL(`http://board.invalid${target}`)
    } catch {
      return refuse(new Refusal(400, 'bad_request', 'the address cannot be read'))
    }
    if (url.host !== 'board.invalid') return refuse(new Refusal(400, 'bad_request', 'the address cannot be read'))
    const path = url.pathname
    try {
      decodePath(path)
    } catch (error) {
      return refuse(error as Refusal)
    }
    const auth = tokenFrom(req, url)

    if (req.method === 'POST') {
      if (!auth.header) return json(res, 403, {error: {code: 'token_required', message: 'this request needs the board token (the address `tasks board` printed at start)'}})
      const origin = req.headers.origin
      if (origin && origin !== `http://${req.headers.host}`) return json(res, 403, {error: {code: 'bad_origin', message: 'requests from other sites are refused'}})
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return json(res, 415, {error: {code: 'bad_request', message: 'send JSON'}})
      const m = /^\/api\/([^/]+)$/.exec(path)
      if (!m) return json(res, 404, {error: {code: 'not_found', message: 'no such action'}})
      try {
        const payload = await readBody(req)
        if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new Refusal(400, 'bad_request', 'send a JSON object')
        json(res, 200, await runAction(m[1]!, payload as Record<string, unknown>))
      } catch (error) {
        failure(res, error, true, null, m[1]!.slice(0, 64))
      }
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed\n', {Allow: 'GET, POST'})
    if (exposed && !auth.any) return send(res, 401, 'text/plain; charset=utf-8', 'this board is reachable from other machines: open it with the address tasks board printed (it carries the token)\n')
    // The token in the address: keep it in a cookie (this board only) and drop it from the address bar.
    const download = path === '/api/tasks' || path === '/export'
    if (url.searchParams.has('token') && auth.any && !download) {
      url.searchParams.delete('token')
      const location = `${url.pathname}${url.search}`
      return send(res, 303, 'text/plain', '', {Location: location, 'Set-Cookie': `${cookieName()}=${token}; HttpOnly; SameSite=Strict; Path=/`})
    }
    if (path === '/board.js') return send(res, 200, 'text/javascript; charset=utf-8', `${BOARD_JS};\n${GRAPH_JS}`)
    if (path === '/board.css') return send(res, 200, 'text/css; charset=utf-8', `${BOARD_CSS}\n${GRAPH_CSS}`)
    if (path === '/favicon.ico') return send(res, 204, 'text/plain', '')
    if (path === '/events') {
      res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no'})
      // The tip the pages are drawn from now, not the last one sent: that one can be a second old (MIN_EVENT_GAP_MS),
      // and a page drawn after it would swap its content once for nothing.
      res.write(`retry: 1000\nevent: ref\ndata: ${reader.store.tip ?? lastTip}\n\n`)
      streams.add(res)
      req.on('close', () => streams.delete(res))
      return
    }
    if (path === '/api/tasks') {
      try {
        const q = catalogueQuery(url.searchParams)
        const list = await boardRows()
        return json(res, 200, cataloguePage(o.list, list.commit, list.tasks, q))
      } catch (error) {
        return failure(res, error, true, null)
      }
    }
    if (path === '/export') {
      try {
        for (const key of url.searchParams.keys()) if (key !== 'token' && key !== 'format' && key !== 'at') throw new Refusal(400, 'bad_request', `unknown parameter "${key.slice(0, 64)}": use format (json or md) and at`)
        const format = url.searchParams.get('format') ?? 'json'
        if (format !== 'json' && format !== 'md') throw new Refusal(400, 'bad_request', 'format must be json or md')
        // With at=WHEN: the list as it was then (as `tasks export --at`).
        const then = await pastOf(url)
        const doc = then
          ? Object.assign(await serial(() => e.interchange.exportDocument(then.past, {ids: []})), {at: then.at})
          : await serial(async () => {
              await fresh()
              return e.interchange.exportDocument(reader, {ids: []})
            })
        const stamp = doc.exported_at.replace(/[^0-9A-Za-z]/g, '').slice(0, 15)
        const name = `tasks-${o.list}-${stamp}.${format === 'md' ? 'md' : 'json'}`
        const body = format === 'md' ? e.interchange.exportMarkdown(doc) : `${JSON.stringify(doc, null, 2)}\n`
        return send(res, 200, format === 'md' ? 'text/markdown; charset=utf-8' : 'application/json; charset=utf-8', body, {'Content-Disposition': `attachment; filename="${name}"`})
      } catch (error) {
        return failure(res, error, true, null)
      }
    }
    let ctx: PageContext | null = null
    try {
      const filters: BoardFilters = {tag: url.searchParams.get('tag') ?? undefined, owner: url.searchParams.get('owner') ?? undefined, q: url.searchParams.get('q') ?? undefined}
      const then = await pastOf(url)
      // A past page: the list as it was (read once per request, never cached with the live view).
      const rows = (): Promise<ListResult> => (then ? serial(() => e.listing.list(then.past, {all: true})) : boardRows())
      if (path === '/') {
        const list = await rows()
        ctx = context(auth.any, list.commit, then?.at)
        return html(res, 200, layout(ctx, 'board', 'board', boardPage(ctx, list, columnsOf(list.tasks, filters), filters)))
      }
      const column = /^\/column\/([a-z_]+)$/.exec(path)
      if (column) {
        const list = await rows()
        ctx = context(auth.any, list.commit, then?.at)
        const cards = columnsOf(list.tasks, filters).get(column[1]!)
        if (!cards) throw new Refusal(404, 'not_found', 'no such column')
        const offset = Math.max(0, Number(url.searchParams.get('offset') ?? 0) || 0)
        return html(res, 200, columnPage(column[1]!, cards, offset, ctx, filters))
      }
      const task = /^\/task\/([^/]+)$/.exec(path)
      if (task) {
        const id = decodePath(task[1]!)
        const [detail, history, commit] = await serial(async () => {
          const c = then ? then.at.commit : await fresh()
          const s = then ? then.past : reader
          const d = await e.listing.show(s, {id})
          const h = await e.history.log(s, {id: d.task.id, limit: 100})
          return [d, h, c] as const
        })
        ctx = context(auth.any, commit, then?.at)
        return html(res, 200, layout(ctx, detail.task.title, 'task', taskPage(ctx, detail, history, renderMarkdown)))
      }
      if (path === '/activity') {
        const list = await rows()
        const log = await serial(async () => e.history.log(then ? then.past : reader, {limit: 200}))
        ctx = context(auth.any, list.commit, then?.at)
        const shorts = new Map(list.tasks.map((t: TaskView) => [t.id, t.short_id]))
        return html(res, 200, layout(ctx, 'activity', 'activity', activityPage(log, shorts)))
      }
      if (path === '/graph' || path === '/graph.svg') {
        const all = url.searchParams.get('all') === '1'
        // The page draws the SVG inside itself (no style attribute: its CSP allows none); /graph.svg is a file of its own.
        const embedded = path === '/graph'
        const [drawn, svg, commit] = await serial(async () => {
          const c = then ? then.at.commit : await fresh()
          const key = `${c}:${all}:${then ? 'past' : Math.floor(Date.now() / CACHE_MS)}`
          let s = svgCache.get(key)
          if (s === undefined) {
            const g = await e.graph.taskGraph(then ? then.past : reader, {ids: [], all})
            s = {graph: g, title: `${o.list}: ${g.nodes.length} items${then ? ` as of ${then.at.date} (commit ${then.at.commit.slice(0, 7)})` : ''}`, svg: {}}
            svgCache.clear()
            svgCache.set(key, s)
          }
          const form = embedded ? 'page' : 'file'
          s.svg[form] ??= o.svg().renderSvg(s.graph, s.title, {embedded})
          return [s, s.svg[form], c] as const
        })
        if (path === '/graph.svg') return send(res, 200, 'image/svg+xml; charset=utf-8', svg)
        ctx = context(auth.any, commit, then?.at)
        return html(res, 200, layout(ctx, 'graph', 'graph', graphPage(svg, drawn.graph, all)))
      }
      ctx = context(auth.any, lastTip)
      return html(res, 404, layout(ctx, 'not found', 'error', '<h1>Not found</h1><p><a href="/">back to the board</a></p>'))
    } catch (error) {
      failure(res, error, false, ctx ?? context(auth.any, lastTip))
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) json(res, 500, {error: {code: 'internal', message: String((error as Error)?.message ?? error)}})
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(o.port, o.host, () => {
      server.off('error', reject)
      resolve()
    })
  }).catch((error: NodeJS.ErrnoException) => {
    clearInterval(poller)
    clearInterval(keepAlive)
    if (syncer) clearInterval(syncer)
    reader.close()
    throw Object.assign(new Error(`cannot listen on ${o.host}:${o.port}: ${error.code ?? error.message}`), {listenFailed: true, cause: error})
  })
  port = (server.address() as AddressInfo).port
  // Build the kanban's view of the list before saying where the board is, so the first page is served at once.
  await boardRows().catch(() => undefined)
  const shownHost = o.host.includes(':') ? `[${o.host}]` : o.host
  const url = `http://${shownHost}:${port}/?token=${token}`
  return {
    url,
    host: o.host,
    port,
    token,
    actor,
    list: o.list,
    exposed,
    close: async () => {
      clearInterval(poller)
      clearInterval(keepAlive)
      if (syncer) clearInterval(syncer)
      for (const res of streams) res.end()
      streams.clear()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
      await queue.catch(() => undefined)
      reader.close()
    },
  }
}
