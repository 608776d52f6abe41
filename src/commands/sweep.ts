import type {TaskView} from '../core/task-view'
import {sweep} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<{swept: TaskView[]; commit: string | null}>(sweep, {
  render: (r, term) => (r.swept.length === 0 ? 'no expired leases\n' : r.swept.map((t) => engine().render.renderTaskLine(term, 'swept', t)).join('')),
})
