/**
 * Asking a person before a destructive command (`rm`), as `rm -i` and
 * `gh repo delete` do: only when stdin and stdout are both terminals. An
 * agent or a script (pipes) is never asked: it confirms with the command's
 * own flags instead (`rm --confirm ID… --reason R`); `--yes` skips the
 * question on a terminal.
 */
import {createInterface} from 'node:readline'
import {UsageError} from '../core/errors'

/** Questions asked one after another on the terminal, each answered by one typed line ('' once the input ends). */
export interface TerminalQuestions {
  ask(question: string): Promise<string>
  close(): void
}

/** One reader for several questions: lines typed ahead (or pasted) are kept for the next question, not lost. */
export function terminalQuestions(): TerminalQuestions {
  const rl = createInterface({input: process.stdin, output: process.stdout})
  const typed: string[] = []
  const waiting: Array<(line: string) => void> = []
  let ended = false
  rl.on('line', (line) => {
    const w = waiting.shift()
    if (w) w(line)
    else typed.push(line)
  })
  rl.once('close', () => {
    ended = true
    for (const w of waiting.splice(0)) w('')
  })
  return {
    ask(question) {
      process.stdout.write(question)
      const line = typed.shift()
      if (line !== undefined) return Promise.resolve(line)
      if (ended) return Promise.resolve('')
      return new Promise((resolve) => waiting.push(resolve))
    },
    close: () => rl.close(),
  }
}

/** Anything but y/yes refuses with `not_confirmed` (exit 2, nothing written). */
function confirmed(answer: string): void {
  if (!/^\s*y(es)?\s*$/i.test(answer)) throw new UsageError('not confirmed; nothing was changed (pass --yes to skip the question)', {}, 'not_confirmed')
}

/** Ask `question` on the terminal (`on`: a reader already open, for more questions after this one). */
export async function confirmOnTerminal(question: string, on?: TerminalQuestions): Promise<void> {
  const term = on ?? terminalQuestions()
  try {
    confirmed(await term.ask(`${question} [y/N] `))
  } finally {
    if (!on) term.close()
  }
}

/**
 * Ask for a word to be typed back on the terminal (`takeover` asks for the
 * card's id, as `gh repo delete` asks for the repository's name); returns
 * what was typed, trimmed. The operation judges it.
 */
export async function askOnTerminal(question: string): Promise<string> {
  const term = terminalQuestions()
  try {
    return (await term.ask(`${question} `)).trim()
  } finally {
    term.close()
  }
}
