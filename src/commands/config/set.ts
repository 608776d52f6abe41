import {engine} from '../engine-loader'
import type {ConfigChangeResult} from '../../app/config-actions'
import {configSet} from '../../operations/admin'
import {commandFrom} from '../from-spec'

export default commandFrom<ConfigChangeResult>(configSet, {
  render: (r, term) => engine().renderHistory.renderConfigChange(term, r),
})
