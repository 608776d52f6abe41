import type {NextOutput} from '../app/claim-actions'
import {next} from '../operations/claims'
import {renderClaim} from './claim'
import {commandFrom} from './from-spec'

export default commandFrom<NextOutput>(next, {render: renderClaim})
