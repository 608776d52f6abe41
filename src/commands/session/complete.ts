import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionComplete} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionComplete, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'complete', r)})
