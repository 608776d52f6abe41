import type {CheckOutput} from '../../app/coordination-actions'
import {checkFail} from '../../operations/checks'
import {commandFrom} from '../from-spec'
import {renderCheckResult} from './pass'

export default commandFrom<CheckOutput>(checkFail, {render: (r, term) => renderCheckResult(r, term, 'failed')})
