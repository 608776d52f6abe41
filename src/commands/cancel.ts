import type {BatchResult, TaskResult} from '../app/task-results'
import type {TaskView} from '../core/task-view'
import {cancel} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

type Item = {task: TaskView; subitems: TaskView[]}

export default commandFrom<(TaskResult & {subitems: TaskView[]}) | BatchResult<Item>>(cancel, {
  render: (r, term) => {
    const items: Item[] = 'results' in r ? r.results : [r]
    return items.flatMap((i) => [i.task, ...i.subitems]).map((t) => engine().render.renderTaskLine(term, 'cancelled', t)).join('')
  },
})
