import type {RemindOutput} from '../app/inbox-actions'
import {remind} from '../operations/inbox'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<RemindOutput>(remind, {render: (r, term) => engine().renderInbox.renderRemind(term, r)})
