import {neutralize} from '../core/untrusted-text'
import {rm} from '../operations/cards'
import {confirmOnTerminal, terminalQuestions} from './confirm'
import {interactive} from './editor'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<{removed: Array<{id: string; title: string}>; commit: string | null}>(rm, {
  // On a terminal the question stands for --confirm (and asks for the reason when none was given); without one, the
  // operation's check wants both flags (exit 2, nothing removed).
  execute: async ({args, flags, run}) => {
    const ids = args.id as string[]
    if (args.confirm === undefined && interactive()) {
      if (!flags.yes) {
        const term = terminalQuestions()
        try {
          const what = `${neutralize(ids.join(', '))}${args.withSubitems ? ` and ${ids.length === 1 ? 'its' : 'their'} sub-items` : ''}`
          await confirmOnTerminal(`remove ${what}?`, term)
          if (args.reason === undefined) args.reason = (await term.ask('why? (recorded in the history) ')).trim() || undefined
        } finally {
          term.close()
        }
      }
      args.confirm = ids
    }
    return run(args)
  },
  render: (r, term) => r.removed.map((t) => `removed ${engine().paint(term, 'yellow', t.id)}  ${t.title}\n`).join(''),
})
