import type {ShowResult} from '../app/list-query'
import {show} from '../operations/reads'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'
import {atHeading} from './at-heading'

export default commandFrom<ShowResult>(show, {
  render: (r, term) => {
    let out = atHeading(r) + engine().render.renderTaskDetail(term, r)
    if (r.revisions) out += `\nRevisions:\n${engine().renderHistory.renderRevisions(term, r.revisions)}`
    if (r.history) out += `\nHistory:\n${engine().renderHistory.renderLog(term, {list: '', task: r.task.id, removed: false, events: r.history})}`
    return out
  },
})
