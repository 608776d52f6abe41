import {engine} from '../engine-loader'
import type {ConfigChangeResult} from '../../app/config-actions'
import {configUnset} from '../../operations/admin'
import {commandFrom} from '../from-spec'

export default commandFrom<ConfigChangeResult>(configUnset, {
  render: (r, term) => engine().renderHistory.renderConfigChange(term, r),
})
