import type {ScenarioStatusResult} from '../../app/scenario-actions'
import {scenarioStatus} from '../../operations/scenarios'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<ScenarioStatusResult>(scenarioStatus, {render: (r, term) => engine().renderScenarios.renderScenarioStatus(term, r)})
