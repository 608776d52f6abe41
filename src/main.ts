/**
 * Entry point of the bundle (dist/tasks.js). bin/tasks and bin/git-tasks
 * call main(); oclif finds the commands through COMMANDS (explicit strategy,
 * see package.json) in this same, already loaded, module.
 */
import {join} from 'node:path'
import {run} from '@oclif/core'
import {EXIT} from './core/errors'

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

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  useCodeUnitCompare()
  try {
    await run(argv, join(__dirname, '..'))
  } catch (error) {
    const e = error as Error & {oclif?: {exit?: number}}
    const code = e.oclif?.exit ?? EXIT.error
    if (code !== 0) {
      const json = argv.includes('--json')
      const message = e.message.replace(/^Error: /, '')
      const usage = /command .* not found|not found/i.test(message) || code === 2
      if (json) process.stderr.write(`${JSON.stringify({error: {code: usage ? 'usage' : 'error', message, exit: usage ? EXIT.usage : code}})}\n`)
      else process.stderr.write(`error: ${message}\n`)
      process.exitCode = usage ? EXIT.usage : code
    }
  }
}
