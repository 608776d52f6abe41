import type {DoctorResult} from '../app/list-admin'
import {engine} from './engine-loader'
import {doctor} from '../operations/admin'
import {commandFrom} from './from-spec'

/**
 * Violations --fix repairs. A done item with an unfinished dependency is
 * only reported: ops reach that state (done --force, a dependency reopened
 * afterwards), so only a merge that creates it reopens the item. A done
 * item that is flagged, has a check not passed or an open sub-item is
 * reopened: no op reaches those states, only merges and hand-made commits.
 */
function repairable(r: DoctorResult): DoctorResult['violations'] {
  return r.violations.filter((v) => v.kind !== 'done_with_open_dependency')
}

export default commandFrom<DoctorResult>(doctor, {
  // Problems left (not repaired, unreadable files, locks kept) exit 5; the result says which.
  execute: async ({args, run}) => {
    const r = await run(args)
    if ((repairable(r).length > 0 && !r.fixed) || r.broken.length > 0 || r.locks.some((l) => !l.removed)) process.exitCode = 5
    return r
  },
  render: (r, _term) => {
    if (r.violations.length === 0 && r.broken.length === 0 && r.locks.length === 0) return 'no problems found\n'
    const lines: string[] = []
    for (const l of r.locks) {
      const age = l.age_seconds >= 120 ? `${Math.floor(l.age_seconds / 60)} min` : `${l.age_seconds} s`
      const what = l.removed ? 'removed' : l.stale ? 'run `tasks doctor --fix` to remove it' : 'left alone until it is 10 minutes old (remove it yourself if no git process is running)'
      lines.push(`ref lock: ${l.path} (${l.ref}, ${age} old): ${what}`)
    }
    for (const v of r.violations) lines.push(`${v.kind.replace(/_/g, ' ')}: ${v.message}`)
    for (const b of r.broken) lines.push(engine().visible(`unreadable: ${b.path}: ${b.error}`))
    if (r.fixed) lines.push(`repaired ${r.repairs.length} in ${r.fixed.slice(0, 10)}`)
    else if (repairable(r).length > 0) lines.push('run `tasks doctor --fix` to repair')
    return `${lines.join('\n')}\n`
  },
})
