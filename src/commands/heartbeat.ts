import type {TaskResult} from '../app/task-results'
import {heartbeat} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult>(heartbeat, {
  render: (r, term) => engine().render.renderTaskLine(term, 'lease extended', r.task, `until ${r.task.lease_expires}`),
})
