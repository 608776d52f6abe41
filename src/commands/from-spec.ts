/**
 * The command line of an operation, made from its spec (src/operations):
 * each parameter becomes an oclif argument or flag (kebab case, the spec's
 * help text, char, default and limits), the parsed values become the
 * operation's arguments, and the command calls the spec's `run` through the
 * lazily loaded engine. A command file is then the spec plus how a person
 * reads the result (`render`); nothing about its parameters is written a
 * second time.
 */
import {Args, Flags} from '@oclif/core'
import type {Session} from '../app/session'
import type {Terminal} from '../render/terminal'
import {type Param, kebab, takes} from '../core/params'
import {parseDurationSeconds} from '../core/duration-flag'
import {UsageError} from '../core/errors'
import type {AnySpec} from '../operations/spec'
import {TasksCommand, formatFlag, overrideFlags, sessionFlag} from './base-command'
import {engine} from './engine-loader'
import {readInputFile} from './input-file'

type FlagTable = Record<string, any>

/** One parameter as an oclif flag. */
function flagOf(name: string, param: Param): FlagTable {
  const flag = kebab(name)
  const common: any = {
    description: param.help,
    ...(param.char ? {char: param.char} : {}),
    ...(param.helpValue ? {helpValue: param.helpValue} : {}),
    ...(param.env ? {env: param.env} : {}),
    ...(param.aliases ? {aliases: param.aliases.map(kebab)} : {}),
    ...(param.exclusive ? {exclusive: param.exclusive.map(kebab)} : {}),
    // oclif says a required flag is missing in its words, which parse-errors.ts turns into ours.
    ...(param.required && param.default === undefined && !param.file && !param.env ? {required: true} : {}),
  }
  const out: FlagTable = {}
  switch (param.positional ? 'positional' : param.kind) {
    case 'positional':
      break
    case 'boolean':
      out[flag] = Flags.boolean(common)
      break
    case 'integer':
      out[flag] = Flags.integer({...common, ...(param.min !== undefined ? {min: param.min} : {}), ...(param.default !== undefined ? {default: param.default as number} : {})})
      break
    case 'strings':
    case 'ids':
      out[flag] = Flags.string({...common, multiple: true, multipleNonGreedy: !param.greedy})
      break
    case 'duration':
      out[flag] = Flags.custom<number>({...common, parse: async (input) => parseDurationSeconds(input, flag, param.max)})()
      break
    case 'choice':
      out[flag] = Flags.string({...common, options: [...param.options!], ...(param.default !== undefined ? {default: param.default as string} : {})})
      break
    default:
      out[flag] = Flags.string({...common, ...(param.default !== undefined ? {default: String(param.default)} : {})})
  }
  const file = fileFlagOf(name, param)
  if (file) {
    out[file] = Flags.string({description: `Read ${param.positional ? name.toUpperCase() : `--${flag}`} from a file (- for stdin).`, exclusive: param.positional ? [] : [flag]})
    if (!param.positional) out[flag] = {...out[flag], exclusive: [...(out[flag].exclusive ?? []), file]}
  }
  return out
}

/**
 * The flag that reads a parameter from a file: `--NAME-file` for a flag,
 * the named one for an argument that can also come from a file (comment's
 * `--file`); none for an argument that is itself the path (batch FILE).
 */
function fileFlagOf(name: string, param: Param): string | null {
  if (!param.file) return null
  if (param.file.flag) return param.file.flag
  return param.positional ? null : `${kebab(name)}-file`
}

/** The oclif flags of an operation (without the global ones, which every command has). */
export function flagsOf(spec: AnySpec): FlagTable {
  let flags: FlagTable = {}
  if (spec.compact) flags = {...formatFlag}
  // A positional parameter gives a flag only when it can also come from a file (comment's --file).
  for (const [name, param] of Object.entries(spec.params as Record<string, Param>)) if (takes(param, 'cli')) Object.assign(flags, flagOf(name, param))
  // An operation's own parameter of the same name wins (cancel's --reason is also the override's reason).
  if (spec.override) for (const [k, v] of Object.entries(overrideFlags)) flags[k] ??= v
  if (spec.agentSession) for (const [k, v] of Object.entries(sessionFlag)) flags[k] ??= v
  return flags
}

/** The oclif arguments of an operation (its positional parameters, in order). */
export function argsOf(spec: AnySpec): FlagTable {
  const args: FlagTable = {}
  let position = 0
  for (const [name, param] of Object.entries(spec.params as Record<string, Param>)) {
    if (!takes(param, 'cli') || !param.positional) continue
    // A list after the first argument may be empty (`deps ID` clears the dependencies).
    const mayBeEmpty = position++ > 0 && takesTheRest(param)
    // Named in kebab case, as the flags: help shows DEPENDS-ON.
    args[kebab(name)] = Args.string({ignoreStdin: true, required: param.required && param.default === undefined && !mayBeEmpty, description: param.help})
  }
  return args
}

/** A positional parameter that takes every remaining argument: a list, or free text (its words joined by spaces). */
function takesTheRest(param: Param): boolean {
  return param.kind === 'ids' || param.kind === 'strings' || param.kind === 'text'
}

/** Whether the command takes any number of arguments (a positional list parameter). */
function variadic(spec: AnySpec): boolean {
  return Object.values(spec.params as Record<string, Param>).some((p) => p.positional && takesTheRest(p) && takes(p, 'cli'))
}

/** The operation's arguments from what oclif parsed. */
export function argumentsFrom(spec: AnySpec, parsed: {args: Record<string, unknown>; flags: Record<string, unknown>; argv: unknown[]}): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  let position = 0
  for (const [name, param] of Object.entries(spec.params as Record<string, Param>)) {
    if (!takes(param, 'cli')) continue
    let value: unknown
    if (param.positional) {
      const at = position++
      // A list takes the rest of the arguments; none given is "not given" for the command's own ids, an empty list after them.
      value = takesTheRest(param) ? (parsed.argv as string[]).slice(at) : parsed.args[kebab(name)]
      if (takesTheRest(param) && (value as string[]).length === 0 && (at === 0 || param.kind === 'text')) value = undefined
      if (param.kind === 'text' && Array.isArray(value)) value = value.join(' ')
      // The argument is the path of a file holding the value (batch FILE).
      if (param.file && !param.file.flag && typeof value === 'string') value = readInputFile(value, param.file.limit)
    } else {
      value = parsed.flags[kebab(name)]
      if (param.kind === 'boolean' && value === false) value = undefined
    }
    const fileFlag = fileFlagOf(name, param)
    if (fileFlag && parsed.flags[fileFlag] !== undefined) {
      if (value !== undefined) throw new UsageError(`pass ${param.positional ? `the ${name.toUpperCase()}` : `--${kebab(name)}`} or --${fileFlag}, not both`)
      value = readInputFile(parsed.flags[fileFlag] as string, param.file!.limit)
    }
    if (value === undefined && param.default !== undefined) value = param.default
    if (value === undefined && param.required) throw new UsageError(`missing ${param.positional ? name.toUpperCase() : `--${kebab(name)}`}: ${param.help}`)
    if (value !== undefined) out[name] = value
  }
  return out
}

/** How a person reads an operation's result, and anything the command line does beyond the spec. */
export interface CommandView<R> {
  render(result: R, term: Terminal): string
  /** Rewrites the arguments before oclif parses them (list's `--sort -key`). */
  argv?(argv: string[]): string[]
  /**
   * What the command line does around the call (an editor, a question on a
   * terminal, arguments read another way): gets the parsed arguments and
   * flags, and `run`, which checks and performs the operation.
   */
  execute?(call: CommandCall<R>): Promise<R>
}

export interface CommandCall<R> {
  args: Record<string, any>
  flags: Record<string, any>
  run(args: Record<string, unknown>): Promise<R>
  /** The session of this invocation (opened on first use). */
  session(): Promise<Session>
  /** What the result becomes: text for a person, JSON, or the compact form. */
  output: 'text' | 'json' | 'compact'
}

/** The oclif command class of an operation. */
export function commandFrom<R>(spec: AnySpec, view: CommandView<R>) {
  const Generated = class extends TasksCommand<R> {
    static override summary = spec.summary
    static override description = spec.description
    static override examples = spec.examples ? [...spec.examples] : []
    static override args = argsOf(spec)
    static override flags = flagsOf(spec)
    static override strict = !variadic(spec)

    protected async execute(): Promise<R> {
      if (view.argv) this.argv = view.argv(this.argv)
      const parsed = await this.parse(Generated)
      const flags = parsed.flags as Record<string, unknown>
      // The global flags, and the session's force/reason and agent session where the spec takes them.
      this.flagsForSession = {...(flags as any), session: spec.agentSession ? flags.session : undefined}
      if (spec.compact) this.useFormat(flags)
      const output = this.format === 'compact' ? 'compact' : this.jsonMode() ? 'json' : 'text'
      const run = async (args: Record<string, unknown>): Promise<R> => {
        spec.check?.(args)
        return spec.run(engine(), await this.openSession(), args, {surface: 'cli', output}) as Promise<R>
      }
      const args = argumentsFrom(spec, parsed as any)
      return view.execute ? view.execute({args, flags, run, session: () => this.openSession(), output}) : run(args)
    }

    protected override renderCompact(result: R): string {
      return spec.compact!(engine(), result)
    }

    protected render(result: R, term: Terminal): string {
      return view.render(result, term)
    }
  }
  return Generated
}
