import type {InboxResult} from '../../app/inbox-actions'
import {inbox} from '../../operations/inbox'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<InboxResult>(inbox, {render: (r, term) => engine().renderInbox.renderInbox(term, r)})
