import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionCheckpoint} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionCheckpoint, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'checkpoint', r)})
