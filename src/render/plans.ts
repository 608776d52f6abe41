/**
 * Text for people of plans (`tasks plan …`): a started plan, the plans
 * here, a removed plan, a plan's merge. Pure; the results arrive
 * neutralized (commands/base-command.ts).
 */
import type {PlanDiffResult, PlanListResult, PlanMergeResult, PlanRmResult, PlanStartResult} from '../app/plan-actions'
import {renderDiff} from './list-diff'
import {renderTable} from './table'
import {type Terminal, paint} from './terminal'

const short = (c: string) => c.slice(0, 12)

export function renderPlanStart(term: Terminal, r: PlanStartResult): string {
  return `started plan ${paint(term, 'bold', r.plan)} (${r.ref}) from ${r.from} at ${paint(term, 'yellow', short(r.base))}\n` +
    `work on it with \`tasks --list ${r.plan} …\`; land it with \`tasks plan merge ${r.plan}\`\n`
}

export function renderPlanList(term: Terminal, r: PlanListResult): string {
  let out = r.plans.length === 0 ? 'no plans\n' : renderTable(
    term,
    [
      {header: 'PLAN', cell: (s: PlanListResult['plans'][number]) => s.plan, style: () => 'bold'},
      {header: 'TARGET', cell: (s) => s.from},
      {header: 'BASE', cell: (s) => short(s.base), style: () => 'yellow'},
      {header: 'AHEAD', cell: (s) => (s.ahead === null ? '—' : String(s.ahead))},
      {header: 'BEHIND', cell: (s) => (s.behind === null ? '—' : String(s.behind))},
      {header: 'CARDS', cell: (s) => String(s.cards_changed)},
      {header: 'BY', cell: (s) => s.created_by, flex: true, min: 8},
    ],
    r.plans,
  )
  for (const b of r.broken) out += `${paint(term, 'red', `unreadable: list ${b.list}: ${b.error}`)}\n`
  return out
}

export function renderPlanRm(term: Terminal, r: PlanRmResult): string {
  return `removed plan ${paint(term, 'yellow', r.plan)} (${r.ref} was ${short(r.commit)})\n`
}

export function renderPlanMerge(term: Terminal, r: PlanMergeResult): string {
  if (r.action === 'up_to_date') return `${r.into} already has everything in plan ${r.plan}; nothing written\n`
  let out = `merged plan ${paint(term, 'bold', r.plan)} into ${r.into}: ${r.cards_changed} card${r.cards_changed === 1 ? '' : 's'} changed, commit ${paint(term, 'yellow', short(r.commit))}\n`
  for (const n of r.notes) out += `  note: ${n.message}\n`
  for (const x of r.repairs) out += `  repaired: ${x.message}\n`
  for (const k of r.kept_claims) out += `  ${paint(term, 'magenta', 'kept')}: ${k.message}\n`
  out += r.plan_removed ? `removed the plan's ref ${'refs/tasks/' + r.plan} here (its history is in ${r.into}'s)\n` : `kept the plan's ref refs/tasks/${r.plan}\n`
  return out
}

export function renderPlanDiff(term: Terminal, r: PlanDiffResult): string {
  if (r.merge_commit === null) return `${r.into} already has everything in plan ${r.plan}; merging would change nothing\n`
  let out = `plan ${paint(term, 'bold', r.plan)} into ${r.into} (at ${paint(term, 'yellow', short(r.target_tip))}) would change:\n`
  out += renderDiff(term, r.diff)
  for (const n of r.notes) out += `  note: ${n.message}\n`
  for (const x of r.repairs) out += `  repair: ${x.message}\n`
  for (const k of r.kept_claims) out += `  ${paint(term, 'magenta', 'kept')}: ${k.message}\n`
  return out
}
