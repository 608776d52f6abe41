/**
 * Text for people of scenarios (`tasks scenario …`): the seeds a start
 * made, a scenario's status table, the list of scenarios. Pure; the
 * results arrive neutralized (commands/base-command.ts).
 */
import type {ScenarioListResult, ScenarioStartResult, ScenarioStatusResult} from '../app/scenario-actions'
import {renderTable} from './table'
import {type Terminal, paint} from './terminal'

const ratio = (done: number, total: number): string => `${done}/${total}`

export function renderScenarioStart(term: Terminal, r: ScenarioStartResult): string {
  const head = r.created ? `started scenario ${paint(term, 'bold', r.scenario)} (${r.ref})` : `scenario ${paint(term, 'bold', r.scenario)} already started as asked; nothing written`
  const rows = renderTable(
    term,
    [
      {header: 'MEMBER', cell: (m: ScenarioStartResult['members'][number]) => m.member},
      {header: 'ITEM', cell: (m) => m.item?.short_id ?? '(removed)', style: () => 'yellow'},
      {header: 'TASK', cell: (m) => m.task, flex: true, min: 16},
      {header: 'WAITS FOR', cell: (m) => m.depends_on.join(', ') || '—'},
    ],
    r.members,
  )
  return `${head}\n${rows}`
}

export function renderScenarioStatus(term: Terminal, r: ScenarioStatusResult): string {
  const head = `scenario ${paint(term, 'bold', r.scenario)}: ${ratio(r.done, r.total)} done, ${r.complete ? paint(term, 'green', 'complete') : 'not complete'}`
  const rows = renderTable(
    term,
    [
      {header: 'MEMBER', cell: (m: ScenarioStatusResult['members'][number]) => m.member},
      {header: 'ITEM', cell: (m) => m.short_id, style: () => 'yellow'},
      {header: 'STATE', cell: (m) => m.state, style: (m) => (m.complete ? 'green' : m.state === 'waiting' ? 'magenta' : undefined)},
      {header: 'DONE', cell: (m) => (m.tracked ? ratio(m.done, m.total) : '—')},
      {header: 'WAITING ON', cell: (m) => m.waiting_on.join(', ') || '—', style: (m) => (m.waiting_on.length ? 'magenta' : undefined)},
      {header: 'TASK', cell: (m) => m.title ?? '(seed removed)', flex: true, min: 16},
    ],
    r.members,
  )
  return `${head}\n${rows}`
}

export function renderScenarioList(term: Terminal, r: ScenarioListResult): string {
  let out = r.scenarios.length === 0 ? 'no scenarios\n' : renderTable(
    term,
    [
      {header: 'SCENARIO', cell: (s: ScenarioListResult['scenarios'][number]) => s.scenario, style: () => 'bold'},
      {header: 'DONE', cell: (s) => ratio(s.done, s.total)},
      {header: 'COMPLETE', cell: (s) => (s.complete ? 'yes' : 'no'), style: (s) => (s.complete ? 'green' : undefined)},
      {header: 'MEMBERS', cell: (s) => s.members.join(', '), flex: true, min: 12},
    ],
    r.scenarios,
  )
  for (const b of r.broken) out += `${paint(term, 'red', `unreadable: list ${b.list}: ${b.error}`)}\n`
  return out
}
