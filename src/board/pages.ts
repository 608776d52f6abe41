/**
 * The board's HTML, rendered on the server from the app layer's results.
 * Pure: values in, strings out. Every piece of text from the store goes
 * through `esc` (titles, tags, actors, comments) or the Markdown renderer
 * with raw HTML off (descriptions, comments), so nothing a task holds can
 * add markup or script. The pages load one script (/board.js, same origin);
 * the Content-Security-Policy the server sends forbids any other.
 */
import type {ListResult, ShowResult} from '../app/list-query'
import type {LogResult} from '../app/history-actions'
import type {TaskView} from '../core/task-view'
import type {State} from '../core/readiness'
import {describeDetails} from '../core/history-event'
import {movesOf} from './moves'

/** Escape text for HTML content and double-quoted attribute values. */
export function esc(text: unknown): string {
  return String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/** The kanban's columns and the states each one holds. */
export const COLUMNS: ReadonlyArray<{key: string; title: string; states: readonly State[]; empty: string}> = [
  {key: 'ready', title: 'Ready', states: ['ready', 'reserved'], empty: 'Nothing ready to start'},
  // Issue 33: deferred cards wait with the waiting ones; failed ones end with the done ones (marked).
  {key: 'waiting', title: 'Waiting', states: ['waiting', 'todo', 'deferred'], empty: 'Nothing waits on other work'},
  {key: 'in_progress', title: 'In progress', states: ['in_progress', 'stale'], empty: 'Nobody is on anything — drag a ready card here to claim it'},
  {key: 'blocked', title: 'Blocked', states: ['blocked'], empty: 'Nothing blocked'},
  {key: 'done', title: 'Done', states: ['done', 'failed'], empty: 'Nothing done yet — drop a finished card here'},
]

/** Cards a column shows at first; the rest come a page at a time ("more"). */
export const PAGE = 40

export interface BoardFilters {
  tag?: string
  owner?: string
  q?: string
}

export interface PageContext {
  list: string
  actor: string
  commit: string
  now: string
  /** Present when the request proved it holds the token: the page may act. */
  token: string | null
  /** What the list's reads warn about (behind the remote, unpublished commits). */
  notices?: string[]
  /** Set when the page shows a past state (`?at=WHEN`, docs/history.md "Time travel"): no actions then. */
  at?: {input: string; commit: string; date: string}
}

/**
 * A past page's links stay in the past: every address of a board page
 * (`/`, `/task/…`, `/column/…`, `/graph`, `/activity`) gets `at=` added; the
 * banner's "back to now" is the one link without it.
 */
function keepAt(html: string, at: {input: string}): string {
  const q = `at=${encodeURIComponent(at.input)}`
  return html.replace(/href="(\/(?:task\/[^"?#]*|column\/[^"?#]*|graph\.svg|graph|activity|export)?)(\?[^"#]*)?"/g, (_m, path: string, query: string | undefined) => `href="${path}${query ? `${query}&amp;${q}` : `?${q}`}"`)
}

function filtersQuery(f: BoardFilters): string {
  const p = new URLSearchParams()
  if (f.tag) p.set('tag', f.tag)
  if (f.owner) p.set('owner', f.owner)
  if (f.q) p.set('q', f.q)
  return p.toString()
}

/** The page around every view: header, navigation, the flash area for errors. */
export function layout(ctx: PageContext, title: string, view: string, main: string): string {
  const nav = [
    ['/', 'Board', 'board'],
    ['/graph', 'Graph', 'graph'],
    ['/activity', 'Activity', 'activity'],
  ]
    .map(([href, label, key]) => `<a href="${href}"${key === view ? ' class="current"' : ''}>${label}</a>`)
    .join('')
  const navLinks = ctx.at ? keepAt(nav, ctx.at) : nav
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · tasks board</title>
<meta name="board-token" content="${esc(ctx.token ?? '')}">
<link rel="stylesheet" href="/board.css">
<script src="/board.js" defer></script>
</head><body data-view="${esc(view)}">
<header><strong>tasks</strong> <span class="muted">${esc(ctx.list)} · as ${esc(ctx.actor)}</span><nav>${navLinks}</nav>
<span id="live" class="muted" title="updates when the list changes">live</span><button type="button" class="keys" data-shortcuts aria-label="keyboard shortcuts" title="keyboard shortcuts (?)">?</button></header>
<div id="flash" role="alert" hidden></div>
${ctx.at ? `<p class="notice past" id="past">viewing the list as of ${esc(ctx.at.date)} (commit ${esc(ctx.at.commit.slice(0, 7))}) — <a href="/" id="back-to-now">back to now</a>; nothing can be changed here</p>` : ctx.token ? '' : '<p class="notice">Read-only: open the address <code>tasks board</code> printed (it carries the token) to make changes.</p>'}
<main id="main" data-commit="${esc(ctx.commit)}">${(ctx.notices ?? []).map((n) => `<p class="notice">${esc(n)}</p>`).join('')}${ctx.at ? keepAt(main, ctx.at) : main}</main>
${SHORTCUTS_HELP}
</body></html>
`
}

/** The keyboard shortcuts (board.js handles them; never while typing in a field). */
export const SHORTCUTS: ReadonlyArray<[string, string]> = [
  ['j / k, ↓ / ↑', 'next / previous card in the column'],
  ['h / l, ← / →', 'the column to the left / right'],
  ['Enter', 'open the card'],
  ['c', 'claim the card'],
  ['d', 'mark the card done'],
  ['b', 'block the card (asks why)'],
  ['r', 'release or reopen the card (back to Ready)'],
  ['Shift + ← / →', 'move the card to the column on the left / right'],
  ['x', 'select the card (for the bulk actions)'],
  ['/', 'search: focus the filter'],
  ['n', 'new task: focus the add form'],
  ['g', 'the graph; a: the activity; Esc: back to the board'],
  ['?', 'show or hide this list'],
]

const SHORTCUTS_HELP = `<div id="shortcuts" class="shortcuts" role="dialog" aria-label="Keyboard shortcuts" hidden><div class="panel"><h2>Keyboard shortcuts</h2><dl>${SHORTCUTS.map(([k, v]) => `<dt><kbd>${esc(k)}</kbd></dt><dd>${esc(v)}</dd>`).join('')}</dl><p class="muted">Cards can also be dragged between columns: to In progress claims, to Done finishes, to Blocked asks why, back to Ready releases or reopens.</p><button type="button" data-shortcuts>Close</button></div></div>`

function leaseLeft(expires: string | null, now: string): string | null {
  if (!expires) return null
  const s = Math.round((Date.parse(expires) - Date.parse(now)) / 1000)
  if (s <= 0) return 'lease expired'
  if (s < 90) return `${s}s left`
  if (s < 5400) return `${Math.round(s / 60)}m left`
  return `${Math.round(s / 3600)}h left`
}

/** Fields other branches may add to a task view (flags, checks): shown when present, never required. */
function extraBadges(t: TaskView): string {
  const rec = t as unknown as Record<string, unknown>
  const out: string[] = []
  const flag = rec.flag ?? rec.flags
  if (typeof flag === 'string' && flag) out.push(`<span class="badge flag" title="flag">flag: ${esc(flag)}</span>`)
  else if (Array.isArray(flag)) for (const f of flag) out.push(`<span class="badge flag" title="flag">flag: ${esc(typeof f === 'string' ? f : JSON.stringify(f))}</span>`)
  const checks = rec.checks
  if (Array.isArray(checks)) {
    const pending = checks.filter((c) => !c || typeof c !== 'object' || !['pass', 'passed', 'ok'].includes(String((c as Record<string, unknown>).status ?? (c as Record<string, unknown>).state ?? '')))
    if (pending.length) out.push(`<span class="badge checks" title="checks not passed">checks: ${pending.length} pending</span>`)
  } else if (checks && typeof checks === 'object') {
    const pending = Number((checks as Record<string, unknown>).pending ?? 0)
    if (pending > 0) out.push(`<span class="badge checks" title="pending checks">checks: ${pending} pending</span>`)
  }
  return out.join('')
}

/** The buttons a card offers in its state. */
function actions(t: TaskView, ctx: PageContext): string {
  if (!ctx.token) return ''
  const b = (action: string, label: string) => `<button type="button" data-action="${action}" data-id="${esc(t.id)}">${label}</button>`
  const out: string[] = []
  // Claim where a claim can succeed (a person may still lose the race: the refusal is shown).
  if (t.state === 'ready' || t.state === 'stale') out.push(b('claim', 'Claim'))
  if (t.status === 'in_progress' || t.status === 'blocked') out.push(b('done', 'Done'))
  if (t.status === 'in_progress') out.push(b('block', 'Block'))
  if (t.status === 'done' || t.status === 'blocked' || t.status === 'failed' || t.status === 'deferred') out.push(b('reopen', 'Reopen'))
  return out.length ? `<div class="actions">${out.join('')}</div>` : ''
}

/** One card of the kanban. */
export function card(t: TaskView, ctx: PageContext): string {
  const badges: string[] = []
  badges.push(`<span class="badge prio p${t.priority}">P${t.priority}</span>`)
  for (const tag of t.tags) badges.push(`<span class="badge tag">#${esc(tag)}</span>`)
  if (t.state === 'reserved' && t.assignee) badges.push(`<span class="badge">reserved for ${esc(t.assignee)}</span>`)
  else if (t.assignee) badges.push(`<span class="badge">→ ${esc(t.assignee)}</span>`)
  if (t.state === 'stale') badges.push('<span class="badge warn">stale</span>')
  // Issue 33: due dates on cards (overdue ones marked), a deferral's date, a repeat, a failure.
  if (t.due) badges.push(`<span class="badge${t.overdue ? ' warn' : ''} due" title="due${t.overdue ? ', overdue' : ''}">${t.overdue ? 'overdue' : 'due'} ${esc(t.due.slice(0, 16).replace('T', ' '))}</span>`)
  if (t.state === 'deferred') badges.push(`<span class="badge" title="${esc(t.defer_reason ?? '')}">deferred${t.defer_until ? ` until ${esc(t.defer_until.slice(0, 16).replace('T', ' '))}` : ''}</span>`)
  if (t.every) badges.push(`<span class="badge" title="repeats">every ${esc(t.every)}</span>`)
  if (t.status === 'failed') badges.push(`<span class="badge flag" title="${esc(t.fail_reason ?? '')}">failed</span>`)
  if (t.blocked_by.length) badges.push(`<span class="badge deps" title="waits on ${esc(t.blocked_by.map((r) => r.id).join(', '))}">waits on ${t.blocked_by.length}</span>`)
  else if (t.depends_on.length) badges.push(`<span class="badge" title="dependencies (all done)">${t.depends_on.length} dep${t.depends_on.length === 1 ? '' : 's'} done</span>`)
  // A parent's progress (issue 33): its sub-items done, of those not cancelled.
  if (t.subitems.length) badges.push(`<span class="badge" title="sub-items done, of those not cancelled">${t.progress ? `${t.progress.done}/${t.progress.total}` : t.subitems.length} sub-item${t.subitems.length === 1 ? '' : 's'}${t.progress ? ' done' : ''}</span>`)
  const owner = t.owner ? `<span class="owner">${esc(t.owner)}${t.status === 'in_progress' && leaseLeft(t.lease_expires, ctx.now) ? ` · ${esc(leaseLeft(t.lease_expires, ctx.now))}` : ''}</span>` : ''
  const note = t.status === 'blocked' && t.block_note ? `<div class="note">${esc(t.block_note)}</div>` : ''
  // With the token the card can be selected for a bulk action (the toolbar above the columns).
  const select = ctx.token ? `<input type="checkbox" class="select" data-id="${esc(t.id)}" aria-label="select ${esc(t.short_id)}">` : ''
  // With the token a card can be dragged to another column (or moved with the keyboard): data-moves says what each column does.
  const drag = ctx.token ? ` draggable="true" data-moves="${esc(JSON.stringify(movesOf(t.status)))}"` : ''
  return `<article class="card state-${esc(t.state)}" data-id="${esc(t.id)}" data-short="${esc(t.short_id)}" data-status="${esc(t.status)}" tabindex="0"${drag}>
<div class="head"><span>${select}<a class="sid" href="/task/${esc(t.id)}">${esc(t.short_id)}</a></span>${owner}</div>
<a class="title" href="/task/${esc(t.id)}">${esc(t.title)}</a>
<div class="badges">${badges.join('')}${extraBadges(t)}</div>${note}${actions(t, ctx)}
</article>`
}

/** Rows of one column after filtering. */
export type Columns = Map<string, TaskView[]>

/** Sort the list's rows into the columns (filters applied). */
export function columnsOf(rows: readonly TaskView[], f: BoardFilters): Columns {
  const byState = new Map<State, string>()
  for (const c of COLUMNS) for (const s of c.states) byState.set(s, c.key)
  const q = f.q?.trim().toLowerCase()
  const tag = f.tag?.replace(/^#/, '').trim().toLowerCase()
  const owner = f.owner?.trim()
  const out: Columns = new Map(COLUMNS.map((c) => [c.key, []]))
  for (const t of rows) {
    const key = byState.get(t.state)
    if (!key) continue
    if (tag && !t.tags.some((x) => x.toLowerCase() === tag)) continue
    if (owner && t.owner !== owner && t.assignee !== owner) continue
    if (q && !`${t.id} ${t.title} ${t.tags.join(' ')}`.toLowerCase().includes(q)) continue
    out.get(key)!.push(t)
  }
  // Done: the most recently finished first.
  out.get('done')!.sort((a, b) => ((b.closed_at ?? b.updated_at) < (a.closed_at ?? a.updated_at) ? -1 : 1))
  return out
}

/** A page of a column's cards, and the "more" button when some are left. */
export function columnPage(key: string, cards: readonly TaskView[], offset: number, ctx: PageContext, f: BoardFilters): string {
  const page = cards.slice(offset, offset + PAGE)
  const left = cards.length - offset - page.length
  const more = left > 0 ? `<button type="button" class="more" data-column="${esc(key)}" data-offset="${offset + page.length}" data-filters="${esc(filtersQuery(f))}">${left} more</button>` : ''
  return page.map((t) => card(t, ctx)).join('\n') + more
}

/** The kanban: filters, the add form, one column per group of states; a next step when there is nothing to show. */
export function boardPage(ctx: PageContext, list: ListResult, cols: Columns, f: BoardFilters): string {
  const filtered = Boolean(f.q || f.tag || f.owner)
  const shown = [...cols.values()].reduce((n, c) => n + c.length, 0)
  const empty = list.tasks.length === 0 && list.broken.length === 0
  const filters = `<form class="filters" method="get" action="/" role="search">
<input name="q" id="filter-q" placeholder="filter (/)" aria-label="filter by text" value="${esc(f.q ?? '')}"><input name="tag" placeholder="tag" aria-label="tag" value="${esc(f.tag ?? '')}"><input name="owner" placeholder="owner" aria-label="owner" value="${esc(f.owner ?? '')}">
${ctx.at ? `<input type="hidden" name="at" value="${esc(ctx.at.input)}">` : ''}<button type="submit">Filter</button>${filtered ? ' <a href="/" data-clear-filter>clear</a>' : ''}</form>`
  const add = ctx.token
    ? `<form class="add" data-form="add" id="add"><input name="title" id="add-title" placeholder="New item title (n)" aria-label="new item title" required maxlength="500"${empty ? ' autofocus' : ''}><input name="tags" placeholder="tags (comma)" aria-label="tags"><select name="priority" aria-label="priority"><option>0</option><option>1</option><option selected>2</option><option>3</option><option>4</option></select><input name="acceptance" placeholder="acceptance check (optional)" aria-label="acceptance check" maxlength="16384"><input name="test" placeholder="test check (optional)" aria-label="test check" maxlength="16384"><button type="submit">Add</button></form>`
    : ''
  // Nothing to show: say why, and the one next step (add the first task, or clear the filter).
  let state = ''
  if (empty) {
    state = `<div class="empty-state" data-empty="list"><h2>No tasks yet — add one</h2><p>${ctx.token ? '<a href="#add-title" data-focus="add-title">Add the first task</a> with the form above, or' : 'Add one'} from a terminal: <code>tasks add "What needs doing"</code>. Agents pick up ready work with <code>tasks next</code>.</p></div>`
  } else if (filtered && shown === 0) {
    state = `<div class="empty-state" data-empty="filter"><h2>Nothing matches</h2><p>No card matches ${esc([f.q && `“${f.q}”`, f.tag && `#${f.tag.replace(/^#/, '')}`, f.owner && `owner ${f.owner}`].filter(Boolean).join(', '))}. <a href="/" data-clear-filter>Clear the filter</a> to see all ${list.tasks.length} card${list.tasks.length === 1 ? '' : 's'}.</p></div>`
  }
  const columns = COLUMNS.map((c) => {
    const cards = cols.get(c.key)!
    const hint = cards.length === 0 ? `<p class="empty-hint">${filtered ? 'None match the filter' : esc(c.empty)}</p>` : ''
    return `<section class="column" data-column="${c.key}" aria-label="${esc(c.title)}"><h2>${c.title} <span class="count">${cards.length}</span></h2><div class="cards">${hint}${columnPage(c.key, cards, 0, ctx, f)}</div></section>`
  }).join('\n')
  // Bulk actions on the selected cards: each is one commit, or nothing when a card is refused.
  const bulk = ctx.token
    ? `<div class="bulk" data-bulkbar hidden><span class="bulk-count">0 selected</span><button type="button" data-bulk="claim">Claim</button><button type="button" data-bulk="assign">Assign…</button><button type="button" data-bulk="tag">Tag…</button><button type="button" data-bulk="done">Done</button><button type="button" data-bulk="clear">Clear selection</button></div>`
    : ''
  const broken = list.broken.length ? `<p class="notice">${list.broken.length} unreadable card${list.broken.length === 1 ? '' : 's'} (see <code>tasks doctor</code>)</p>` : ''
  // The board reads one page of at most the list's list_limit rows (open states first): say when it stopped short.
  const capped = list.next_cursor ? `<p class="notice">showing the first ${list.tasks.length} of ${list.total} items (the list's list_limit); <code>tasks list --all --limit 0</code> lists them all</p>` : ''
  const tip = ctx.token && !empty ? '<p class="muted tip">Drag cards between columns, or press <kbd>?</kbd> for the keyboard.</p>' : ''
  return `<div class="toolbar">${filters}${add}<a href="/export" download>export</a></div>${bulk}${broken}${capped}${state}<div class="kanban" data-kanban>${columns}</div>${tip}`
}

function brief(items: ShowResult['dependencies']): string {
  if (items.length === 0) return '<p class="muted">none</p>'
  return `<ul>${items.map((b) => `<li><a href="/task/${esc(b.id)}">${esc(b.short_id)}</a> ${esc(b.title)} <span class="badge">${esc(b.status)}</span></li>`).join('')}</ul>`
}

/** What an event says, in one line. */
function eventLine(e: LogResult['events'][number], links: string | null): string {
  const details = describeDetails(e.details)
  // Subjects are "op tsk-…: title": say the op once, and the id as a link when there is one.
  let subject = e.subject.startsWith(`${e.op} `) ? e.subject.slice(e.op.length + 1) : e.subject
  const named = e.tasks.find((id) => subject.startsWith(`${id}: `))
  if (named && links !== null) subject = subject.slice(named.length + 2)
  const text = links === null ? '' : ` ${links} <span class="muted">${esc(subject)}</span>`
  return `${esc(e.op)}${text}${details ? ` · ${esc(details)}` : ''}`
}

function timeOf(iso: string): string {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').slice(0, 19)
}

/** The card page: fields, description, comments, neighbours, history; forms for the actions. */
export function taskPage(ctx: PageContext, d: ShowResult, history: LogResult, markdown: (text: string) => string): string {
  const t = d.task
  const fields: Array<[string, string]> = [
    ['state', t.state],
    ['priority', `P${t.priority}`],
    ['owner', t.owner ? `${t.owner}${t.status === 'in_progress' ? ` (epoch ${t.epoch})` : ''}` : '—'],
    ['lease', t.status === 'in_progress' || t.status === 'blocked' ? (leaseLeft(t.lease_expires, ctx.now) ?? 'no expiry') : '—'],
    ['assignee', t.assignee ?? '—'],
    ['tags', t.tags.map((x) => `#${x}`).join(' ') || '—'],
    ['parent', t.parent ?? '—'],
    ['created', `${timeOf(t.created_at)} by ${t.created_by}`],
    ['updated', `${timeOf(t.updated_at)} by ${t.updated_by}`],
  ]
  if (t.block_note) fields.push(['blocked', t.block_note])
  // Issue 33: dates, deferral, failure, repeat.
  if (t.due) fields.push(['due', `${t.due}${t.overdue ? ' (overdue)' : ''}`])
  if (t.scheduled) fields.push(['scheduled', t.scheduled])
  if (t.defer_reason || t.defer_until) fields.push(['deferred', [t.defer_until ? `until ${t.defer_until}` : '', t.defer_reason ?? ''].filter(Boolean).join(': ')])
  if (t.fail_reason) fields.push(['failed', t.fail_reason])
  if (t.every) fields.push(['repeats', `every ${t.every}${t.previous ? `, after ${t.previous}` : ''}`])
  // Issue 33: custom fields (keys are lowercase identifiers, checked by the schema; values escaped like every field).
  for (const k of Object.keys(t.fields ?? {}).sort()) fields.push([k, String(t.fields[k])])
  const comments = d.comments.length
    ? d.comments.map((c) => `<div class="comment kind-${esc(c.kind)}"><div class="muted">${esc(c.author)} · ${esc(c.kind)} · ${esc(timeOf(c.created_at))}</div><div class="md">${markdown(c.body)}</div></div>`).join('')
    : '<p class="muted">No comments yet.</p>'
  const events = history.events.map((e) => `<li><span class="muted">${esc(timeOf(e.date))}</span> <strong>${esc(e.actor)}</strong> ${eventLine(e, null)}</li>`).join('')
  const buttons = ctx.token ? `<div class="actions big">${actions(t, ctx).replace(/^<div class="actions">|<\/div>$/g, '')}<button type="button" data-action="assign" data-id="${esc(t.id)}">Assign…</button></div>` : ''
  const composer = ctx.token
    ? `<form data-form="comment" data-id="${esc(t.id)}" class="composer"><textarea name="text" rows="3" placeholder="Add to the thread (Markdown)" aria-label="comment" required></textarea><button type="submit">Comment</button></form>`
    : ''
  const editor = ctx.token
    ? `<details class="edit"><summary>Edit the card</summary><form data-form="edit" data-id="${esc(t.id)}" data-revision="${t.revision}">
<label>Title <input name="title" value="${esc(t.title)}" maxlength="500"></label>
<label>Priority <input name="priority" type="number" min="0" max="4" value="${t.priority}"></label>
<label>Description <textarea name="body" rows="8">${esc(d.body)}</textarea></label><button type="submit">Save</button></form></details>`
    : ''
  const broken = d.broken.length ? `<p class="notice">${d.broken.map((b) => esc(`${b.path}: ${b.error}`)).join('<br>')}</p>` : ''
  const live = d.checks.filter((c) => c.status !== 'superseded')
  const checks = live.length
    ? `<ul class="checks">${live.map((c) => `<li class="check check-${esc(c.status)}"><span class="badge ${c.status === 'passed' ? 'ok' : c.status === 'failed' ? 'flag' : 'warn'}">${esc(c.status)}</span> <span class="muted">${esc(c.kind)}</span> ${esc(c.text)}${c.evidence ? `<div class="muted evidence">${esc(c.evidence)}</div>` : ''}</li>`).join('')}</ul>`
    : '<p class="muted">none</p>'
  // The side column: what the card is (properties), then its place in the plan (checks, dependencies, sub-items).
  const side = `<aside class="side" aria-label="properties">${buttons}<div class="props">
<dl class="fields">${fields.map(([k, v]) => `<dt>${k}</dt><dd>${k === 'parent' && t.parent ? `<a href="/task/${esc(t.parent)}">${esc(v)}</a>` : esc(v)}</dd>`).join('')}${extraBadges(t) ? `<dt>marks</dt><dd>${extraBadges(t)}</dd>` : ''}</dl>
<h2>Checks</h2>${checks}
<h2>Depends on</h2>${brief(d.dependencies)}
<h2>Dependents</h2>${brief(d.dependents)}
<h2>Sub-items</h2>${brief(d.subitems)}
</div></aside>`
  return `<article class="task state-${esc(t.state)}" data-id="${esc(t.id)}">
<p class="crumbs"><a href="/">← board</a></p>
<h1><span class="sid">${esc(t.short_id)}</span> ${esc(t.title)}</h1>
<p class="muted">${esc(t.id)}</p>${broken}
<div class="task-layout">
<div class="task-main">
<section class="description-section"><h2>Description</h2><div class="md description">${d.body.trim() ? markdown(d.body) : '<p class="muted">no description</p>'}</div></section>
<section class="thread" aria-label="comments"><h2>Thread <span class="count">${d.comments.length}</span></h2>${comments}</section>
${composer}
${editor}
<details class="history-section"><summary>History <span class="count">${history.events.length}</span></summary><ul class="history">${events || '<li class="muted">no events</li>'}</ul></details>
</div>
${side}
</div>
</article>`
}

/** The activity timeline: the list's recent events, newest first. */
export function activityPage(log: LogResult, shortIds: ReadonlyMap<string, string>): string {
  const rows = log.events
    .map((e) => {
      const tasks = e.tasks.map((id) => `<a href="/task/${esc(id)}">${esc(shortIds.get(id) ?? id)}</a>`).join(' ')
      return `<li><span class="muted">${esc(timeOf(e.date))}</span> <strong>${esc(e.actor)}</strong> ${eventLine(e, tasks)}</li>`
    })
    .join('\n')
  return `<h1>Activity</h1><ul class="timeline">${rows || '<li class="muted">nothing yet</li>'}</ul>`
}
