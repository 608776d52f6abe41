import type {ListsResult} from '../app/sharing'
import {engine} from './engine-loader'
import {lists} from '../operations/admin'
import {commandFrom} from './from-spec'

export default commandFrom<ListsResult>(lists, {
  render: (r, term) => engine().sharingRender.renderLists(term, r),
})
