import {engine} from '../engine-loader'
import type {ConfigSetting} from '../../app/config-actions'
import {configGet} from '../../operations/admin'
import {commandFrom} from '../from-spec'

type Output = ConfigSetting & {list: string}

export default commandFrom<Output>(configGet, {
  render: (r, term) => engine().renderHistory.renderConfigGet(term, r),
})
