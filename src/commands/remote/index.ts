import type {RemoteStatus} from '../../app/sharing'
import {engine} from '../engine-loader'
import {remote} from '../../operations/admin'
import {commandFrom} from '../from-spec'

export default commandFrom<RemoteStatus>(remote, {
  render: (r, _term) => engine().sharingRender.renderRemoteStatus(r),
})
