import type {CheckOutput} from '../../app/coordination-actions'
import {checkSupersede} from '../../operations/checks'
import {commandFrom} from '../from-spec'
import {renderCheckResult} from './pass'

export default commandFrom<CheckOutput>(checkSupersede, {render: (r, term) => renderCheckResult(r, term, 'superseded')})
