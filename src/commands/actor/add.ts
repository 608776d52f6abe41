import type {ActorChangeResult} from '../../app/inbox-actions'
import {actorAdd} from '../../operations/inbox'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<ActorChangeResult>(actorAdd, {render: (r, term) => engine().renderInbox.renderActorChange(term, r)})
