import type {TaskResult} from '../app/task-results'
import {unflag} from '../operations/checks'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult>(unflag, {render: (r, term) => engine().render.renderTaskLine(term, r.commit !== null ? 'unflagged' : 'not flagged', r.task)})
