import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionCancel} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionCancel, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'cancel', r)})
