import type {StaleResult} from '../app/inbox-actions'
import {stale} from '../operations/inbox'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<StaleResult>(stale, {render: (r, term) => engine().renderInbox.renderStale(term, r)})
