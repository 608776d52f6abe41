import type {RoleResult} from '../app/inbox-actions'
import {watch} from '../operations/inbox'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<RoleResult>(watch, {render: (r, term) => engine().render.renderTaskLine(term, r.commit ? 'watching' : 'already watching', r.task)})
