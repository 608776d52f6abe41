import type {TaskResult} from '../app/task-results'
import {flag} from '../operations/checks'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult>(flag, {render: (r, term) => engine().render.renderTaskLine(term, r.commit !== null ? 'flagged' : 'already flagged', r.task)})
