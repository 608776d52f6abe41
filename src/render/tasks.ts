/**
 * Human renderings of task results. Input is exactly the --json result of a
 * command; output is text for a person. Nothing here reads state.
 */
import type {TaskDetail, TaskView} from '../core/task-view'
import type {ListResult} from '../app/list-query'
import {renderTable} from './table'
import {type Style, type Terminal, paint, truncate, visible} from './terminal'
import {STATES} from '../core/readiness'

const STATUS_STYLE: Record<string, Style> = {todo: 'cyan', in_progress: 'yellow', blocked: 'red', done: 'green', cancelled: 'dim', deferred: 'dim', failed: 'red'}

/** The status a person sees: the state (ready, waiting, reserved, stale… refine the stored status). */
export function displayStatus(v: TaskView): string {
  return v.state
}

function statusStyle(v: TaskView): Style | undefined {
  const s = displayStatus(v)
  return s === 'waiting' || s === 'stale' ? 'magenta' : s === 'ready' ? 'cyan' : STATUS_STYLE[v.status]
}

/**
 * WHY BLOCKED, short enough for a table: the first thing waited on with its
 * title when known ("tsk-e9w1 todo: Design the claim API"), "+2 more" when
 * there are others, and a blocked item's note.
 */
export function whyBlocked(v: TaskView, short: (id: string) => string, title: (id: string) => string | undefined = () => undefined): string {
  const parts: string[] = []
  const [first, ...rest] = v.blocked_by
  if (first) {
    const name = title(first.id)
    const head = `${short(first.id)} ${first.status}${first.via ? ` (parent ${short(first.via)})` : ''}`
    parts.push(rest.length > 0 ? `${head} +${rest.length} more` : name ? `${head}: ${name}` : head)
  }
  if (v.status === 'blocked' && v.block_note) parts.push(v.blocked_on ? `${v.block_note} (on ${v.blocked_on})` : v.block_note)
  // Issue 33: a deferral's date and reason; a missed due date.
  if (v.state === 'deferred') parts.push(`deferred${v.defer_until ? ` until ${v.defer_until}` : ''}${v.defer_reason ? `: ${v.defer_reason}` : ''}`)
  if (v.overdue) parts.push(`overdue (due ${v.due})`)
  return parts.join('; ')
}

/** An actor as a table shows it: the local part of an email address. */
export function shortActor(actor: string): string {
  const at = actor.indexOf('@')
  return at > 0 ? actor.slice(0, at) : actor
}

/** A parent's sub-items done of total, `  [2/5]` after its title; '' for an item without sub-items. */
export function progressText(v: Pick<TaskView, 'progress'>): string {
  return v.progress ? `  [${v.progress.done}/${v.progress.total}]` : ''
}

export interface ListRow {
  view: TaskView
  depth: number
}

/**
 * The list table. When it is too wide for the terminal, WHY BLOCKED gives
 * up width first, then OWNER; the title shrinks last.
 */
export function renderTaskList(term: Terminal, rows: ListRow[], shortOf: (id: string) => string, titleOf: (id: string) => string | undefined = () => undefined): string {
  if (rows.length === 0) return 'no tasks\n'
  const anyBlocked = rows.some((r) => whyBlocked(r.view, shortOf) !== '')
  const anyOwner = rows.some((r) => r.view.owner || r.view.assignee)
  return renderTable<ListRow>(
    term,
    [
      // The table folds runs of spaces: a deeper sub-item is marked by one more └.
      {header: 'ID', cell: (r) => (r.depth > 0 ? `${'└'.repeat(r.depth)} ${r.view.short_id}` : r.view.short_id), style: () => 'yellow'},
      {header: 'P', cell: (r) => String(r.view.priority)},
      {header: 'STATUS', cell: (r) => displayStatus(r.view), style: (r) => statusStyle(r.view)},
      ...(anyOwner ? [{header: 'OWNER', cell: (r: ListRow) => (r.view.owner ? shortActor(r.view.owner) : r.view.assignee ? `→${shortActor(r.view.assignee)}` : ''), shrink: 2, min: 6}] : []),
      {header: 'TITLE', cell: (r) => (r.depth > 0 ? `  ${r.view.title}` : r.view.title) + progressText(r.view) + (r.view.type !== 'task' ? `  [${r.view.type}]` : '') + (r.view.tags.length ? `  #${r.view.tags.join(' #')}` : ''), flex: true, min: 24},
      ...(anyBlocked ? [{header: 'WHY BLOCKED', cell: (r: ListRow) => whyBlocked(r.view, shortOf, titleOf), style: () => 'magenta' as Style, shrink: 1, min: 12}] : []),
    ],
    rows,
  )
}

const STATE_WORDS: Record<string, string> = {in_progress: 'in progress'}

/** "31 open: 12 ready, 9 waiting, 10 in progress; 40 finished (done, cancelled or failed) hidden, --all to show". */
export function listSummary(r: ListResult): string {
  const counts = STATES.filter((st) => (r.summary.by_state[st] ?? 0) > 0).map((st) => `${r.summary.by_state[st]} ${STATE_WORDS[st] ?? st}`)
  const what = r.summary.hidden_finished === null ? 'shown' : 'open'
  let line = `${r.total} ${what}${counts.length ? `: ${counts.join(', ')}` : ''}`
  if (r.summary.hidden_finished) line += `; ${r.summary.hidden_finished} finished hidden, --all to show`
  if (r.tasks.length < r.total) {
    line += `; rows ${r.tasks.length ? `${r.offset + 1}–${r.offset + r.tasks.length}` : 'none'} of ${r.total}`
    if (r.offset + r.tasks.length < r.total) line += `, --offset ${r.offset + r.tasks.length} for more`
  }
  return line
}

/** \`tasks list\` for a person: the table, the summary line, unreadable files and warnings. */
export function renderListResult(term: Terminal, r: ListResult): string {
  const short = new Map(r.tasks.map((t) => [t.id, t.short_id]))
  const titles = new Map(r.tasks.map((t) => [t.id, t.title]))
  let out = r.tasks.length === 0 && r.total === 0 ? 'no tasks\n' : renderTaskList(term, r.tasks.map((view) => ({view, depth: view.depth})), (id) => short.get(id) ?? id.slice(0, 8), (id) => titles.get(id))
  out += `${paint(term, 'dim', Number.isFinite(term.width) ? truncate(listSummary(r), term.width) : listSummary(r))}\n`
  for (const b of r.broken) out += `${paint(term, 'red', visible(`unreadable: ${b.path}: ${b.error}`))}\n`
  for (const w of r.warnings) out += `${paint(term, 'red', `warning: ${w}`)}\n`
  return out
}

export function renderTaskDetail(term: Terminal, d: TaskDetail): string {
  const t = d.task
  const lines: string[] = []
  lines.push(`${paint(term, 'yellow', t.id)}  ${paint(term, 'bold', t.title)}`)
  const field = (name: string, value: string | null | undefined) => {
    if (value) lines.push(`${paint(term, 'dim', `${name}:`.padEnd(12))}${value}`)
  }
  field('status', `${displayStatus(t)}${t.status !== displayStatus(t) ? ` (${t.status})` : ''}`)
  field('type', t.type)
  field('priority', String(t.priority))
  field('tags', t.tags.join(', '))
  field('parent', t.parent)
  if (t.progress) field('progress', `${t.progress.done}/${t.progress.total} sub-items done`)
  field('assignee', t.assignee)
  if (t.owner) field('owner', `${t.owner} (epoch ${t.epoch}${t.lease_expires ? `, lease until ${t.lease_expires}${t.claim_live ? '' : ', expired'}` : ''})`)
  field('session', t.session)
  field('flagged', t.flag ? `${t.flag.reason}${t.flag.by ? ` (by ${t.flag.by}${t.flag.at ? `, ${t.flag.at}` : ''})` : ''}` : null)
  field('blocked', t.block_note)
  field('waits on', t.blocked_on)
  field('cancelled', t.cancel_reason)
  // Issue 33: states and dates.
  field('deferred', t.defer_reason || t.defer_until ? [t.defer_until ? `until ${t.defer_until}` : '', t.defer_reason ?? ''].filter(Boolean).join(': ') : null)
  field('failed', t.fail_reason)
  field('due', t.due ? `${t.due}${t.overdue ? ' (overdue)' : ''}` : null)
  field('scheduled', t.scheduled)
  field('repeats', t.every ? `every ${t.every}` : null)
  field('previous', t.previous)
  field('created', `${t.created_at} by ${t.created_by}`)
  field('updated', `${t.updated_at} by ${t.updated_by} (revision ${t.revision})`)
  field('closed', t.closed_at)
  // Issue 33: custom fields, one KEY=VALUE a line, keys in order.
  Object.keys(t.fields ?? {}).sort().forEach((k, i) => {
    const v = t.fields[k]!
    lines.push(`${paint(term, 'dim', (i === 0 ? 'fields:' : '').padEnd(12))}${k}=${typeof v === 'string' ? v : String(v)}`)
  })
  if (d.checkpoint) {
    // Where the last holder stopped: before the graph and the text, as a resuming agent or person needs it first.
    const c = d.checkpoint
    lines.push('', paint(term, 'bold', `Checkpoint  ${paint(term, 'dim', `${c.created_at}  ${c.author}${c.session ? `  session ${c.session}` : ''}`)}`))
    for (const l of c.body.split('\n')) lines.push(`  ${l}`)
    if (c.next) lines.push(...c.next.split('\n').map((l, i) => `${i === 0 ? '  next: ' : '        '}${l}`))
  }
  const related = (title: string, items: TaskDetail['dependencies']) => {
    if (items.length === 0) return
    lines.push('', paint(term, 'bold', title))
    for (const i of items) lines.push(`  ${paint(term, 'yellow', i.short_id)}  ${i.status.padEnd(11)} ${i.title}`)
  }
  related('Depends on', d.dependencies)
  related('Needed by', d.dependents)
  related(`Sub-items${progressText(t)}`, d.subitems)
  if (d.body.trim()) lines.push('', d.body.trimEnd())
  if (d.checks.length > 0) {
    lines.push('', paint(term, 'bold', `Checks (${d.checks.length})`))
    for (const c of d.checks) {
      lines.push(`  ${paint(term, 'dim', c.id)}  ${c.status.padEnd(10)} ${c.kind.padEnd(10)} ${c.text}`)
      if (c.evidence) for (const l of c.evidence.split('\n')) lines.push(`    ${l}`)
    }
  }
  if (d.comments.length > 0) {
    lines.push('', paint(term, 'bold', `Comments (${d.comments.length})`))
    for (const c of d.comments) {
      lines.push(`  ${paint(term, 'dim', `${c.created_at}  ${c.author}`)}  [${c.kind}]`)
      for (const l of c.body.split('\n')) lines.push(`    ${l}`)
      if (c.next) for (const [i, l] of c.next.split('\n').entries()) lines.push(`    ${i === 0 ? 'next: ' : '      '}${l}`)
    }
  }
  for (const b of d.broken) lines.push(paint(term, 'red', visible(`unreadable: ${b.path}: ${b.error}`)))
  return `${lines.join('\n')}\n`
}

/** One line about a task after a change: `claimed tsk-k3v9  Title`. */
export function renderTaskLine(term: Terminal, verb: string, t: TaskView, extra?: string): string {
  return `${verb} ${paint(term, 'yellow', t.short_id)}  ${t.title}${extra ? `  ${paint(term, 'dim', extra)}` : ''}\n`
}
