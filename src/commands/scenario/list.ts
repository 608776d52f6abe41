import type {ScenarioListResult} from '../../app/scenario-actions'
import {scenarioList} from '../../operations/scenarios'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<ScenarioListResult>(scenarioList, {render: (r, term) => engine().renderScenarios.renderScenarioList(term, r)})
