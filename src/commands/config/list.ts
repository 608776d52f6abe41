import {engine} from '../engine-loader'
import type {ConfigListResult} from '../../app/config-actions'
import {configList} from '../../operations/admin'
import {commandFrom} from '../from-spec'

export default commandFrom<ConfigListResult>(configList, {
  render: (r, term) => engine().renderHistory.renderConfigList(term, r),
})
