import type {ClaimOutput} from '../app/claim-actions'
import {takeover} from '../operations/claims'
import {renderClaim} from './claim'
import {commandFrom} from './from-spec'

export default commandFrom<ClaimOutput>(takeover, {render: renderClaim})
