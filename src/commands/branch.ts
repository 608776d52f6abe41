import {renderClaim} from './claim'
import type {BranchOutput} from '../hooks/branch'
import {branch} from '../operations/history'
import {commandFrom} from './from-spec'

export default commandFrom<BranchOutput>(branch, {
  render: (r, term) => `${renderClaim(r, term)}${r.created ? 'created and checked out' : 'checked out'} ${r.branch}\n`,
})
