import type {CheckOutput} from '../../app/coordination-actions'
import {checkAdd} from '../../operations/checks'
import {commandFrom} from '../from-spec'
import {renderCheckResult} from './pass'

export default commandFrom<CheckOutput>(checkAdd, {render: (r, term) => renderCheckResult(r, term, 'added')})
