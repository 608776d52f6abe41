import {neutralize} from '../core/untrusted-text'
import {rm} from '../operations/cards'
import {confirmOnTerminal} from './confirm'
import {interactive} from './editor'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<{removed: Array<{id: string; title: string}>; commit: string | null}>(rm, {
  execute: async ({args, flags, run}) => {
    const ids = args.id as string[]
    if (!flags.yes && interactive()) await confirmOnTerminal(`remove ${neutralize(ids.join(', '))} and ${ids.length === 1 ? 'its' : 'their'} sub-items?`)
    return run(args)
  },
  render: (r, term) => r.removed.map((t) => `removed ${engine().paint(term, 'yellow', t.id)}  ${t.title}\n`).join(''),
})
