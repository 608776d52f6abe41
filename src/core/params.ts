/**
 * The parameter vocabulary of operations: the kinds of value an operation
 * takes (a string, a task id, a duration, …), declared once per parameter
 * in the operation table (src/operations) and read the same way from every
 * surface: the command line (src/commands/from-spec.ts turns a declaration
 * into an oclif flag or argument), an MCP call (src/agent/tool-schema.ts
 * turns it into a zod shape) and a batch file item (`readParams` below).
 *
 * Names: a parameter's key is camelCase in code (`ifRevision`); the CLI
 * spells it in kebab case (`--if-revision`), MCP and batch files in snake
 * case (`if_revision`). `aliases` are older spellings still accepted on the
 * surfaces that had them, so nothing an agent or script sends is dropped.
 *
 * Pure: values in, values out. Nothing here loads oclif or zod.
 */
import {UsageError} from './errors'
import {parseDurationSeconds} from './duration-flag'

export type ParamKind =
  /** One line of text. */
  | 'string'
  /** Free text (a description, a comment); `file` adds the CLI's `--NAME-file PATH|-`. */
  | 'text'
  | 'integer'
  | 'boolean'
  /** Several strings: a repeatable flag, an array over MCP and in batch files. */
  | 'strings'
  /** A duration: 90s, 30m, 1h30m, or whole seconds; read as seconds. */
  | 'duration'
  /** One of `options`. */
  | 'choice'
  /** A task id or unique prefix (`$name` in a batch file: an item created earlier in it). */
  | 'id'
  /** One task id or several (one commit): variadic on the CLI, a string or an array over MCP. */
  | 'ids'
  /** A number or a word (priority: 0-4 or a name). */
  | 'number-or-string'
  /** Any JSON value (a batch's operations, an import document). */
  | 'json'

export interface Param<T = unknown, Required extends boolean = boolean> {
  readonly kind: ParamKind
  /** Help text: the flag's description, the MCP parameter's, the batch field's. */
  readonly help: string
  readonly required: Required
  /** A CLI argument (in declaration order) rather than a flag. */
  readonly positional?: boolean
  /** The CLI's one-letter flag. */
  readonly char?: string
  /** Older spellings (camelCase, like the key) still accepted. */
  readonly aliases?: readonly string[]
  /** `choice`: the accepted values. */
  readonly options?: readonly string[]
  /** `integer`: the least value; `duration`: the greatest, in seconds. */
  readonly min?: number
  readonly max?: number
  /** Accepts null over MCP and in batch files (assign: null lifts the reservation). */
  readonly nullable?: boolean
  /**
   * The CLI also reads the value from a file, `--NAME-file PATH` (`-`:
   * stdin; `flag` names another flag), within the size `limit` of its kind;
   * a `json` parameter read from a file is parsed by the operation.
   */
  readonly file?: {readonly flag?: string; readonly limit: 'body' | 'comment' | 'batch'}
  /** Names something an earlier batch item may have made (a check): `$name` is accepted (ids always are). */
  readonly batchRef?: boolean
  /** `strings` on the CLI: one flag takes every value up to the next flag (`--mute a b`), not one value a flag. */
  readonly greedy?: boolean
  /** The CLI reads an unset flag from this environment variable. */
  readonly env?: string
  /** The CLI's placeholder in help (`DURATION`). */
  readonly helpValue?: string
  /** Applied when the parameter is absent, on every surface. */
  readonly default?: T
  /** The surfaces that take this parameter (absent: all of them). */
  readonly only?: readonly Surface[]
  /** The CLI's flags that cannot be given with this one (by key). */
  readonly exclusive?: readonly string[]
  /** Typing only: the value's type once read. */
  readonly __type?: T
}

export type Surface = 'cli' | 'mcp' | 'batch'
export type Params = Record<string, Param>

type Options = Partial<Pick<Param, 'positional' | 'char' | 'aliases' | 'options' | 'min' | 'max' | 'nullable' | 'file' | 'helpValue' | 'only' | 'exclusive' | 'env' | 'batchRef' | 'greedy'>>

/** The arguments an operation's call gets: each parameter's value, optional ones possibly undefined. */
export type ArgsOf<P extends Params> = {
  [K in keyof P as P[K] extends Param<unknown, true> ? K : never]: P[K] extends Param<infer T, boolean> ? T : never
} & {
  [K in keyof P as P[K] extends Param<unknown, true> ? never : K]?: P[K] extends Param<infer T, boolean> ? T : never
}

/** A parameter being declared: `.need()` makes it required, `.or(v)` gives it a default, `.onlyOn(…)` limits its surfaces. */
export type Builder<T, R extends boolean> = Param<T, R> & {
  need(): Builder<T, true>
  or(value: T): Builder<T, true>
  onlyOn(surfaces: readonly Surface[]): Builder<T, R>
}

/** The declaration's fields as own properties, its builder methods on the prototype (one object a parameter). */
class Declared {
  constructor(fields: Param) {
    Object.assign(this, fields)
  }

  need(): Declared {
    return new Declared({...(this as unknown as Param), required: true})
  }

  or(value: unknown): Declared {
    return new Declared({...(this as unknown as Param), default: value, required: true})
  }

  onlyOn(only: readonly Surface[]): Declared {
    return new Declared({...(this as unknown as Param), only})
  }
}

function param<T>(kind: ParamKind, help: string, options: Options = {}): Builder<T, false> {
  return new Declared({kind, help, required: false, ...options}) as unknown as Builder<T, false>
}

/** Builders, one a kind: `p.string('help').need()` is a required string. */
export const p = {
  string: (help: string, o?: Options) => param<string>('string', help, o),
  text: (help: string, o?: Options) => param<string>('text', help, o),
  integer: (help: string, o?: Options) => param<number>('integer', help, o),
  boolean: (help: string, o?: Options) => param<boolean>('boolean', help, o),
  strings: (help: string, o?: Options) => param<string[]>('strings', help, o),
  duration: (help: string, o?: Options) => param<number>('duration', help, {helpValue: 'DURATION', ...o}),
  choice: <C extends string>(options: readonly C[], help: string, o?: Options) => param<C>('choice', help, {...o, options}),
  id: (help = 'task id or unique prefix', o?: Options) => param<string>('id', help, o),
  ids: (help = 'task ids or unique prefixes (several: one commit)', o?: Options) => param<string[]>('ids', help, o),
  numberOrString: (help: string, o?: Options) => param<number | string>('number-or-string', help, o),
  json: <T = unknown>(help: string, o?: Options) => param<T>('json', help, o),
}

/** camelCase → kebab-case (the CLI's flag). */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

/** camelCase → snake_case (MCP parameters, batch fields). */
export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** snake_case or kebab-case → camelCase. */
export function camel(name: string): string {
  return name.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

/** Whether a surface takes a parameter. */
export function takes(param: Param, surface: Surface): boolean {
  return param.only === undefined || param.only.includes(surface)
}

/** What was wrong with a value: the caller words the error for its surface. */
export class ParamError extends Error {
  constructor(readonly field: string, message: string) {
    super(message)
  }
}

const TYPE_WORDS: Record<ParamKind, string> = {
  string: 'a string',
  text: 'a string',
  integer: 'a whole number',
  boolean: 'true or false',
  strings: 'a list of strings',
  duration: 'seconds or a duration such as 30m',
  choice: 'one of the listed values',
  id: 'a task id',
  ids: 'a task id or a list of them',
  'number-or-string': 'a number or a string',
  json: 'JSON',
}

/**
 * One parameter's value from JSON (an MCP call's argument, a batch file's
 * field): checked against its kind and normalised (a duration to seconds,
 * one id to a list of one). `undefined`/absent stays undefined; null is
 * kept for a nullable parameter, else treated as absent.
 */
export function readJsonValue(name: string, param: Param, value: unknown): unknown {
  if (value === undefined) return undefined
  if (value === null) return param.nullable ? null : undefined
  const field = snake(name)
  const wrong = (): never => {
    throw new ParamError(field, `"${field}" must be ${param.kind === 'choice' ? `one of ${param.options!.join(', ')}` : TYPE_WORDS[param.kind]}`)
  }
  switch (param.kind) {
    case 'string':
    case 'text':
    case 'id':
      return typeof value === 'string' ? value : wrong()
    case 'choice':
      return typeof value === 'string' && param.options!.includes(value) ? value : wrong()
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return wrong()
      if (param.min !== undefined && value < param.min) throw new ParamError(field, `"${field}" must be at least ${param.min}`)
      return value
    case 'boolean':
      return typeof value === 'boolean' ? value : wrong()
    case 'strings':
      return Array.isArray(value) && value.every((x) => typeof x === 'string') ? value : wrong()
    case 'ids':
      if (typeof value === 'string') return [value]
      return Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'string') ? value : wrong()
    case 'duration':
      if (typeof value !== 'number' && typeof value !== 'string') return wrong()
      return parseDurationSeconds(String(value), kebab(name), param.max)
    case 'number-or-string':
      return typeof value === 'number' || typeof value === 'string' ? value : wrong()
    case 'json':
      return value
  }
}

/**
 * An operation's arguments from a JSON object (MCP, batch): every known
 * field read by its kind, aliases folded into their parameter (both given:
 * a usage error), defaults applied, required ones checked. `surface`
 * decides which parameters exist. Unknown fields are the caller's to
 * refuse (`unknownFields`).
 */
export function readParams(params: Params, raw: Readonly<Record<string, unknown>>, surface: Surface): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, param] of Object.entries(params)) {
    if (!takes(param, surface)) continue
    const spellings = [name, ...(param.aliases ?? [])].map(snake).filter((s) => raw[s] !== undefined)
    if (spellings.length > 1) throw new ParamError(spellings[1]!, `"${spellings[0]}" and "${spellings[1]}" name the same parameter: give one`)
    let value = spellings.length === 1 ? readJsonValue(spellings[0] === snake(name) ? name : camel(spellings[0]!), param, raw[spellings[0]!]) : undefined
    if (value === undefined && param.default !== undefined) value = param.default
    if (value === undefined && param.required) throw new ParamError(snake(name), `"${snake(name)}" is required`)
    if (value !== undefined) out[name] = value
  }
  return out
}

/** The fields of `raw` that no parameter (or alias) of the surface names. */
export function unknownFields(params: Params, raw: Readonly<Record<string, unknown>>, surface: Surface, extra: readonly string[] = []): string[] {
  const known = new Set(extra)
  for (const [name, param] of Object.entries(params)) if (takes(param, surface)) for (const n of [name, ...(param.aliases ?? [])]) known.add(snake(n))
  return Object.keys(raw).filter((k) => !known.has(k))
}

/** A ParamError as the usage error a surface reports (exit 2, nothing written). */
export function usageOf(error: ParamError): UsageError {
  return new UsageError(error.message, {field: error.field})
}

/**
 * `--at WHEN` (MCP and batch: `at`), the one declaration of the parameter
 * the read operations share (list, show, search, graph, export, events;
 * `blame` too): the list as it was then (docs/history.md, "Time travel";
 * WHEN: core/when.ts). Reads only: operations that write never declare
 * it, so every surface refuses it on them. The help is short: list and
 * show are in MCP's default tool list, which has a budget.
 */
export const at = p.string('As of WHEN (commit, date or 2h/3d ago).', {helpValue: 'WHEN'})
