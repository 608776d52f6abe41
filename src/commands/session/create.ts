import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionCreate} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionCreate, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'create', r)})
