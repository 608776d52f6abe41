/**
 * Entry point of the bundle (dist/tasks.js). bin/tasks and bin/git-tasks
 * call main(); oclif finds the commands through COMMANDS (explicit strategy,
 * see package.json) in this same, already loaded, module.
 */
import {join} from 'node:path'
import {run} from '@oclif/core'
import {EXIT, TasksError, type UsageError} from './core/errors'
import {neutralize} from './core/untrusted-text'
import {type CommandTable, resolveArgv} from './commands/argv'
import {completeWords, idCandidates} from './commands/complete-words'
import {usageFromParseError} from './commands/parse-errors'
import {invokedThroughGit, openManPage} from './commands/man-page'
import {rootHelp} from './commands/root-help'
import {COMMANDS} from './commands/index'

export {COMMANDS} from './commands/index'

/**
 * oclif sorts command ids with localeCompare, and the first localeCompare
 * call in a process initialises ICU's collator: ~10 ms of every start-up.
 * Command ids are ASCII, for which code-unit order gives the same result, so
 * calls without locale arguments compare code units. git-tasks itself never
 * sorts with localeCompare (order must not depend on the machine's locale).
 */
function useCodeUnitCompare(): void {
  const original = String.prototype.localeCompare
  // eslint-disable-next-line no-extend-native
  String.prototype.localeCompare = function localeCompare(this: string, that: string, ...rest: unknown[]): number {
    if (rest.length === 0 || rest.every((r) => r === undefined)) {
      const a = String(this)
      const b = String(that)
      return a < b ? -1 : a > b ? 1 : 0
    }
    return (original as (...args: unknown[]) => number).call(this, that, ...rest)
  }
}

/** The root help at 72 columns (a man page indents it): also the man page (scripts/build.mjs writes man/man1/tasks.1 and git-tasks.1 from it). */
export function rootHelpText(): string {
  return rootHelp(COMMANDS as unknown as CommandTable, 72)
}

/** Whether the user asked for JSON (before any `--`): errors are then one JSON object on stderr. */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json')
}

/** Print `error` as the tool does everywhere: `error: …`, or one JSON object with --json. */
function report(error: TasksError | UsageError, json: boolean): void {
  if (json) process.stderr.write(`${JSON.stringify(error.toJSON())}\n`)
  else process.stderr.write(`error: ${neutralize(error.message)}\n`)
  process.exitCode = error.exitCode
}

/** `tasks __complete WORD…` (shell completion): candidates on stdout, never an error. */
async function printCompletions(words: string[]): Promise<void> {
  try {
    const found = await completeWords(words, COMMANDS as unknown as CommandTable, idCandidates)
    // eslint-disable-next-line no-control-regex
    const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    process.stdout.write(found.map((c) => `${clean(c.value)}\t${clean(c.description)}\n`).join(''))
  } catch {
    // Completion stays quiet: no candidates.
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  useCodeUnitCompare()
  const root = join(__dirname, '..')
  const json = wantsJson(argv)
  const table = COMMANDS as unknown as CommandTable
  let id: string | undefined
  try {
    if (argv[0] === '__complete') return await printCompletions(argv.slice(1))
    const resolved = resolveArgv(argv, table)
    if (resolved.kind === 'version') {
      await run(['--version'], root)
      return
    }
    if (resolved.kind === 'help') {
      if (resolved.words.length === 0) process.stdout.write(rootHelp(table, Math.min(process.stdout.columns || 80, 100)))
      else if (invokedThroughGit() && !json && (await openManPage(root, resolved.words))) return
      else await run([...resolved.words, '--help'], root)
      return
    }
    id = resolved.argv[0]
    await run(resolved.argv, root)
  } catch (error) {
    const e = error as Error & {oclif?: {exit?: number}; code?: unknown; exitCode?: unknown}
    if (e.oclif?.exit === 0) return
    if (typeof e.code === 'string' && typeof e.exitCode === 'number' && 'toJSON' in e) return report(e as TasksError, json)
    const usage = usageFromParseError(e, id, id ? table[id] : undefined)
    if (usage) return report(usage, json)
    report(new TasksError('internal', EXIT.error, `internal error: ${e.message}. This is a bug in git-tasks; please report it with the command you ran.`), json)
  }
}
