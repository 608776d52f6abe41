import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionClaim} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionClaim, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'claim', r)})
