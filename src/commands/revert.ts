import {engine} from './engine-loader'
import type {RevertOutput} from '../app/revert'
import {revert} from '../operations/history'
import {commandFrom} from './from-spec'

export default commandFrom<RevertOutput>(revert, {
  render: (r, term) => engine().renderRevert.renderRevert(term, r),
})
