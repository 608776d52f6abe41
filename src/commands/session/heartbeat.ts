import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionHeartbeat} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionHeartbeat, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'heartbeat', r)})
