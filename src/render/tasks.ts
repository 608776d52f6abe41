/**
 * Human renderings of task results. Input is exactly the --json result of a
 * command; output is text for a person. Nothing here reads state.
 */
import type {TaskDetail, TaskView} from '../core/task-view'
import type {HistoryEvent} from '../refstore/history'
import {renderTable} from './table'
import {type Style, type Terminal, paint, visible} from './terminal'

const STATUS_STYLE: Record<string, Style> = {todo: 'cyan', in_progress: 'yellow', blocked: 'red', done: 'green', cancelled: 'dim'}

/** The status a person wants to see: waiting and ready are derived states of todo. */
export function displayStatus(v: TaskView): string {
  if (v.status === 'todo') return v.waiting ? 'waiting' : v.ready ? 'ready' : v.assignee ? 'reserved' : 'todo'
  if (v.status === 'in_progress' && !v.claim_live) return 'stale'
  return v.status
}

function statusStyle(v: TaskView): Style | undefined {
  const s = displayStatus(v)
  return s === 'waiting' || s === 'stale' ? 'magenta' : s === 'ready' ? 'cyan' : STATUS_STYLE[v.status]
}

/** WHY BLOCKED: unfinished dependencies, or the block note. */
export function whyBlocked(v: TaskView, short: (id: string) => string): string {
  const parts: string[] = []
  if (v.blocked_by.length > 0) parts.push(v.blocked_by.map((b) => `${short(b.id)} ${b.status}`).join(', '))
  if (v.status === 'blocked' && v.block_note) parts.push(v.block_note)
  return parts.join('; ')
}

export interface ListRow {
  view: TaskView
  depth: number
}

export function renderTaskList(term: Terminal, rows: ListRow[], shortOf: (id: string) => string): string {
  if (rows.length === 0) return 'no tasks\n'
  const anyBlocked = rows.some((r) => whyBlocked(r.view, shortOf) !== '')
  const anyOwner = rows.some((r) => r.view.owner || r.view.assignee)
  return renderTable<ListRow>(
    term,
    [
      {header: 'ID', cell: (r) => (r.depth > 0 ? `└ ${r.view.short_id}` : r.view.short_id), style: () => 'yellow'},
      {header: 'P', cell: (r) => String(r.view.priority)},
      {header: 'STATUS', cell: (r) => displayStatus(r.view), style: (r) => statusStyle(r.view)},
      ...(anyOwner ? [{header: 'OWNER', cell: (r: ListRow) => r.view.owner ?? (r.view.assignee ? `→${r.view.assignee}` : '')}] : []),
      {header: 'TITLE', cell: (r) => (r.depth > 0 ? `  ${r.view.title}` : r.view.title) + (r.view.tags.length ? `  #${r.view.tags.join(' #')}` : ''), flex: true},
      ...(anyBlocked ? [{header: 'WHY BLOCKED', cell: (r: ListRow) => whyBlocked(r.view, shortOf), style: () => 'magenta' as Style}] : []),
    ],
    rows,
  )
}

export function renderTaskDetail(term: Terminal, d: TaskDetail): string {
  const t = d.task
  const lines: string[] = []
  lines.push(`${paint(term, 'yellow', t.id)}  ${paint(term, 'bold', t.title)}`)
  const field = (name: string, value: string | null | undefined) => {
    if (value) lines.push(`${paint(term, 'dim', `${name}:`.padEnd(12))}${value}`)
  }
  field('status', `${displayStatus(t)}${t.status !== displayStatus(t) ? ` (${t.status})` : ''}`)
  field('priority', String(t.priority))
  field('tags', t.tags.join(', '))
  field('parent', t.parent)
  field('assignee', t.assignee)
  if (t.owner) field('owner', `${t.owner} (epoch ${t.epoch}${t.lease_expires ? `, lease until ${t.lease_expires}${t.claim_live ? '' : ', expired'}` : ''})`)
  field('blocked', t.block_note)
  field('cancelled', t.cancel_reason)
  field('created', `${t.created_at} by ${t.created_by}`)
  field('updated', `${t.updated_at} by ${t.updated_by} (revision ${t.revision})`)
  field('closed', t.closed_at)
  const related = (title: string, items: TaskDetail['dependencies']) => {
    if (items.length === 0) return
    lines.push('', paint(term, 'bold', title))
    for (const i of items) lines.push(`  ${paint(term, 'yellow', i.short_id)}  ${i.status.padEnd(11)} ${i.title}`)
  }
  related('Depends on', d.dependencies)
  related('Needed by', d.dependents)
  related('Sub-items', d.subitems)
  if (d.body.trim()) lines.push('', d.body.trimEnd())
  if (d.comments.length > 0) {
    lines.push('', paint(term, 'bold', `Comments (${d.comments.length})`))
    for (const c of d.comments) {
      lines.push(`  ${paint(term, 'dim', `${c.created_at}  ${c.author}`)}  [${c.kind}]`)
      for (const l of c.body.split('\n')) lines.push(`    ${l}`)
    }
  }
  for (const b of d.broken) lines.push(paint(term, 'red', visible(`unreadable: ${b.path}: ${b.error}`)))
  return `${lines.join('\n')}\n`
}

/** One line about a task after a change: `claimed tsk-k3v9  Title`. */
export function renderTaskLine(term: Terminal, verb: string, t: TaskView, extra?: string): string {
  return `${verb} ${paint(term, 'yellow', t.short_id)}  ${t.title}${extra ? `  ${paint(term, 'dim', extra)}` : ''}\n`
}

export function renderEvents(term: Terminal, events: HistoryEvent[]): string {
  if (events.length === 0) return 'no history\n'
  return renderTable<HistoryEvent>(
    term,
    [
      {header: 'COMMIT', cell: (e) => e.commit.slice(0, 10), style: () => 'yellow'},
      {header: 'DATE', cell: (e) => e.date.replace('T', ' ').replace(/(:\d\d)[+-]\d\d:\d\d$|Z$/, '$1')},
      {header: 'ACTOR', cell: (e) => e.author},
      {header: 'EVENT', cell: (e) => e.subject, flex: true},
    ],
    events,
  )
}
