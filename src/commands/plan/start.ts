import type {PlanStartResult} from '../../app/plan-actions'
import {planStart} from '../../operations/plans'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<PlanStartResult>(planStart, {render: (r, term) => engine().renderPlans.renderPlanStart(term, r)})
