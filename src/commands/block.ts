import type {TaskResult} from '../app/task-results'
import {block} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult>(block, {render: (r, term) => engine().render.renderTaskLine(term, 'blocked', r.task, r.task.block_note ?? '')})
