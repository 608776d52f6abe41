import type {InitResult} from '../app/list-admin'
import {init} from '../operations/admin'
import {commandFrom} from './from-spec'

export default commandFrom<InitResult>(init, {
  render: (r, _term) => {
    if (r.discovered) return `found the list on remote "${r.remote}" and adopted it: ${r.ref} at ${r.commit.slice(0, 10)} (tasks.remote = ${r.remote})\n`
    const head = r.created ? `initialised ${r.ref} at ${r.commit.slice(0, 10)}` : `${r.ref} already exists (${r.commit.slice(0, 10)})`
    const remote = r.remote ? `\nremote: ${r.remote}${r.sync ? ` (${r.sync.replace(/_/g, ' ')})` : ''}` : ''
    return `${head}${remote}\n`
  },
})
