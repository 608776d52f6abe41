import type {BlameResult} from '../app/blame-actions'
import {blame} from '../operations/history'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<BlameResult>(blame, {
  render: (r, term) => engine().renderBlame.renderBlame(term, r),
})
