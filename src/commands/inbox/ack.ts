import type {AckResult} from '../../app/inbox-actions'
import {inboxAck} from '../../operations/inbox'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<AckResult>(inboxAck, {render: (r, term) => engine().renderInbox.renderAck(term, r)})
