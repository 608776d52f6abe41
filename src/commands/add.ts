import type {TaskResult} from '../app/task-results'
import {add} from '../operations/cards'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult & {created: boolean; checks: unknown[]}>(add, {
  render: (r, term) => {
    const line = engine().render.renderTaskLine(term, r.created ? 'added' : 'exists', r.task)
    return r.checks.length ? `${line}  with ${r.checks.length} check${r.checks.length === 1 ? '' : 's'} to pass before done\n` : line
  },
})
