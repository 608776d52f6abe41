/**
 * `tasks diff` for people (the standup report) and in the compact format.
 * Input is exactly the --json result (core/list-diff.ts `ListDiff`).
 */
import type {CardDiff, ListDiff} from '../core/list-diff'
import {fieldValueText} from './field-value'
import {CompactWriter} from './compact'
import {COMPACT_VERSION} from './compact-views'
import {localTime} from './history'
import {type Part, type Style, type Terminal, paintedLine} from './terminal'

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`


/** The summary line: counts of cards, checks and comments. */
export function diffSummary(r: ListDiff): string {
  const s = r.summary
  const cards = [s.added && `${s.added} added`, s.removed && `${s.removed} removed`, s.changed && `${s.changed} changed`].filter(Boolean).join(', ')
  const checks = [s.checks_added && `${plural(s.checks_added, 'check')} added`, s.checks_passed && `${s.checks_passed} passed`, s.checks_failed && `${s.checks_failed} failed`].filter(Boolean).join(', ')
  const parts = [cards ? `${plural(s.added + s.removed + s.changed, 'card')}: ${cards}` : 'no card changed', checks, s.comments ? plural(s.comments, 'comment') : ''].filter(Boolean)
  return parts.join(' · ')
}

function point(p: ListDiff['from']): string {
  return `${localTime(p.date)} (${p.commit.slice(0, 10)})`
}

const MARK: Record<CardDiff['change'], [string, Style]> = {added: ['+', 'green'], removed: ['-', 'red'], changed: ['~', 'yellow']}

/** Fields shown for an added card (the rest of its values are in --json). */
const ADDED_SHOWN = new Set(['status', 'type', 'priority', 'tags', 'parent', 'depends_on', 'assignee', 'owner', 'due', 'scheduled'])

/** The standup report: a heading, the summary, then each card with its changes, indented. */
export function renderDiff(term: Terminal, r: ListDiff): string {
  const width = Number.isFinite(term.width) ? Math.max(40, term.width) : Number.POSITIVE_INFINITY
  const put = (...parts: Part[]) => lines.push(paintedLine(term, width, parts))
  const lines: string[] = []
  const who = r.actors ? ` by ${r.actors.join(', ')}` : ''
  put([`${r.list}: from ${point(r.from)} to ${point(r.to)}${who}`, 'bold'])
  put([diffSummary(r), null])
  for (const c of r.cards) {
    lines.push('')
    const [mark, style] = MARK[c.change]
    put([mark, style], [' ', null], [c.short_id, 'yellow'], [`  ${c.title}`, null], [c.change === 'changed' ? '' : `  (${c.change})`, 'dim'])
    if (c.change === 'added') {
      const shown = c.fields.filter((f) => (ADDED_SHOWN.has(f.field) || f.field.startsWith('fields.')) && !(Array.isArray(f.after) && f.after.length === 0))
      if (shown.length) put([`    ${shown.map((f) => `${f.field}: ${fieldValueText(f.field, f.after, 30)}`).join(' · ')}`, null])
    } else if (c.change === 'changed') {
      for (const f of c.fields) {
        if (f.field !== 'description') {
          put([`    ${f.field}: ${fieldValueText(f.field, f.before, 60)} → ${fieldValueText(f.field, f.after, 60)}`, null])
          continue
        }
        put(['    description:', null])
        for (const l of f.diff ?? []) put(['      ', null], [l, l.startsWith('@@') ? 'cyan' : l.startsWith('+') ? 'green' : l.startsWith('-') ? 'red' : null])
      }
    }
    for (const k of c.checks) {
      const by = k.by ? ` by ${k.by}` : ''
      const evidence = k.evidence && (k.event === 'passed' || k.event === 'failed') ? `: ${fieldValueText('evidence', k.evidence, 50)}` : ''
      const now = k.event === 'added' && k.after !== 'pending' && k.after !== null ? ` (now ${k.after})` : ''
      put(['    check ', null], [k.event, k.event === 'passed' ? 'green' : k.event === 'failed' ? 'red' : 'dim'], [`${now}${by}  ${JSON.stringify(fieldValueText('text', k.text, 60))}${evidence}`, null])
    }
    if (c.comments.length) {
      const authors = [...new Set(c.comments.map((m) => m.author))].join(', ')
      put([`    ${plural(c.comments.length, 'comment')} (${authors})`, null])
      for (const m of c.comments.slice(0, 3)) put([`      ${m.author}: ${m.first_line}`, null])
      if (c.comments.length > 3) put([`      … ${c.comments.length - 3} more`, 'dim'])
    }
  }
  for (const b of r.broken) put([`unreadable: ${b.path}: ${b.error}`, 'magenta'])
  return `${lines.join('\n')}\n`
}

/** `diff --format compact`: the window, the summary, one row per card, and its fields, checks and comments as tables. */
export function compactDiff(r: ListDiff): string {
  const w = new CompactWriter()
  w.comment(`git-tasks compact ${COMPACT_VERSION}: diff (docs/compact.md; ids without tsk-)`)
  const id = (x: string) => x.replace(/^tsk-/, '')
  w.scalar('list', r.list)
  w.scalar('from', r.from.commit.slice(0, 12))
  w.scalar('from_date', r.from.date)
  w.scalar('to', r.to.commit.slice(0, 12))
  w.scalar('to_date', r.to.date)
  w.scalar('actors', r.actors ?? undefined)
  for (const [k, v] of Object.entries(r.summary)) w.scalar(k, v === 0 ? undefined : v)
  w.table<CardDiff>('cards', [['id', (c) => id(c.short_id)], ['change', (c) => c.change], ['title', (c) => c.title]], r.cards)
  const value = (v: unknown): string | undefined => (v === undefined ? undefined : typeof v === 'string' ? v : JSON.stringify(v))
  const fields = r.cards.flatMap((c) => c.fields.filter((f) => f.field !== 'description').map((f) => ({card: c, f})))
  w.table<(typeof fields)[number]>('fields', [['id', (x) => id(x.card.short_id)], ['field', (x) => x.f.field], ['before', (x) => value(x.f.before)], ['after', (x) => value(x.f.after)]], fields)
  const checks = r.cards.flatMap((c) => c.checks.map((k) => ({card: c, k})))
  w.table<(typeof checks)[number]>('checks', [['id', (x) => id(x.card.short_id)], ['check', (x) => x.k.id], ['event', (x) => x.k.event], ['before', (x) => x.k.before], ['after', (x) => x.k.after], ['by', (x) => x.k.by], ['text', (x) => x.k.text], ['evidence', (x) => x.k.evidence]], checks)
  const comments = r.cards.flatMap((c) => c.comments.map((m) => ({card: c, m})))
  w.table<(typeof comments)[number]>('comments', [['id', (x) => id(x.card.short_id)], ['author', (x) => x.m.author], ['kind', (x) => x.m.kind], ['created_at', (x) => x.m.created_at], ['first_line', (x) => x.m.first_line]], comments)
  for (const c of r.cards) {
    const d = c.fields.find((f) => f.field === 'description')
    if (d?.diff?.length) w.text(`description_${id(c.short_id).replace(/[^a-z0-9_]/g, '_')}`, d.diff.join('\n'))
  }
  w.table<ListDiff['broken'][number]>('broken', [['path', (b) => b.path], ['error', (b) => b.error]], r.broken)
  return w.toString()
}
