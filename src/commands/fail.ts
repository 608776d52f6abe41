import type {TaskResult} from '../app/task-results'
import type {TaskView} from '../core/task-view'
import {fail} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

// Issue 33: `tasks fail`.
export default commandFrom<TaskResult & {subitems: TaskView[]}>(fail, {
  render: (r, term) => [engine().render.renderTaskLine(term, 'failed', r.task, r.task.fail_reason ?? ''), ...r.subitems.map((t) => engine().render.renderTaskLine(term, 'cancelled', t))].join(''),
})
