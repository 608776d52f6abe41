import type {RoleResult} from '../../app/inbox-actions'
import {collabAdd} from '../../operations/inbox'
import {commandFrom} from '../from-spec'
import {renderCollaborators} from './rm'

export default commandFrom<RoleResult>(collabAdd, {render: renderCollaborators})
