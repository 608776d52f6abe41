import type {TaskResult} from '../app/task-results'
import {defer} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

// Issue 33: `tasks defer`.
export default commandFrom<TaskResult>(defer, {render: (r, term) => engine().render.renderTaskLine(term, 'deferred', r.task, [r.task.defer_until ? `until ${r.task.defer_until}` : '', r.task.defer_reason ?? ''].filter(Boolean).join(': '))})
