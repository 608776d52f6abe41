import type {ClaimOutput} from '../app/claim-actions'
import type {Comment} from '../core/task'
import type {Terminal} from '../render/terminal'
import {claim} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

/** Shared text for claim-like results. */
export function renderClaim(r: ClaimOutput & {resumed?: boolean; checkpoint?: Comment | null}, term: Terminal): string {
  const verb = r.resumed ? 'resumed' : r.already_owned ? 'renewed' : r.took_over_from ? `took over (from ${r.took_over_from})` : 'claimed'
  const line = engine().render.renderTaskLine(term, verb, r.task, `epoch ${r.task.epoch}, lease until ${r.task.lease_expires ?? 'never'}`)
  const c = r.checkpoint
  return c ? `${line}last checkpoint (${c.author}, ${c.created_at}): ${c.body}${c.next ? `\nnext: ${c.next}` : ''}\n` : line
}

export default commandFrom<ClaimOutput>(claim, {render: renderClaim})
