import type {BatchResult, TaskResult} from '../app/task-results'
import type {TaskView} from '../core/task-view'
import {done} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

type Output = (TaskResult & {changed: boolean}) | BatchResult<{task: TaskView; changed: boolean}>

export default commandFrom<Output>(done, {
  render: (r, term) => {
    const items = 'results' in r ? r.results : [r]
    return items.map((i) => engine().render.renderTaskLine(term, i.changed ? 'done' : 'already done', i.task)).join('')
  },
})
