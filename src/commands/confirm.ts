/**
 * Asking a person before a destructive command (`rm`), as `rm -i` and
 * `gh repo delete` do: only when stdin and stdout are both terminals. An
 * agent or a script (pipes) is never asked: it confirms with the command's
 * own flags instead (`rm --confirm ID… --reason R`); `--yes` skips the
 * question on a terminal.
 */
import {createInterface} from 'node:readline'
import {UsageError} from '../core/errors'

/** One line typed on the terminal after `question` ('' when the input ends). */
export async function askOnTerminal(question: string): Promise<string> {
  const rl = createInterface({input: process.stdin, output: process.stdout})
  const answer = await new Promise<string>((resolve) => {
    rl.question(question, resolve)
    rl.once('close', () => resolve(''))
  })
  rl.close()
  return answer
}

/** Ask `question` on the terminal; anything but y/yes refuses with `not_confirmed` (exit 2, nothing written). */
export async function confirmOnTerminal(question: string): Promise<void> {
  const answer = await askOnTerminal(`${question} [y/N] `)
  if (!/^\s*y(es)?\s*$/i.test(answer)) throw new UsageError('not confirmed; nothing was removed (pass --yes to skip the question)', {}, 'not_confirmed')
}
