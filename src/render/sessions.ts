/**
 * Text for people of coordination sessions (`tasks session …`): the change
 * a command made, a session in full, a list and search hits. Pure.
 */
import type {SessionChangeResult, SessionList, SessionRow, SessionSearch, SessionShow} from '../app/work-session-actions'
import {type Terminal, paint} from './terminal'
import {neutralize} from '../core/untrusted-text'

const VERBS: Record<string, string> = {
  create: 'created',
  claim: 'claimed',
  revise: 'revised',
  checkpoint: 'checkpoint on',
  heartbeat: 'lease renewed on',
  release: 'released',
  complete: 'completed',
  cancel: 'cancelled',
  takeover: 'took over',
}

export function renderSessionChange(term: Terminal, command: string, r: SessionChangeResult): string {
  const s = r.session
  const extra: string[] = []
  if (command === 'claim' && r.already_owned) extra.push('already yours, lease renewed')
  if (s.state === 'in_progress') extra.push(`epoch ${s.epoch}, lease until ${s.lease_expires ?? 'never'}`)
  if (command === 'revise') extra.push(`revision ${s.revision}`)
  if (r.checkpoint?.next) extra.push(`next: ${neutralize(r.checkpoint.next)}`)
  if (r.commit === null && command !== 'create') extra.push('nothing changed')
  return `${VERBS[command] ?? command} session ${paint(term, 'yellow', s.id)}  ${neutralize(s.title)}${extra.length ? `  ${paint(term, 'dim', extra.join('; '))}` : ''}\n`
}

function countsText(r: SessionRow | SessionShow): string {
  const c = r.counts
  return `${c.total} task${c.total === 1 ? '' : 's'}: ${c.done} done, ${c.cancelled} cancelled, ${c.open} open (${c.todo} todo, ${c.in_progress} in progress, ${c.blocked} blocked)`
}

export function renderSessionShow(term: Terminal, r: SessionShow): string {
  const s = r.session
  const lines: string[] = []
  lines.push(`${paint(term, 'bold', neutralize(s.title))}  ${paint(term, 'yellow', s.id)}`)
  lines.push(`state       ${s.state}${s.owner ? `  owner ${neutralize(s.owner)} (epoch ${s.epoch}, lease until ${s.lease_expires ?? 'never'}${s.claim_live ? '' : ', expired'})` : ''}`)
  lines.push(`revision    ${s.revision}${s.revised_by ? `  revised by ${neutralize(s.revised_by)} at ${s.revised_at}: ${neutralize(s.revise_reason ?? '')}` : ''}`)
  lines.push(`created     ${s.created_at} by ${neutralize(s.created_by)}`)
  if (s.summary) lines.push(`summary     ${neutralize(s.summary)}`)
  if (s.cancel_reason) lines.push(`cancelled   ${neutralize(s.cancel_reason)}`)
  lines.push(`tasks       ${countsText(r)}`)
  lines.push('', paint(term, 'bold', 'Description'), neutralize(s.description), '', paint(term, 'bold', 'Strategy'), neutralize(s.strategy))
  if (r.checkpoints.length > 0) {
    lines.push('', paint(term, 'bold', 'Checkpoints (newest first)'))
    for (const c of r.checkpoints) {
      lines.push(`${paint(term, 'dim', `${c.created_at}  ${neutralize(c.author)}  ${c.kind}, epoch ${c.epoch}`)}`)
      lines.push(`  ${neutralize(c.summary).split('\n').join('\n  ')}`)
      if (c.next) lines.push(`  next: ${neutralize(c.next)}`)
    }
  }
  if (r.tasks.length > 0) {
    lines.push('', paint(term, 'bold', 'Tasks'))
    for (const t of r.tasks) lines.push(`  ${paint(term, 'yellow', t.id)}  ${t.status.padEnd(11)}  ${t.parent ? '  ' : ''}${neutralize(t.title)}${t.owner ? paint(term, 'dim', `  (${neutralize(t.owner)})`) : ''}`)
  }
  for (const b of r.broken) lines.push(paint(term, 'red', `unreadable: ${b.path}: ${b.error}`))
  return `${lines.join('\n')}\n`
}

function row(term: Terminal, s: SessionRow): string {
  return `${paint(term, 'yellow', s.id)}  ${s.state.padEnd(11)}  ${(s.owner ? neutralize(s.owner) : '-').padEnd(14)}  ${neutralize(s.title)}  ${paint(term, 'dim', `${s.counts.open}/${s.counts.total} open`)}`
}

export function renderSessionList(term: Terminal, r: SessionList): string {
  if (r.sessions.length === 0) return 'No sessions.\n'
  const lines = r.sessions.map((s) => row(term, s))
  if (r.next_cursor) lines.push(paint(term, 'dim', `… ${r.total - r.sessions.length} more: --after ${r.next_cursor}`))
  return `${lines.join('\n')}\n`
}

export function renderSessionSearch(term: Terminal, r: SessionSearch): string {
  if (r.results.length === 0) return `No session matches "${neutralize(r.query)}".\n`
  return `${r.results.map((h) => `${row(term, h.session)}  ${paint(term, 'dim', `(${h.fields.join(', ')})`)}`).join('\n')}\n`
}
