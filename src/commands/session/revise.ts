import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionRevise} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionRevise, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'revise', r)})
