import type {ImportOutput} from '../app/interchange'
import {importDocument} from '../operations/history'
import {commandFrom} from './from-spec'

export default commandFrom<ImportOutput>(importDocument, {
  render: (r, _term) => {
    const what = r.commit ? `imported from ${r.source}: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.comments_added} comments added` : `nothing to import: the list already holds all ${r.tasks.length} tasks of the file`
    return `${[what, ...r.warnings.map((w) => `warning: ${w}`)].join('\n')}\n`
  },
})
