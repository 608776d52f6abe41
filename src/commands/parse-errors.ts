/**
 * oclif's parse errors in the tool's own words: one line that names the
 * argument or flag and says what it expects, as a UsageError (exit 2,
 * code `usage`). oclif's classes are recognised by name and shape, and
 * their multi-line messages ("Missing 1 required arg:", "The following
 * error occurred:", "Parsing --lease \n\tExpected an integer …", "See more
 * help with --help") never reach the user. Needs no engine.
 */
import {UsageError} from '../core/errors'
import {type CommandInfo, suggest, typedId} from './argv'

type ParseError = Error & {
  args?: Array<{name?: string; description?: string}>
  flags?: string[]
  code?: unknown
  exitCode?: unknown
  data?: Record<string, unknown>
  oclif?: {exit?: number}
}

const usage = (message: string, data: Record<string, unknown> = {}) => new UsageError(message, data, 'usage')

/** A UsageError for an oclif parse error, or null when `err` is something else. */
export function usageFromParseError(err: ParseError, id: string | undefined, info: CommandInfo | undefined): UsageError | null {
  const cmd = `tasks ${typedId(id ?? '')}`.trim()
  const seeHelp = `; see \`${cmd} -h\``
  const name = err.constructor?.name ?? ''
  const text = err.message.replace(/\nSee more help with --help\s*$/, '')

  // A flag's own parse function failed (our UsageError from a duration, or oclif's integer check).
  const parsing = /^Parsing --([\w-]+) \n\t([\s\S]*)$/.exec(text)
  if (parsing) {
    const [, flag, inner] = parsing
    if (typeof err.code === 'string' && typeof err.exitCode === 'number') return new UsageError(inner!, err.data ?? {}, err.code)
    const int = /^Expected an integer(?: (greater|less) than or equal to (-?\d+))? but received: ([\s\S]*)$/.exec(inner!)
    if (int) {
      const bound = int[1] ? ` ${int[1] === 'greater' ? 'of at least' : 'of at most'} ${int[2]}` : ''
      return usage(`--${flag} expects an integer${bound}, not "${int[3]}"`, {flag})
    }
    return usage(`--${flag}: ${firstLine(inner!)}`, {flag})
  }
  // Our own errors (thrown by a command) pass through untouched.
  if (typeof err.code === 'string' && typeof err.exitCode === 'number') return null
  if (name === 'RequiredArgsError' || /^Missing \d+ required args?/.test(text)) {
    const missing = (err.args ?? []).map((a) => `${(a.name ?? 'argument').toUpperCase()}${a.description ? ` (${a.description})` : ''}`)
    return usage(`${cmd} needs ${missing.length ? missing.join(' and ') : 'more arguments'}${seeHelp}`)
  }
  if (name === 'UnexpectedArgsError' || /^Unexpected arguments?: /.test(text)) {
    const extra = text.replace(/^Unexpected arguments?: /, '')
    const wanted = Object.keys(info?.args ?? {}).map((a) => a.toUpperCase())
    return usage(`unexpected argument ${quoteList(extra)}: ${cmd} takes ${wanted.length ? wanted.join(' ') : 'no arguments'} (quote text that has spaces)${seeHelp}`)
  }
  if (name === 'NonExistentFlagsError' || /^Nonexistent flags?: /.test(text)) {
    const flags = err.flags ?? text.replace(/^Nonexistent flags?: /, '').split(', ')
    const known = Object.keys({...info?.baseFlags, ...info?.flags}).map((f) => `--${f}`)
    const hints = suggest(flags[0]!.split('=')[0]!, known)
    // --at reads a past state (a flag of some reads): any other command, a write above all, works on the list as it is now.
    if (flags.some((f) => f.split('=')[0] === '--at')) {
      return usage(`${cmd} does not take --at: it works on the list as it is now; the reads that show a past state say --at in their help (docs/history.md, "Time travel"); nothing was done`, {flag: '--at'})
    }
    return usage(`unknown flag ${flags.join(', ')} for ${cmd}${hints.length ? `: did you mean ${hints.join(' or ')}?` : ''}${seeHelp}`, {flag: flags[0]})
  }
  const option = /^Expected --([\w-]+)=([\s\S]*) to be one of: (.*)$/.exec(text)
  if (option) return usage(`--${option[1]} must be one of ${option[3]}, not "${option[2]}"`, {flag: option[1]})
  const argOption = /^Expected ([\s\S]*) to be one of: (.*)$/.exec(text)
  if (argOption) return usage(`"${argOption[1]}" is not one of ${argOption[2]}`)
  const expectsValue = /^Flag --([\w-]+) expects (?:a value|one of these values: (.*))$/.exec(text)
  if (expectsValue) return usage(`--${expectsValue[1]} expects ${expectsValue[2] ? `one of ${expectsValue[2]}` : 'a value'}`, {flag: expectsValue[1]})
  const once = /^Flag --([\w-]+) can only be specified once$/.exec(text)
  if (once) return usage(`--${once[1]} may be given only once`, {flag: once[1]})
  if (name === 'FailedFlagValidationError' || name === 'ViolatedFlagConstraintError' || /^The following errors? occurred:/.test(text)) {
    // eslint-disable-next-line no-control-regex
    const reasons = text.replace(/\u001B\[[0-9;]*m/g, '').split('\n').slice(1).map((l) => l.trim()).filter(Boolean)
    return usage(reasons.map(reason).join('; ') || `invalid flags${seeHelp}`)
  }
  if (/^Unexpected flag /.test(text)) return usage(`${firstLine(text).replace(/^Unexpected flag/, 'unexpected flag')}${seeHelp}`)
  if (err.oclif?.exit === 2 || /Parse|Args|Flag/.test(name)) return usage(firstLine(text))
  return null
}

/** One oclif validation reason in our words. */
function reason(r: string): string {
  const required = /^Missing required flag ([\w-]+)$/.exec(r)
  if (required) return `--${required[1]} is required`
  const exclusive = /^--([\w-]+)(?:=.*)? cannot also be provided when using --([\w-]+)$/.exec(r)
  if (exclusive) return `--${exclusive[1]} and --${exclusive[2]} cannot be used together`
  return r
}

function firstLine(s: string): string {
  return s.split('\n').map((l) => l.trim()).filter(Boolean)[0] ?? s
}

function quoteList(s: string): string {
  return s
    .split(', ')
    .map((a) => `"${a}"`)
    .join(', ')
}
