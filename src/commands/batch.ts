import type {BatchFileResult} from '../core/ops/batch-file'
import {batch} from '../operations/table'
import {commandFrom} from './from-spec'

export default commandFrom<BatchFileResult & {commit: string | null}>(batch, {
  render: (r) => {
    const lines = r.results.filter((i) => !i.ok).map((i) => `operation ${i.index + 1} (${i.op}) refused: ${i.error?.message ?? ''}\n`)
    return `${lines.join('')}${r.applied} operation${r.applied === 1 ? '' : 's'} applied${r.failed ? `, ${r.failed} refused` : ''}${r.commit ? ` in ${r.commit.slice(0, 12)}` : ''}\n`
  },
})
