import type {SyncResult} from '../app/sync'
import {sync} from '../operations/admin'
import {commandFrom} from './from-spec'

export default commandFrom<SyncResult>(sync, {
  render: (r, _term) => {
    const what: Record<SyncResult['action'], string> = {
      up_to_date: 'already up to date',
      fast_forward: 'fast-forwarded to the remote',
      pushed: 'published local changes',
      merged: 'merged local and remote changes',
      published: 'published the list to the remote',
    }
    const lines = [`${r.remote}/tasks/${r.list}: ${what[r.action]} (${r.commit.slice(0, 10)})`]
    for (const n of r.notes) lines.push(`  ${n.kind.replace(/_/g, ' ')}: ${n.message}`)
    for (const rep of r.repairs) lines.push(`  repaired ${rep.kind.replace(/_/g, ' ')}: ${rep.message}`)
    return `${lines.join('\n')}\n`
  },
})
