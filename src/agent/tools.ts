/**
 * The MCP tools: one per operation of the operation table (src/operations,
 * made into a tool by tool-schema.ts), each returning the object the
 * command prints with --json (mutations with `published`) and failing with
 * the same error codes (the server turns a TasksError into a tool error
 * whose text is the `{"error": {code, message, exit, …}}` object of
 * `--json`); and the tools of the connection itself.
 */
import type * as Zod from 'zod'
import type {AnySpec, EngineModule} from '../operations/spec'
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
    unqueued: true,
    summary: 'Your inbox records not yet delivered; acknowledged once returned.',
    description: "Your inbox records not yet delivered (the same ones `tasks mcp --agent` pushes as notifications); they are acknowledged once returned.",
    input: () => ({}),
    run: async ({pollInbox, agent}) => ({agent, ...(await pollInbox())}),
  },
]

/**
 * Every tool: one per operation of the table (src/operations), then the
 * connection's own. The table is handed in by `tasks mcp` from the command
 * bundle, which holds it already, so the engine bundle does not build it
 * again for every command.
 */
export function toolsFor(operations: readonly AnySpec[], engine: () => EngineModule): ToolDef[] {
  return [...operations.filter((spec) => spec.mcp !== false).map((spec) => toolOf(spec, engine)), ...CONNECTION_TOOLS]
}
