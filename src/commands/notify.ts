import type {RoleResult} from '../app/inbox-actions'
import {notify} from '../operations/inbox'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<RoleResult>(notify, {
  render: (r, term) => engine().render.renderTaskLine(term, r.commit ? 'notify rules' : 'unchanged', r.task, r.task.notify_roles.join(' ') || "(the list's)"),
})
