import type {TaskResult} from '../app/task-results'
import type {Comment} from '../core/task'
import {checkpoint} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult & {checkpoint: Comment}>(checkpoint, {
  render: (r, term) => engine().render.renderTaskLine(term, 'checkpoint on', r.task, `next: ${r.checkpoint.next ?? ''}`),
})
