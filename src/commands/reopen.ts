import type {BatchResult, TaskResult} from '../app/task-results'
import type {TaskView} from '../core/task-view'
import {reopen} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult | BatchResult<{task: TaskView}>>(reopen, {
  render: (r, term) => {
    const items = 'results' in r ? r.results : [r]
    return items.map((i) => engine().render.renderTaskLine(term, 'reopened', i.task)).join('')
  },
})
