import {neutralize} from '../core/untrusted-text'
import {rm} from '../operations/cards'
import {askOnTerminal, confirmOnTerminal} from './confirm'
import {interactive} from './editor'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<{removed: Array<{id: string; title: string}>; commit: string | null}>(rm, {
  // On a terminal the question stands for --confirm (and asks for the reason when none was given); without one, the
  // operation's check wants both flags (exit 2, nothing removed).
  execute: async ({args, flags, run}) => {
    const ids = args.id as string[]
    if (args.confirm === undefined && interactive()) {
      const what = `${neutralize(ids.join(', '))}${args.withSubitems ? ` and ${ids.length === 1 ? 'its' : 'their'} sub-items` : ''}`
      if (!flags.yes) await confirmOnTerminal(`remove ${what}?`)
      args.confirm = ids
      if (args.reason === undefined && !flags.yes) args.reason = (await askOnTerminal('why? (recorded in the history) ')).trim() || undefined
    }
    return run(args)
  },
  render: (r, term) => r.removed.map((t) => `removed ${engine().paint(term, 'yellow', t.id)}  ${t.title}\n`).join(''),
})
