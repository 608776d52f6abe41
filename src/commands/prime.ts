import type {PrimeResult, PrimeWriteResult} from '../app/prime'
import {prime} from '../operations/history'
import {commandFrom} from './from-spec'

type PrimeOutput = PrimeResult | (PrimeResult & PrimeWriteResult)

export default commandFrom<PrimeOutput>(prime, {
  render: (r, _term) => {
    if ('action' in r) return `${r.path}: ${r.action === 'unchanged' ? 'the git-tasks section is current' : r.action === 'created' ? 'created with the git-tasks section' : r.action === 'appended' ? 'git-tasks section added' : 'git-tasks section updated'}\n`
    return r.markdown
  },
})
