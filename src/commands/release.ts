import type {TaskView} from '../core/task-view'
import {release} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<{released: TaskView[]; commit: string | null}>(release, {
  render: (r, term) => (r.released.length === 0 ? 'nothing to release\n' : r.released.map((t) => engine().render.renderTaskLine(term, 'released', t)).join('')),
})
