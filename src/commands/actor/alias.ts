import type {ActorChangeResult} from '../../app/inbox-actions'
import {actorAlias} from '../../operations/inbox'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<ActorChangeResult>(actorAlias, {render: (r, term) => engine().renderInbox.renderActorChange(term, r)})
