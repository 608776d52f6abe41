import type {ShowResult} from '../app/list-query'
import {show} from '../operations/reads'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<ShowResult>(show, {
  render: (r, term) => {
    const detail = engine().render.renderTaskDetail(term, r)
    if (!r.history) return detail
    return `${detail}\nHistory:\n${engine().renderHistory.renderLog(term, {list: '', task: r.task.id, removed: false, events: r.history})}`
  },
})
