import type {RoleResult} from '../app/inbox-actions'
import {unwatch} from '../operations/inbox'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<RoleResult>(unwatch, {render: (r, term) => engine().render.renderTaskLine(term, r.commit ? 'stopped watching' : 'not watching', r.task)})
