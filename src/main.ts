/**
 * Entry point of the bundle (dist/tasks.js). bin/tasks and bin/git-tasks
 * call main(); oclif finds the commands through COMMANDS (explicit strategy,
 * see package.json) in this same, already loaded, module.
 */
import {join} from 'node:path'
import {run} from '@oclif/core'
import {EXIT} from './core/errors'

export {COMMANDS} from './commands/index'

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
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
