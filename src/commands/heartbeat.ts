import type {HeartbeatOutput} from '../app/claim-actions'
import {heartbeat} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<HeartbeatOutput>(heartbeat, {
  render: (r, term) =>
    r.lease_kept
      ? engine().render.renderTaskLine(term, 'lease kept', r.task, `until ${r.task.lease_expires ?? 'never'}, longer than the ${r.lease_asked} asked for: a heartbeat never shortens a lease`)
      : engine().render.renderTaskLine(term, 'lease extended', r.task, `until ${r.task.lease_expires}`),
})
