import type {RemoteResult} from '../../app/list-admin'
import {remoteSet} from '../../operations/admin'
import {commandFrom} from '../from-spec'

export default commandFrom<RemoteResult>(remoteSet, {
  render: (r, _term) => `tasks remote: ${r.remote}${r.previous && r.previous !== r.remote ? ` (was ${r.previous})` : ''}\n`,
})
