import type {RoleResult} from '../../app/inbox-actions'
import type {Terminal} from '../../render/terminal'
import {collabRm} from '../../operations/inbox'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

/** The card's collaborators after `collab add` or `collab rm`. */
export function renderCollaborators(r: RoleResult, term: Terminal): string {
  return engine().render.renderTaskLine(term, r.commit ? 'collaborators' : 'unchanged', r.task, r.task.collaborators.join(', ') || '(none)')
}

export default commandFrom<RoleResult>(collabRm, {render: renderCollaborators})
