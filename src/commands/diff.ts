import type {ListDiff} from '../app/list-diff'
import {diff} from '../operations/history'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<ListDiff>(diff, {
  render: (r, term) => engine().listDiffRender.renderDiff(term, r),
})
