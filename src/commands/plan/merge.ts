import type {PlanMergeResult} from '../../app/plan-actions'
import {planMerge} from '../../operations/plans'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<PlanMergeResult>(planMerge, {render: (r, term) => engine().renderPlans.renderPlanMerge(term, r)})
