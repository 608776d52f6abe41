import type {ImportOutput} from '../app/interchange'
import {importDocument} from '../operations/history'
import {commandFrom} from './from-spec'

export default commandFrom<ImportOutput>(importDocument, {
  // A progress bar on a terminal, never with --json; `local`: the person at the command line may import any file they can read.
  execute: ({args, run, output}) => run({...args, quiet: output !== 'text', local: true}),
  render: (r, _term) => {
    const what = r.commit ? `imported from ${r.source}: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.comments_added} comments added` : `nothing to import: the list already holds all ${r.tasks.length} tasks of the file`
    return `${[what, ...r.warnings.map((w) => `warning: ${w}`)].join('\n')}\n`
  },
})
