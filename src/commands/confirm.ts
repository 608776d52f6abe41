/**
 * Asking a person before a destructive command (`rm`), as `rm -i` and
 * `gh repo delete` do: only when stdin and stdout are both terminals. An
 * agent or a script (pipes) is never asked, so automation keeps working
 * without a flag; `--yes` skips the question on a terminal too.
 */
import {createInterface} from 'node:readline'
import {UsageError} from '../core/errors'

/** Ask `question` on the terminal; anything but y/yes refuses with `not_confirmed` (exit 2, nothing written). */
export async function confirmOnTerminal(question: string): Promise<void> {
  const rl = createInterface({input: process.stdin, output: process.stdout})
  const answer = await new Promise<string>((resolve) => {
    rl.question(`${question} [y/N] `, resolve)
    rl.once('close', () => resolve(''))
  })
  rl.close()
  if (!/^\s*y(es)?\s*$/i.test(answer)) throw new UsageError('not confirmed; nothing was removed (pass --yes to skip the question)', {}, 'not_confirmed')
}

/**
 * Ask for a word to be typed back on the terminal (`takeover` asks for the
 * card's id, as `gh repo delete` asks for the repository's name); returns
 * what was typed, trimmed. The operation judges it.
 */
export async function askOnTerminal(question: string): Promise<string> {
  const rl = createInterface({input: process.stdin, output: process.stdout})
  const answer = await new Promise<string>((resolve) => {
    rl.question(`${question} `, resolve)
    rl.once('close', () => resolve(''))
  })
  rl.close()
  return answer.trim()
}
