import type {SessionShow} from '../../app/work-session-actions'
import {sessionShow} from '../../operations/sessions'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<SessionShow>(sessionShow, {render: (r, term) => engine().renderSessions.renderSessionShow(term, r)})
