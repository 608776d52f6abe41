/**
 * The MCP tool of an operation, made from its spec (src/operations): the
 * input schema (a zod shape built with the zod instance `tasks mcp` loads,
 * one entry a parameter in snake case, with the spec's help text), the
 * description, the read-only hint, and a `run` that reads the arguments by
 * the same parameter vocabulary as the CLI and batch files
 * (core/params.ts) and calls the spec's `run`.
 */
import type * as Zod from 'zod'
import {type Param, ParamError, readParams, snake, takes, usageOf} from '../core/params'
import {DURATION_HINT} from './tool-input'
import type {AnySpec, EngineModule} from '../operations/spec'
import {toolName} from '../operations/spec'
import type {ToolDef} from './tools'

type Z = typeof Zod

/** One parameter's zod type. */
function typeOf(z: Z, param: Param): Zod.ZodType {
  let t: Zod.ZodType
  switch (param.kind) {
    case 'integer': {
      const n = z.number().int()
      t = param.min !== undefined ? n.min(param.min) : n
      break
    }
    case 'boolean':
      t = z.boolean()
      break
    case 'strings':
      t = z.array(z.string())
      break
    case 'ids':
      t = z.union([z.string(), z.array(z.string()).min(1)])
      break
    case 'duration':
      t = z.union([z.string(), z.number().int().positive()])
      break
    case 'choice':
      t = z.enum(param.options as [string, ...string[]])
      break
    case 'number-or-string':
      t = z.union([z.number().int(), z.string()])
      break
    case 'json':
      t = z.unknown()
      break
    default:
      t = z.string()
  }
  if (param.nullable) t = t.nullable()
  return t
}

function describe(param: Param): string {
  // The hint once: a help text that already gives the spellings (`90s, 30m`) needs no second copy.
  return param.kind === 'duration' && !param.help.includes('30m') ? `${param.help} (${DURATION_HINT})` : param.help
}

/** The input shape of an operation's tool. */
export function inputShapeOf(z: Z, spec: AnySpec): Record<string, Zod.ZodType> {
  const shape: Record<string, Zod.ZodType> = {}
  for (const [name, param] of Object.entries(spec.params as Record<string, Param>)) {
    if (!takes(param, 'mcp')) continue
    const t = typeOf(z, param)
    shape[snake(name)] = (param.required && param.default === undefined ? t : t.optional()).describe(describe(param))
    // Older spellings stay accepted (a key the shape does not declare is refused: mcp-server.ts refuseUndeclared).
    for (const alias of param.aliases ?? []) shape[snake(alias)] = t.optional().describe(`old name of ${snake(name)}`)
  }
  return shape
}

/** The tool of an operation; `engine` is the engine bundle the server runs in. */
export function toolOf(spec: AnySpec, engine: () => EngineModule): ToolDef {
  return {
    name: toolName(spec),
    command: spec.name,
    toolset: spec.toolset,
    summary: spec.summary,
    // The one line only: every agent pays for the tool list in tokens (issue 35); the detail is `tasks <command> --help` and tasks://guide.
    description: spec.summary,
    input: (z) => inputShapeOf(z, spec),
    override: spec.override,
    session: spec.agentSession,
    readOnly: !spec.writes,
    compact: spec.compact ? (result) => spec.compact!(engine(), result) : undefined,
    run: async ({session}, raw) => {
      let args: Record<string, unknown>
      try {
        args = readParams(spec.params, raw as Record<string, unknown>, 'mcp')
      } catch (error) {
        throw error instanceof ParamError ? usageOf(error) : error
      }
      spec.check?.(args)
      return spec.run(engine(), session, args, {surface: 'mcp', output: 'json'})
    },
  }
}
