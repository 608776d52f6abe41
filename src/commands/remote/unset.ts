import type {RemoteResult} from '../../app/list-admin'
import {remoteUnset} from '../../operations/admin'
import {commandFrom} from '../from-spec'

export default commandFrom<RemoteResult>(remoteUnset, {
  render: (r, _term) => r.previous ? `tasks remote unset (was ${r.previous})\n` : 'no tasks remote was set\n',
})
