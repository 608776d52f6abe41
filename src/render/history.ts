/**
 * Human renderings of `tasks log`, `tasks restore` and `tasks config`.
 * Input is exactly the --json result; times are shown in the local time
 * zone with its offset (JSON keeps the exact ISO time).
 */
import type {LogResult, RestoreOutput} from '../app/history-actions'
import type {ConfigChangeResult, ConfigListResult, ConfigSetting} from '../app/config-actions'
import {describeDetails} from '../core/history-event'
import type {SpecRevision} from '../core/spec-revisions'
import {renderTable} from './table'
import {type Terminal, paint} from './terminal'

const pad = (n: number) => String(n).padStart(2, '0')

/** `2026-11-30 14:02 +01:00`: an ISO time in this machine's time zone (TZ), with the offset. */
export function localTime(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  const offset = -d.getTimezoneOffset()
  const sign = offset < 0 ? '-' : '+'
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())} ${zone}`
}

type Event = LogResult['events'][number]

/** The log as a table: commit, local time, actor, and the event with what its trailers say. */
export function renderLog(term: Terminal, r: LogResult): string {
  if (r.events.length === 0) return r.task ? `no history for ${r.task}${r.removed ? ' (removed)' : ''}\n` : 'no history\n'
  const head = r.task && r.removed ? `${paint(term, 'dim', `${r.task} is no longer in the list; \`tasks restore ${r.task}\` brings it back`)}\n` : ''
  return (
    head +
    renderTable<Event>(
      term,
      [
        {header: 'COMMIT', cell: (e) => e.commit.slice(0, 10), style: () => 'yellow'},
        {header: 'DATE', cell: (e) => (e.initial ? '(init)' : localTime(e.date))},
        {header: 'ACTOR', cell: (e) => e.actor, shrink: 1, min: 8},
        {header: 'EVENT', cell: (e) => eventText(e), flex: true, min: 20},
      ],
      r.events,
    )
  )
}

/** `show --revisions`: each spec revision, oldest first, with what changed from what to what. */
export function renderRevisions(term: Terminal, revisions: readonly SpecRevision[]): string {
  if (revisions.length === 0) return '  none\n'
  const shown = (v: unknown): string => {
    if (v === null || v === undefined) return '(none)'
    if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 79)}…` : v)
    if (Array.isArray(v)) return v.length ? v.join(' ') : '(none)'
    const c = v as {kind?: string; text?: string; status?: string; reason?: string | null}
    return `${c.status ?? ''} ${c.kind ?? ''} ${JSON.stringify(c.text ?? '')}${c.reason ? ` (${c.reason})` : ''}`.trim()
  }
  const lines: string[] = []
  for (const r of revisions) {
    const why = r.reason ? `  ${r.forced ? 'override' : 'reason'}: ${r.reason}` : ''
    lines.push(`  ${paint(term, 'bold', `r${r.revision}`)}  ${localTime(r.date)}  ${r.actor}  ${r.op}  ${paint(term, 'yellow', r.commit.slice(0, 10))}${why}`)
    for (const c of r.changes) lines.push(`      ${c.field}${c.check ? ` ${c.check}` : ''}: ${shown(c.before)} → ${shown(c.after)}`)
  }
  return `${lines.join('\n')}\n`
}

function eventText(e: Event): string {
  const detail = describeDetails(e.details)
  return detail ? `${e.subject}  (${detail})` : e.subject
}

export function renderRestore(term: Terminal, r: RestoreOutput): string {
  const lines = r.restored.map((t, i) => `${i === 0 ? 'restored' : '  with sub-item'} ${paint(term, 'yellow', t.short_id)}  ${t.title}`)
  if (r.comments > 0) lines.push(`  with ${r.comments} comment${r.comments === 1 ? '' : 's'}`)
  for (const d of r.dropped_dependencies) lines.push(paint(term, 'magenta', `  dropped the dependency of ${d.id} on ${d.dependency}: it is no longer in the list`))
  lines.push(paint(term, 'dim', `  as it was before ${r.removed_in.slice(0, 10)} removed it`))
  return `${lines.join('\n')}\n`
}

/** A notify rule's roles or a declared field's type, as text. */
function textOf(v: string | string[] | undefined): string {
  return v === undefined ? '' : typeof v === 'string' ? v : v.join(',')
}

function valueText(v: ConfigSetting['value']): string {
  // notify: one `event: roles` pair per event, `*` last.
  if (typeof v === 'object' && !Array.isArray(v)) {
    const events = Object.keys(v).sort((a, b) => (a === '*' ? 1 : b === '*' ? -1 : a < b ? -1 : 1))
    // fields (issue 33): `key: type` per declared field.
    return events.map((e) => `${e}: ${textOf(v[e]) || 'none'}`).join('; ') || '(none)'
  }
  return Array.isArray(v) ? v.join(',') || '(none)' : String(v)
}

export function renderConfigList(term: Terminal, r: ConfigListResult): string {
  const rows = r.settings.map((s) => `${s.key.padEnd(20)} ${valueText(s.value)}${s.default ? paint(term, 'dim', '  (default)') : ''}`)
  for (const [k, v] of Object.entries(r.other)) rows.push(`${k.padEnd(20)} ${JSON.stringify(v)}${paint(term, 'dim', '  (not used by this version)')}`)
  return `${rows.join('\n')}\n`
}

export function renderConfigGet(_term: Terminal, r: ConfigSetting): string {
  return `${valueText(r.value)}\n`
}

export function renderConfigChange(term: Terminal, r: ConfigChangeResult): string {
  if (typeof r.value === 'object' && !Array.isArray(r.value)) {
    // notify: only the events that changed.
    // notify (and fields, issue 33: field.KEY = TYPE): only the entries that changed.
    const before = (typeof r.previous === 'object' && !Array.isArray(r.previous) ? r.previous : {}) as Record<string, string | string[]>
    const after = r.value as Record<string, string | string[]>
    const prefix = r.key === 'fields' ? 'field' : r.key
    const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((e) => textOf(before[e]) !== textOf(after[e])).sort()
    if (r.commit === null || changed.length === 0) return `${r.key} unchanged  ${paint(term, 'dim', '(unchanged)')}\n`
    return changed.map((e) => `${prefix}.${e} = ${textOf(after[e]) || 'none'}  ${paint(term, 'dim', `(was ${textOf(before[e]) || 'none'})`)}`).join('\n') + '\n'
  }
  const now = `${r.key} = ${valueText(r.value)}${r.default ? ' (default)' : ''}`
  if (r.commit === null) return `${now}  ${paint(term, 'dim', '(unchanged)')}\n`
  return `${now}  ${paint(term, 'dim', `(was ${valueText(r.previous)})`)}\n`
}
