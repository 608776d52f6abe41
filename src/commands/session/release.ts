import type {SessionChangeResult} from '../../app/work-session-actions'
import {sessionRelease} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionChangeResult>(sessionRelease, {render: (r, term) => engine().renderSessions.renderSessionChange(term, 'release', r)})
