import type {TaskResult} from '../app/task-results'
import {deps} from '../operations/cards'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult>(deps, {
  render: (r, term) => engine().render.renderTaskLine(term, 'dependencies of', r.task, r.task.depends_on.length ? `→ ${r.task.depends_on.join(', ')}` : 'none'),
})
