import type {ActorListResult} from '../../app/inbox-actions'
import {actorList} from '../../operations/inbox'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<ActorListResult>(actorList, {render: (r, term) => engine().renderInbox.renderActors(term, r)})
