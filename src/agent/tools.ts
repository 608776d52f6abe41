/**
 * The MCP tools: one per operation of the operation table (src/operations,
 * made into a tool by tool-schema.ts), each returning the object the
 * command prints with --json (mutations with `published`) and failing with
 * the same error codes (the server turns a TasksError into a tool error
 * whose text is the `{"error": {code, message, exit, …}}` object of
 * `--json`); and the tools of the connection itself.
 */
import type * as Zod from 'zod'
import {type AnySpec, DEFAULT_TOOLSETS, type EngineModule, TOOLSETS, type Toolset} from '../operations/spec'
import {UsageError} from '../core/errors'
import {startDocument} from '../render/compact-views'
import {toolOf} from './tool-schema'
import type {Session} from '../app/session'
import type {InboxRecord} from './inbox-source'

type Z = typeof Zod
type Shape = Record<string, Zod.ZodType>

/** What a tool's run gets besides its input. */
export interface ToolCall {
  /** A session for this call (force/reason applied when the tool takes them). */
  session: Session
  /** The server's agent (`--agent`/`--as`), or null. */
  agent: string | null
  /** Records of the agent's inbox not yet delivered, for `poll_inbox` (acked after this call returns them). */
  pollInbox: () => Promise<{records: InboxRecord[]; source: string}>
}

export interface ToolDef {
  name: string
  /** The CLI command it mirrors (for docs and the README table). */
  command: string
  /** The toolset that holds it (TOOLSETS); `tasks mcp --toolsets` picks the sets served. */
  toolset: Toolset
  /** One line: what `tasks mcp list-tools` prints. */
  summary: string
  description: string
  input: (z: Z) => Shape
  /** Takes force/reason (acting on someone else's item), as the command's --force/--reason. */
  override?: boolean
  /** Only reads; hinted to clients as readOnly. */
  readOnly?: boolean
  /**
   * Takes `session`, as the command's --session: the agent session acting
   * (a claim records it). The server applies it to the call's Session.
   */
  session?: boolean
  /**
   * A read tool whose result has a compact form (docs/compact.md): it
   * returns that text by default, and the full JSON with `format: "json"`.
   */
  compact?: (result: any) => string
  /** Runs outside the server's call queue (poll_inbox: it waits for the notifier, whose reads are queued). */
  unqueued?: boolean
  run: (call: ToolCall, args: any) => Promise<unknown>
}

/**
 * Tools that are not operations: `poll_inbox` hands over the records the
 * server's notifier holds (a feature of the connection, with no command of
 * its own).
 */
const CONNECTION_TOOLS: ToolDef[] = [
  {
    name: 'poll_inbox',
    command: 'inbox',
    toolset: 'core',
    unqueued: true,
    summary: 'Your inbox records not yet delivered; acknowledged once returned.',
    description: 'Your inbox records not yet delivered; acknowledged once returned.',
    input: () => ({}),
    run: async ({pollInbox, agent}) => ({agent, ...(await pollInbox())}),
  },
]

/**
 * The toolsets to serve from `--toolsets` (`core,planning`, `all`; none:
 * DEFAULT_TOOLSETS). core is always served: it holds the claim loop and the
 * `toolsets` tool that tells an agent what else there is.
 */
export function parseToolsets(value: string | readonly string[] | undefined): Toolset[] {
  const names = (typeof value === 'string' ? value.split(',') : (value ?? [])).map((s) => s.trim()).filter(Boolean)
  if (names.length === 0) return [...DEFAULT_TOOLSETS]
  if (names.includes('all')) return Object.keys(TOOLSETS) as Toolset[]
  const known = Object.keys(TOOLSETS)
  for (const n of names) {
    if (!known.includes(n)) throw new UsageError(`unknown toolset "${n}"; the toolsets are ${known.join(', ')} (or all)`, {toolset: n}, 'usage')
  }
  return [...new Set<Toolset>(['core', ...(names as Toolset[])])]
}

/**
 * `toolsets`: the discovery tool. Which toolsets this server serves, and
 * for every other one what it is for and the tools it holds, so an agent
 * can ask for a restart with more (`tasks mcp --toolsets …`).
 */
function toolsetsTool(all: readonly ToolDef[], served: readonly Toolset[]): ToolDef {
  const rows = (Object.keys(TOOLSETS) as Toolset[]).map((name) => ({
    name,
    served: served.includes(name),
    about: TOOLSETS[name],
    tools: [...all.filter((t) => t.toolset === name).map((t) => t.name), ...(name === 'core' ? ['toolsets'] : [])],
  }))
  return {
    name: 'toolsets',
    command: 'mcp --toolsets',
    toolset: 'core',
    unqueued: true,
    readOnly: true,
    summary: 'The toolsets: which are served here, and the tools the others hold.',
    description: 'The toolsets: which are served, the tools the others hold; more need a restart with `tasks mcp --toolsets core,NAME`.',
    input: () => ({}),
    compact: (r: {served: string[]; toolsets: typeof rows}) => {
      const w = startDocument('toolsets')
      w.scalar('served', r.served)
      type Row = (typeof rows)[number]
      w.table<Row>('toolsets', [['name', (t) => t.name], ['served', (t) => t.served], ['tools', (t) => t.tools], ['about', (t) => t.about]], r.toolsets)
      w.comment('more: restart the server with `tasks mcp --toolsets core,NAME,…` (or all)')
      return w.toString()
    },
    run: async () => ({served: [...served], toolsets: rows}),
  }
}

/**
 * The tools of the served toolsets (DEFAULT_TOOLSETS when none are given): one per
 * operation of the table (src/operations), then the connection's own and
 * the `toolsets` discovery tool. The table is handed in by `tasks mcp` from the command
 * bundle, which holds it already, so the engine bundle does not build it
 * again for every command.
 */
export function toolsFor(operations: readonly AnySpec[], engine: () => EngineModule, served: readonly Toolset[] = DEFAULT_TOOLSETS): ToolDef[] {
  const all = [...operations.filter((spec) => spec.mcp !== false).map((spec) => toolOf(spec, engine)), ...CONNECTION_TOOLS]
  return [...all.filter((t) => served.includes(t.toolset)), toolsetsTool(all, served)]
}

/** The names of the tools served with these toolsets (for the error hints: mcp-hints.ts). */
export function servedNames(tools: readonly ToolDef[]): Set<string> {
  return new Set(tools.map((t) => t.name))
}


