import {engine} from './engine-loader'
import type {RestoreOutput} from '../app/history-actions'
import {restore} from '../operations/history'
import {commandFrom} from './from-spec'

export default commandFrom<RestoreOutput>(restore, {
  render: (r, term) => engine().renderHistory.renderRestore(term, r),
})
