import type {SessionList} from '../../app/work-session-actions'
import {sessionList} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionList>(sessionList, {render: (r, term) => engine().renderSessions.renderSessionList(term, r)})
