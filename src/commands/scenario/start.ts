import type {ScenarioStartResult} from '../../app/scenario-actions'
import {scenarioStart} from '../../operations/scenarios'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<ScenarioStartResult>(scenarioStart, {render: (r, term) => engine().renderScenarios.renderScenarioStart(term, r)})
