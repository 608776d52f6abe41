/**
 * `tasks revert --actor` for people: what was restored, released,
 * cancelled or removed, what was kept because someone changed it since,
 * what was skipped and why, and the actor's comments and check results
 * (never rewritten). Input is exactly the --json result.
 */
import type {RevertResult} from '../core/ops/revert'
import {fieldValueText} from './field-value'
import {type Part, type Terminal, paint, paintedLine, visible} from './terminal'

export interface RevertView extends RevertResult {
  dry_run: boolean
  commit: string | null
}


export function renderRevert(term: Terminal, r: RevertView): string {
  const out: string[] = []
  const width = Math.max(40, term.width)
  // Cut to the width before painting (paintedLine): a colour code is never cut in two nor counted as width.
  const line = (label: string, id: string, ...rest: Part[]) => out.push(paintedLine(term, width, [[label.padEnd(10), null], [r.short_ids[id] ?? id, 'yellow'], ...rest]))
  const window = `${r.since ? ` after ${r.since.slice(0, 10)}` : ''}${r.until ? ` up to ${r.until.slice(0, 10)}` : ''}`
  out.push(`${r.dry_run ? 'would revert' : 'reverted'} ${r.actor}: ${r.commits} commit${r.commits === 1 ? '' : 's'}${window}`)
  for (const x of r.restored) {
    const released = x.field === 'status' ? r.released.find((c) => c.id === x.id) : undefined
    line('restored', x.id, [`  ${x.field}: ${fieldValueText(x.field, x.from)} → ${fieldValueText(x.field, x.to)}${released ? ` (${released.owner}'s claim released)` : ''}`, null])
  }
  for (const x of r.cancelled) line('cancelled', x.id, [`  ${visible(x.title)}`, null])
  for (const x of r.removed) line('removed', x.id, [`  ${visible(x.title)}`, null])
  for (const x of r.kept) line('kept', x.id, [`  ${x.field}: ${fieldValueText(x.field, x.value)} (${r.actor} set ${fieldValueText(x.field, x.set)}; changed since by ${x.by.length > 0 ? x.by.join(', ') : 'a merge'})`, null])
  for (const x of r.skipped) line('skipped', x.id, [`  ${x.field ? `${x.field}: ` : ''}`, null], [visible(x.reason), 'magenta'])
  for (const c of r.comments) line('comment', c.id, [`  ${visible(c.comment)}${c.kind ? ` [${c.kind}]` : ''} (left as written)`, null])
  for (const c of r.checks) line('check', c.id, [`  ${c.check} ${c.status ?? '?'} (left as judged)`, null])
  for (const n of r.notes) out.push(paintedLine(term, width, [['note'.padEnd(10), null], [visible(n), 'dim']]))
  const changed = r.restored.length + r.cancelled.length + r.removed.length
  if (r.dry_run) out.push(paint(term, 'dim', 'dry run: nothing written'))
  else if (r.commit) out.push(paint(term, 'dim', `committed ${r.commit.slice(0, 10)}`))
  else if (changed === 0) out.push(paint(term, 'dim', 'nothing to take back: nothing written'))
  return `${out.join('\n')}\n`
}
