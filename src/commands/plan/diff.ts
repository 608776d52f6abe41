import type {PlanDiffResult} from '../../app/plan-actions'
import {planDiff} from '../../operations/plans'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<PlanDiffResult>(planDiff, {render: (r, term) => engine().renderPlans.renderPlanDiff(term, r)})
