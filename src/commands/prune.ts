import type {PruneResult} from '../core/ops/prune'
import {prune} from '../operations/checks'
import {commandFrom} from './from-spec'

export default commandFrom<PruneResult & {commit: string | null}>(prune, {
  render: (r) => {
    const lines = r.removed.map((t) => `removed ${t.id} (${t.status}) ${t.title}\n`)
    const kept = r.kept.map((k) => `kept ${k.id}: ${k.reason === 'parent' ? 'parent of' : 'needed by'} ${k.by}\n`)
    return `${lines.join('')}${kept.join('')}${r.removed.length === 0 ? `nothing finished before ${r.cutoff}\n` : ''}`
  },
})
