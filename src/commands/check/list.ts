import type {CheckListOutput} from '../../app/coordination-actions'
import {checkList} from '../../operations/checks'
import {commandFrom} from '../from-spec'

export default commandFrom<CheckListOutput>(checkList, {
  render: (r) => {
    if (r.checks.length === 0) return `${r.task.short_id}: no checks\n`
    const lines = r.checks.map((c) => `${c.id}  ${c.status.padEnd(10)} ${c.kind.padEnd(10)} ${c.text}${c.evidence ? `\n    evidence: ${c.evidence}` : ''}${c.supersede_reason ? `\n    superseded: ${c.supersede_reason}` : ''}`)
    const tail = r.unmet.length ? `${r.unmet.length} check${r.unmet.length === 1 ? '' : 's'} not passed with evidence: done is refused until they are\n` : 'every active check passed with evidence\n'
    return `${lines.join('\n')}\n${tail}${r.broken.map((b) => `unreadable: ${b.path}: ${b.error}\n`).join('')}`
  },
})
