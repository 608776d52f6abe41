/**
 * `tasks mcp`: a Model Context Protocol server over stdio, on the official
 * SDK (McpServer, over our own bounded stdio transport: stdio-transport.ts;
 * `--http`: the SDK's Streamable HTTP transport, http-server.ts). Long-lived: one Session (the
 * repository, the list's cat-file reader, the task index in memory, the
 * actor) serves every call; each call re-reads the ref through the reader
 * and brings the index forward by the tasks that changed (ListStore keeps
 * the last index), so a local claim costs about one `git update-ref`.
 *
 * Tools come from the table in tools.ts. Resources: the list
 * (`tasks://<list>`), one card (`tasks://<list>/<id>`) and the agent guide
 * (`tasks://guide`). With an agent (`--agent A`) the server is a Claude
 * Code channel: it declares `experimental['claude/channel']`, and an
 * InboxNotifier drains A's inbox into `notifications/claude/channel`
 * events (channel.ts) and resource-updated notifications, acknowledging a
 * record once its event was written.
 */
import {Session, type SessionOptions} from '../app/session'
import {toTasksError} from '../app/error-mapping'
import {UsageError} from '../core/errors'
import * as listing from '../app/list-query'
import {primeMarkdown} from '../app/prime'
import {loadMcp} from '../app/lazy-libs'
import {importLimitBytes} from '../app/interchange'
import {BoundedStdioTransport} from './stdio-transport'
import {type ToolDef, servedNames, toolsFor} from './tools'
import type {AnySpec, EngineModule, Toolset} from '../operations/spec'
import {compactWrite} from '../render/compact-write'
import {mcpMessage} from './mcp-hints'
import {type InboxRecord, type InboxSource, inboxSourceFor} from './inbox-source'
import {InboxNotifier} from './notifier'
import {CHANNEL_CAPABILITY, CHANNEL_METHOD, channelEvent, channelInstructions} from './channel'
import {checkAgent, checkAgentName} from './agent-check'
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js'

export const SERVER_NAME = 'git-tasks'
/** Default interval between inbox polls. */
export const DEFAULT_POLL_MS = 2000

export interface McpOptions extends SessionOptions {
  /** The agent whose inbox is drained (also the actor when --as is not given). */
  agent?: string
  pollMs?: number
  version: string
  /** The engine bundle the server runs in: what the operation table's tools call. */
  engine: EngineModule
  /** The operation table (src/operations/table.ts): one tool per operation. */
  operations: readonly AnySpec[]
  /** The toolsets served (`--toolsets`, tools.ts parseToolsets); default: DEFAULT_TOOLSETS (toolsFor). */
  toolsets?: readonly Toolset[]
  /** The inbox to drain; default: inboxSourceFor(agent). Tests hand in their own. */
  inbox?: InboxSource
  /** Wraps delivery (tests inject failures). */
  wrapDeliver?: (deliver: (r: InboxRecord) => Promise<void>) => (r: InboxRecord) => Promise<void>
}

export interface RunningServer {
  server: McpServer
  /** The tools it serves. */
  tools: readonly ToolDef[]
  notifier: InboxNotifier | null
  close(): Promise<void>
}

/** One call at a time: the session's reader and index are shared, and calls stay in the order they came. */
export class Queue {
  private tail: Promise<unknown> = Promise.resolve()
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work)
    this.tail = next.catch(() => {})
    return next
  }
}

function jsonResult(value: unknown): {content: Array<{type: 'text'; text: string}>; structuredContent: Record<string, unknown>} {
  return {content: [{type: 'text', text: JSON.stringify(value)}], structuredContent: value as Record<string, unknown>}
}

/**
 * A failure as the client sees it: a tool error whose text is the CLI's
 * --json error object, its message naming tools instead of commands when
 * the server's tools are given (mcp-hints.ts).
 */
function errorResult(error: unknown, hints?: {specs: readonly AnySpec[]; served: ReadonlySet<string>}): {content: Array<{type: 'text'; text: string}>; structuredContent: Record<string, unknown>; isError: true} {
  const e = toTasksError(error instanceof Error ? error : new Error(String(error)))
  const body = e.toJSON()
  if (hints && typeof body.error.message === 'string') body.error.message = mcpMessage(body.error.message, e.code, hints.specs, hints.served)
  return {content: [{type: 'text', text: JSON.stringify(body)}], structuredContent: body, isError: true}
}

type Shape = Record<string, import('zod').ZodType>

/**
 * The tools of one `tasks mcp` process, built once at start and shared by
 * every connection (a zod schema is a value: each HTTP session's server
 * registers the same shapes).
 */
export interface ToolCatalogue {
  readonly tools: readonly ToolDef[]
  /** Each tool's whole input shape (fullShape), by name: what tools/list shows, and the only keys a call may send. */
  readonly shapes: ReadonlyMap<string, Shape>
  /** The writes that answer compactly (compact-write.ts) unless asked for JSON. */
  readonly compactWrites: ReadonlySet<string>
  /** For error messages that name tools instead of commands (mcp-hints.ts). */
  readonly hints: {specs: readonly AnySpec[]; served: ReadonlySet<string>}
}

function catalogueOf(options: McpOptions): ToolCatalogue {
  const {z} = loadMcp()
  const tools = toolsFor(options.operations, () => options.engine, options.toolsets)
  const shapes = new Map<string, Shape>()
  const compactWrites = new Set<string>()
  for (const tool of tools) {
    const own = tool.input(z)
    // Writes answer compactly unless asked for JSON; a write with a `format` of its own keeps its answer, and
    // poll_inbox (unqueued) hands its records over as JSON.
    if (!tool.readOnly && !tool.compact && !tool.unqueued && !('format' in own)) compactWrites.add(tool.name)
    shapes.set(tool.name, fullShape(z, tool, own))
  }
  return {tools, shapes, compactWrites, hints: {specs: options.operations, served: servedNames(tools)}}
}

/**
 * What every connection of one `tasks mcp` process shares: the options, the
 * tools, the Session (opened lazily, on the first call that needs it), the
 * queue that serves calls one at a time, and, with an agent, the inbox
 * source and the notifier that drains it through `deliver` (the
 * transport's way of sending a record: the one stdio client, or the HTTP
 * clients' streams).
 */
export interface McpCore {
  readonly options: McpOptions
  readonly catalogue: ToolCatalogue
  readonly agent: string | null
  readonly queue: Queue
  baseSession(): Promise<Session>
  readonly source: InboxSource | null
  readonly notifier: InboxNotifier | null
  close(): Promise<void>
}

export function createCore(options: McpOptions, deliver: (record: InboxRecord) => Promise<void>): McpCore {
  const agent = options.agent ?? null
  if (agent !== null) checkAgentName(agent)
  // Every call through the MCP server is an agent's (require_epoch applies).
  const sessionOptions: SessionOptions = {...options, as: options.as ?? options.agent, agentSurface: true}
  const queue = new Queue()
  let base: Promise<Session> | null = null
  const baseSession = (): Promise<Session> => {
    base ??= Session.open(sessionOptions).then(async (s) => (await s.keepAlive(), s)).catch((error) => {
      base = null
      throw error
    })
    return base
  }
  const source = agent ? (options.inbox ?? inboxSourceFor(baseSession, agent, (work) => queue.run(work))) : null
  const send = options.wrapDeliver ? options.wrapDeliver(deliver) : deliver
  // A failure that repeats every poll (the list is not initialised yet, the remote is down) is reported once, not every 2 s.
  let lastError = ''
  const notifier = source
    ? new InboxNotifier(source, send, options.pollMs ?? DEFAULT_POLL_MS, (what, error) => {
        // Nobody listening yet (HTTP, before a client opened its event stream) is no failure: the record waits.
        if ((error as {quiet?: boolean}).quiet) return
        const line = `git-tasks mcp: inbox ${what} failed: ${(error as Error).message}\n`
        if (line !== lastError) process.stderr.write(line)
        lastError = line
      })
    : null
  return {
    options,
    catalogue: catalogueOf(options),
    agent,
    queue,
    baseSession,
    source,
    notifier,
    async close() {
      notifier?.stop()
      if (base) (await base.catch(() => null))?.close()
    },
  }
}

/**
 * Send one inbox record to a connected client as a Claude Code channel
 * event (channel.ts); it resolves once the transport wrote it, and only
 * then may the record be acknowledged. A resource-updated notification for
 * the card follows, best effort (a client that subscribed re-reads it).
 */
export async function sendRecord(server: McpServer, core: McpCore, record: InboxRecord): Promise<void> {
  if (!server.isConnected()) throw new Error('the client is not connected')
  const event = channelEvent(record, {agent: core.agent ?? '', list: core.options.list})
  await server.server.notification({method: CHANNEL_METHOD, params: event as unknown as Record<string, unknown>} as never)
  if (record.task) await server.server.sendResourceUpdated({uri: cardUri(core.options.list, record.task)}).catch(() => {})
}

/** The server of one connection: tools, resources and capabilities over the shared core. Not connected yet. */
export function buildServer(core: McpCore): McpServer {
  const {mcp, types} = loadMcp()
  const {options, catalogue, agent, queue, baseSession, source, notifier} = core
  const server = new mcp.McpServer(
    {name: SERVER_NAME, version: options.version},
    {
      capabilities: {
        logging: {},
        resources: {subscribe: true, listChanged: false},
        tools: {},
        // With an agent, the server is a Claude Code channel: its inbox records are pushed as channel events.
        ...(agent ? {experimental: {[CHANNEL_CAPABILITY]: {}}} : {}),
      },
      instructions:
        'git-tasks: a shared task list in git. Call `next` to get work (or `list` then `claim`), `checkpoint` to record progress (it renews the lease; `heartbeat` only renews), `check_pass` with evidence for each check, `done` to finish, `release` to give it back. Answers are compact text (`format: "json"` for the whole result). Errors carry a code (already_claimed, nothing_ready, …) in the JSON text. `toolsets` lists the tools a restart with --toolsets adds. Read tasks://guide for the full guide.' +
        (agent ? ` ${channelInstructions(agent, options.list)}` : ''),
    },
  )
  // Errors the SDK raises itself (arguments that fail a tool's input schema, an unknown tool) become the
  // same JSON error object as ours: `usage`, exit 2, so a client reads one shape whatever went wrong.
  ;(server as unknown as {createToolError: (message: string) => unknown}).createToolError = (message: string) =>
    errorResult(new UsageError(message.replace(/^MCP error -?\d+: /, ''), {}, 'usage'))

  const {tools, shapes, compactWrites, hints} = catalogue
  const pollInbox = async () => ({records: notifier ? await notifier.take() : [], source: source?.name ?? 'none'})
  /** A tool's result: with `published` after a write that pushed. */
  const run = async (tool: ToolDef, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    if (tool.unqueued) return (await tool.run({session: null as never, agent, pollInbox}, args)) as Record<string, unknown>
    const session = await (await baseSession()).forCall({
      ...(tool.override ? {force: args.force as boolean | undefined, reason: args.reason as string | undefined} : {}),
      ...(tool.session && typeof args.session === 'string' ? {session: args.session} : {}),
    })
    let result: Record<string, unknown>
    try {
      result = (await tool.run({session, agent, pollInbox}, args)) as Record<string, unknown>
    } finally {
      // Once the answer is on its way: the next call's files, made while nothing waits.
      if (!tool.readOnly) setImmediate(() => session.store.betweenCalls())
    }
    const pub = session.publication()
    return pub ? {...result, published: pub.published} : result
  }
  /** The answer to one call: the result in the form asked for, or the error as a tool error. */
  const answer = async (tool: ToolDef, args: Record<string, unknown>) => {
    try {
      const result = await run(tool, args)
      // Read tools answer in the compact form (docs/compact.md) unless asked for JSON; writes with what the item became.
      if (args.format !== 'json') {
        if (tool.compact) return {content: [{type: 'text' as const, text: withNextPage(tool.name, result, tool.compact(result))}]}
        if (compactWrites.has(tool.name)) return {content: [{type: 'text' as const, text: compactWrite(tool.name, result)}]}
      }
      return jsonResult(result)
    } catch (error) {
      return errorResult(error, hints)
    }
  }
  // poll_inbox waits for the notifier, whose reads go through the queue: it must not hold the queue itself.
  const call = (tool: ToolDef) => (args: Record<string, unknown>) => (tool.unqueued ? answer(tool, args) : queue.run(() => answer(tool, args)))

  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {description: tool.description, inputSchema: shapes.get(tool.name), annotations: {readOnlyHint: Boolean(tool.readOnly), openWorldHint: false}},
      call(tool) as never,
    )
  }

  leanToolList(server)
  refuseUndeclared(server, catalogue)

  const read = <T>(uri: string, work: (s: Session) => Promise<T>, mimeType = 'application/json') =>
    queue.run(async () => {
      const value = await work(await (await baseSession()).forCall())
      return {contents: [{uri, mimeType, text: typeof value === 'string' ? value : JSON.stringify(value)}]}
    })

  server.registerResource('list', `tasks://${options.list}`, {description: `The open tasks of list ${options.list} (as list --json)`, mimeType: 'application/json'}, (uri) =>
    read(uri.href, (s) => listing.list(s, {})),
  )
  server.registerResource(
    'card',
    new mcp.ResourceTemplate(`tasks://${options.list}/{id}`, {list: undefined}),
    {description: 'One task with description and comments (as show --json)', mimeType: 'application/json'},
    (uri, vars) => read(uri.href, (s) => listing.show(s, {id: String(vars.id)})),
  )
  server.registerResource('guide', 'tasks://guide', {description: 'How an agent works with this list (tasks prime)', mimeType: 'text/markdown'}, (uri) =>
    read(uri.href, (s) => primeMarkdown(s), 'text/markdown'),
  )
  // Subscriptions are accepted; resource-updated notifications are sent for the cards inbox records name.
  const subscribed = new Set<string>()
  server.server.setRequestHandler(types.SubscribeRequestSchema, async (req) => (subscribed.add(req.params.uri), {}))
  server.server.setRequestHandler(types.UnsubscribeRequestSchema, async (req) => (subscribed.delete(req.params.uri), {}))
  return server
}

/**
 * tools/list without what costs every agent tokens and tells it nothing:
 * the `$schema` line of each input schema and the ±2^53 bounds zod writes
 * for every integer (issue 35: the default tool list within ~3,500 tokens).
 * The SDK's own handler answers; this only trims its answer.
 */
function leanToolList(server: McpServer): void {
  const handlers = (server.server as unknown as {_requestHandlers?: Map<string, (req: unknown, extra: unknown) => Promise<unknown>>})._requestHandlers
  const list = handlers?.get('tools/list')
  if (!handlers || !list) return
  const trim = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(trim)
    if (typeof node !== 'object' || node === null) return
    const o = node as Record<string, unknown>
    delete o.$schema
    if (o.minimum === -Number.MAX_SAFE_INTEGER) delete o.minimum
    if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum
    for (const v of Object.values(o)) trim(v)
  }
  handlers.set('tools/list', async (req, extra) => {
    const answer = (await list(req, extra)) as {tools?: Array<{inputSchema?: unknown}>}
    for (const t of answer.tools ?? []) trim(t.inputSchema)
    return answer
  })
}

/**
 * A call may send only the keys its tool declares (its input shape). The
 * SDK's schema would drop any other silently, and the call would run
 * without what its caller meant (a misspelt `if_revison` writes without
 * the check): refused instead (usage, exit 2), before anything runs.
 * Checked on the raw call, so no tool's schema grows for it. `at` (a past
 * state, docs/history.md "Time travel") on a write says what it is for;
 * `format: "json"` is taken by every tool (those without it answer in JSON).
 */
function refuseUndeclared(server: McpServer, catalogue: ToolCatalogue): void {
  const handlers = (server.server as unknown as {_requestHandlers?: Map<string, (req: unknown, extra: unknown) => Promise<unknown>>})._requestHandlers
  const call = handlers?.get('tools/call')
  if (!handlers || !call) return
  const writes = new Set(catalogue.tools.filter((t) => !t.readOnly).map((t) => t.name))
  handlers.set('tools/call', async (req, extra) => {
    const params = (req as {params?: {name?: unknown; arguments?: unknown}}).params
    const name = typeof params?.name === 'string' ? params.name : ''
    const shape = catalogue.shapes.get(name)
    const args = params?.arguments
    if (shape && args && typeof args === 'object' && !Array.isArray(args)) {
      // `format: "json"` (which the server's instructions offer for every answer) asks a tool that answers only in JSON for what it gives anyway.
      const unknown = Object.keys(args).filter((key) => !Object.hasOwn(shape, key) && !(key === 'format' && (args as {format?: unknown}).format === 'json'))
      const nothing = writes.has(name) ? 'nothing was written' : 'nothing was done'
      if (unknown.includes('at') && writes.has(name)) {
        return errorResult(new UsageError(`${name} changes the list as it is now: "at" (a past state) is for the read tools only; ${nothing}`, {field: 'at'}, 'usage'))
      }
      if (unknown.length > 0) {
        const declared = Object.keys(shape)
        const takes = declared.length > 0 ? `its arguments are ${declared.join(', ')}` : 'it takes no arguments'
        return errorResult(new UsageError(`${name} does not take ${unknown.map((k) => JSON.stringify(k)).join(', ')}: ${takes}; ${nothing}`, {field: unknown[0]}, 'usage'))
      }
    }
    return call(req, extra)
  })
}

/** A tool's whole input shape: its own parameters (`tool.input`) and the server's (session, format, force/reason). */
function fullShape(z: ReturnType<typeof loadMcp>['z'], tool: ToolDef, own: Shape): Shape {
  const shape = {...own}
  if (tool.session) shape.session ??= z.string().optional().describe('the agent session acting (else TASKS_SESSION)')
  if (tool.compact) shape.format = z.enum(['compact', 'json']).optional().describe('compact (default) or json')
  else if (!tool.readOnly) shape.format ??= z.enum(['compact', 'json']).optional().describe('compact (default) or json')
  if (tool.override) {
    shape.force ??= z.boolean().optional().describe("act on an item someone else holds (needs reason)")
    shape.reason ??= z.string().optional()
  }
  return shape
}

/**
 * Build the server on a transport and connect it (one client: stdio, or a
 * test's in-memory pair). The notifier starts once the client has
 * initialised: a record sent earlier could reach a client that has not yet
 * read the channel capability, and would be acknowledged but lost.
 */
export async function startMcpServer(options: McpOptions, transport: Transport): Promise<RunningServer> {
  let server: McpServer | null = null
  const core = createCore(options, (record) => sendRecord(server!, core, record))
  server = buildServer(core)
  server.server.oninitialized = () => core.notifier?.start()
  await server.connect(transport)
  return {
    server,
    tools: core.catalogue.tools,
    notifier: core.notifier,
    async close() {
      core.notifier?.stop()
      await server!.close()
      await core.close()
    },
  }
}

export function cardUri(list: string, id: string): string {
  return `tasks://${list}/${id}`
}

/**
 * Checks made before a server starts: with `--agent A`, A must be a name the
 * list knows (agent-check.ts). A failure is the command's error (exit 2).
 */
export async function preflight(options: McpOptions): Promise<void> {
  if (options.agent === undefined) return
  checkAgentName(options.agent)
  const session = await Session.open({...options, as: options.as ?? options.agent})
  try {
    await checkAgent(session, options.agent)
  } finally {
    session.close()
  }
}

/** The environment variable that sets the largest MCP message read (bytes). */
export const MAX_MESSAGE_ENV = 'TASKS_MCP_MAX_MESSAGE_BYTES'

/**
 * The largest message (one line) the server reads: the largest import
 * document (an inline `import` carries one) plus 1 MiB for the envelope,
 * unless TASKS_MCP_MAX_MESSAGE_BYTES says otherwise (at least 1 KiB).
 */
export function maxMessageBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[MAX_MESSAGE_ENV]
  if (raw !== undefined && raw !== '') {
    const n = Number(raw)
    if (!Number.isSafeInteger(n) || n < 1024) throw new UsageError(`${MAX_MESSAGE_ENV} must be a whole number of bytes, at least 1024; got "${raw}"`, {variable: MAX_MESSAGE_ENV})
    return n
  }
  return importLimitBytes(env) + 1024 * 1024
}

/**
 * `tasks mcp`: serve on stdin/stdout until the client goes away. Each
 * message is bounded (stdio-transport.ts); a read or write error on the
 * protocol's streams ends the process with exit 1 and a line on stderr, so
 * that the client starts a new server instead of talking to a dead one.
 */
export async function serveStdio(options: McpOptions): Promise<void> {
  await preflight(options)
  const {types} = loadMcp()
  const transport = new BoundedStdioTransport({
    maxLineBytes: maxMessageBytes(),
    parseMessage: (value) => types.JSONRPCMessageSchema.parse(value),
    log: (line) => void process.stderr.write(`${line}\n`),
  })
  transport.onerror = (error) => void process.stderr.write(`git-tasks mcp: ${error.message}\n`)
  const running = await startMcpServer(options, transport)
  await new Promise<void>((resolve) => {
    const done = () => resolve()
    process.stdin.once('end', done)
    process.stdin.once('close', done)
    running.server.server.onclose = done
  })
  await running.close()
  if (transport.closedBy === 'error') {
    process.stderr.write('git-tasks mcp: the connection to the client failed; exiting\n')
    process.exitCode = 1
  }
  // Nothing may keep a server without a client alive: whatever is still open gets a second to finish.
  setTimeout(() => process.exit(), 1000).unref()
}

/**
 * A page that stops before the end says, in the answer itself, how to get
 * the next one (a model reads the text, not the schema): the same call with
 * `cursor` set to the page's `next_cursor`.
 */
export function withNextPage(tool: string, result: Record<string, unknown>, text: string): string {
  const cursor = result.next_cursor
  if (typeof cursor !== 'string' || cursor === '') return text
  return `${text.replace(/\n*$/, '\n')}# more: call ${tool} again with the same arguments and cursor: "${cursor}"\n`
}
