import type {CheckOutput} from '../../app/coordination-actions'
import type {Terminal} from '../../render/terminal'
import {checkPass} from '../../operations/checks'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

/** A check command's line: the verb, or "already <status>" when nothing changed. */
export function renderCheckResult(r: CheckOutput, term: Terminal, verb: string): string {
  const c = r.check
  return engine().render.renderTaskLine(term, r.commit !== null ? verb : `already ${c.status}`, r.task, `${c.id} (${c.kind}): ${c.text}`)
}

export default commandFrom<CheckOutput>(checkPass, {render: (r, term) => renderCheckResult(r, term, 'passed')})
