/**
 * What one operation is: its name, what it does, its typed parameters, its
 * result, whether it writes, and the one call into src/app that performs
 * it. The oclif command (src/commands/from-spec.ts), the MCP tool
 * (src/agent/tool-schema.ts) and the batch file's operation
 * (src/core/ops/batch-file.ts, through `batch`) are all made from this one
 * declaration, so the surfaces cannot drift apart.
 *
 * A spec holds no engine: `run` is handed the engine bundle (src/engine.ts)
 * and a Session by whichever surface calls it, so the command bundle can
 * import every spec without loading src/app, zod or the MCP SDK.
 */
import type * as Engine from '../engine'
import type {Session} from '../app/session'
import type {BatchStep} from '../core/ops/batch-file'
import type {ArgsOf, Params, Surface} from '../core/params'

export type EngineModule = typeof Engine

/**
 * The MCP toolsets, each with what it is for. `tasks mcp --toolsets` picks
 * the sets served (default: core, the claim loop); the `toolsets` tool
 * lists the others, so an agent can ask for a restart with more.
 */
export const TOOLSETS = {
  core: 'the claim loop: list, show, next, claim, heartbeat, checkpoint, check_pass, done, block, release, comment, inbox',
  planning: 'making and shaping items: add, edit, assign, deps, rm, checks (add, fail, supersede, list), flags, reopen, cancel, defer, fail; plans on a branch (start, list, rm, diff, merge)',
  coordination: 'working with others: inbox ack, watch, notify, actors, collaborators, stale, remind, takeover, sweep, scenarios',
  sessions: 'agent work sessions: create, show, list, search, claim, revise, checkpoint, heartbeat, release, complete, cancel, takeover',
  history: 'the past and other views: log, events, undo, restore, search, graph, export, import, branch, prime, blame',
  admin: 'the list itself: init, sync, doctor, lists, remote, config, prune, batch',
} as const

export type Toolset = keyof typeof TOOLSETS

/** The toolsets served when none are named. */
export const DEFAULT_TOOLSETS: readonly Toolset[] = ['core']

export interface OperationSpec<P extends Params = Params, R = unknown> {
  /** The CLI command, words separated by spaces (`check pass`); the MCP tool is its snake form (`check_pass`). */
  readonly name: string
  /** One line: the command's summary, the first line of the tool's description. */
  readonly summary: string
  /** More, when one line is not enough: the command's description, the rest of the tool's. */
  readonly description?: string
  readonly params: P
  /** Changes the list (a commit); false: only reads. */
  readonly writes: boolean
  /** Takes --force and --reason (acting on an item someone else holds), applied to the session. */
  readonly override?: boolean
  /** Takes --session (the agent run acting; a claim records it), applied to the session. */
  readonly agentSession?: boolean
  /**
   * The MCP toolset the operation's tool belongs to (TOOLSETS): `tasks mcp`
   * serves `core` unless --toolsets names more.
   */
  readonly toolset: Toolset
  /** The name of the --json result's schema: schemas/output/<result>.schema.json. */
  readonly result: string
  /** Surfaces that leave this operation out (default: all three where the spec says how). */
  readonly mcp?: false | {readonly name?: string}
  readonly cli?: false
  /** The batch file operation made from this spec; absent: not in batch files. */
  readonly batch?: BatchStep<ArgsOf<P>>
  /** Rules across parameters ("exactly one of acceptance or test"), checked on every surface before the call. */
  readonly check?: (args: ArgsOf<P>) => void
  /**
   * A read whose result has a compact form (docs/compact.md): the CLI's
   * `--format compact`, and the MCP tool's default answer (`format: "json"`
   * asks for the JSON).
   */
  readonly compact?: (engine: EngineModule, result: any) => string
  /** CLI examples (`<%= config.bin %> claim tsk-k3v9`). */
  readonly examples?: readonly string[]
  /** The call: what the command prints with --json and the tool returns. */
  readonly run: (engine: EngineModule, session: Session, args: ArgsOf<P>, call: CallContext) => Promise<R>
}

/**
 * Who is calling, for the few operations whose work depends on it: the
 * command line's user may read any file they can, an MCP client only files
 * in the work tree; a result printed as JSON can be streamed.
 */
export interface CallContext {
  readonly surface: Exclude<Surface, 'batch'>
  /** What the result becomes: text for a person, JSON, or the compact form (MCP: json). */
  readonly output: 'text' | 'json' | 'compact'
}

export type AnySpec = OperationSpec<any, any>

/** Declare an operation (typing only: the argument types flow from the parameters into `run`). */
export function operation<P extends Params, R>(spec: OperationSpec<P, R>): OperationSpec<P, R> {
  return spec
}

/** An operation's name as one word (`check_pass`): its batch operation, and its MCP tool unless `mcp.name` says otherwise. */
export function wireName(spec: AnySpec): string {
  return spec.name.replace(/ /g, '_')
}

/** The MCP tool's name of an operation. */
export function toolName(spec: AnySpec): string {
  return spec.mcp && spec.mcp.name ? spec.mcp.name : wireName(spec)
}
