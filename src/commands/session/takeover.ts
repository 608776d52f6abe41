import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionTakeover} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionTakeover, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'takeover', r)})
