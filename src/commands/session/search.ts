import type {SessionSearch} from '../../app/work-session-actions'
import {sessionSearch} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionSearch>(sessionSearch, {render: (r, term) => engine().renderSessions.renderSessionSearch(term, r)})
