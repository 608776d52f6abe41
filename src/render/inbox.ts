/**
 * Text for the inbox, the actor registry, `stale` and `remind`. Pure; every
 * string was neutralized before it gets here (base-command).
 */
import type {AckResult, ActorChangeResult, ActorListResult, InboxResult, RemindOutput, StaleResult} from '../app/inbox-actions'
import {type Terminal, paint, truncate} from './terminal'

function ago(seconds: number): string {
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))}m`
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`
  return `${Math.round(seconds / 86_400)}d`
}

export function renderInbox(term: Terminal, r: InboxResult): string {
  if (r.records.length === 0) return `inbox of ${r.actor}: nothing new${r.total > 0 ? ` (${r.total} seen; --all to show)` : ''}\n`
  const out: string[] = []
  for (const rec of r.records) {
    const head = `${paint(term, 'dim', rec.created_at.replace('T', ' ').slice(0, 16))}  ${paint(term, 'yellow', rec.id.slice(-8))}  ${rec.event}${rec.seen ? paint(term, 'dim', ' (seen)') : ''}`
    const body = rec.body.split('\n').map((l) => (l === '' ? '' : `    ${truncate(l, Math.max(20, term.width - 4))}`))
    out.push(head, ...body, '')
  }
  out.push(`${r.unseen} unseen of ${r.total}; \`tasks inbox ack ID…\` or \`--all\` marks them seen`)
  return `${out.join('\n')}\n`
}

export function renderAck(_term: Terminal, r: AckResult): string {
  return r.acked.length === 0 ? `nothing to mark seen in ${r.actor}'s inbox\n` : `marked ${r.acked.length} record${r.acked.length === 1 ? '' : 's'} seen\n`
}

export function renderActors(term: Terminal, r: ActorListResult): string {
  if (r.actors.length === 0) return 'no actors registered yet (every change registers its actor)\n'
  const lines = r.actors.map((a) => {
    const bits = [a.aliases.length ? `aliases: ${a.aliases.join(', ')}` : '', a.mute.length ? `mute: ${a.mute.join(',')}` : '', a.watch.length ? `watch: ${a.watch.join(',')}` : ''].filter(Boolean)
    return `${paint(term, 'yellow', a.id)}  ${paint(term, 'dim', a.last_seen ? `seen ${a.last_seen}` : 'never seen')}${bits.length ? `  ${bits.join('; ')}` : ''}`
  })
  for (const b of r.broken) lines.push(`unreadable: ${b.path}: ${b.error}`)
  return `${lines.join('\n')}\n`
}

export function renderActorChange(term: Terminal, r: ActorChangeResult): string {
  const a = r.actor
  return `${r.commit ? 'updated' : 'unchanged'} ${paint(term, 'yellow', a.id)}${a.aliases.length ? `  aliases: ${a.aliases.join(', ')}` : ''}${a.mute.length ? `  mute: ${a.mute.join(',')}` : ''}${a.watch.length ? `  watch: ${a.watch.join(',')}` : ''}\n`
}

export function renderStale(term: Terminal, r: StaleResult): string {
  if (r.total === 0) return `nothing stale (no change for ${ago(r.older_than_seconds)})\n`
  const out: string[] = []
  for (const g of r.groups) {
    out.push(paint(term, 'bold', g.owner ?? '(nobody)'))
    for (const i of g.items) out.push(`  ${paint(term, 'yellow', i.id)}  ${i.status.padEnd(11)} ${paint(term, 'dim', `${ago(i.idle_seconds)} idle`)}${i.overdue ? `  ${paint(term, 'red', `OVERDUE (due ${i.due})`)}` : ''}  ${truncate(i.title, Math.max(20, term.width - 40))}`)
  }
  out.push(`${r.total} stale item${r.total === 1 ? '' : 's'} (no change for ${ago(r.older_than_seconds)} or more)`)
  return `${out.join('\n')}\n`
}

export function renderRemind(_term: Terminal, r: RemindOutput): string {
  const out = [
    ...r.digests.map((d) => `digest to ${d.to}: ${d.tasks.length} item${d.tasks.length === 1 ? '' : 's'}`),
    ...r.escalations.map((e) => `escalated ${e.task} to ${e.to}: ${e.owner} not seen since ${e.last_seen}`),
    ...(r.operator_escalations ?? []).map((e) => `escalated ${e.task} (priority ${e.priority}) to the operator ${e.to}: still stale after ${e.digests} digest${e.digests === 1 ? '' : 's'}`),
    ...r.skipped.map((s) => `${s.to}: already reminded at ${s.last_digest}`),
  ]
  if (out.length === 0) out.push('nobody to remind')
  return `${out.join('\n')}\n`
}
