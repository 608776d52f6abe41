import type {PlanListResult} from '../../app/plan-actions'
import {planList} from '../../operations/plans'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<PlanListResult>(planList, {render: (r, term) => engine().renderPlans.renderPlanList(term, r)})
