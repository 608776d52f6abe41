/**
 * `tasks blame`: the fields as a table (field, value, commit, actor, when,
 * op), then the description with each line prefixed by the commit and actor
 * that wrote it, as `git blame` prints a file. Input is exactly the --json
 * result; times in the local time zone with their offset (JSON keeps the
 * exact ISO time). And the compact document (docs/compact.md).
 */
import type {BlameResult} from '../app/blame-actions'
import type {FieldBlame, LineBlame} from '../core/blame'
import {CompactWriter} from './compact'
import {startDocument} from './compact-views'
import {fieldValueText} from './field-value'
import {localTime} from './history'
import {renderTable} from './table'
import {type Terminal, displayWidth, paint, truncate} from './terminal'


export function renderBlame(term: Terminal, r: BlameResult): string {
  const out: string[] = []
  const where = r.at ? `as of ${r.at.commit.slice(0, 10)} (${r.at.input}, ${localTime(r.at.date)})` : `list ${r.list}`
  out.push(`${paint(term, 'bold', r.task)}  ${paint(term, 'dim', where)}`)
  out.push(
    renderTable<FieldBlame>(
      term,
      [
        {header: 'FIELD', cell: (f) => f.field, shrink: 3, min: 13},
        {header: 'VALUE', cell: (f) => fieldValueText(f.field, f.value), flex: true, min: 12},
        {header: 'COMMIT', cell: (f) => f.commit.slice(0, 10), style: () => 'yellow'},
        {header: 'ACTOR', cell: (f) => f.actor, shrink: 2, min: 8},
        {header: 'WHEN', cell: (f) => localTime(f.date), shrink: 1, min: 11},
        {header: 'OP', cell: (f) => f.op, shrink: 4, min: 5},
      ],
      r.fields,
    ).trimEnd(),
  )
  if (r.description.length > 0) {
    out.push('', paint(term, 'bold', 'Description:'))
    const actorWidth = Math.min(16, Math.max(...r.description.map((l) => displayWidth(l.actor))))
    const numberWidth = String(r.description.length).length
    for (const l of r.description) out.push(descriptionLine(term, l, actorWidth, numberWidth))
  }
  return `${out.join('\n')}\n`
}

/** `abc1234567 (actor      2026-11-30 14:02 +01:00  3) text`, cut to the terminal's width (without the time on a narrow one). */
function descriptionLine(term: Terminal, l: LineBlame, actorWidth: number, numberWidth: number): string {
  const actor = displayWidth(l.actor) > actorWidth ? truncate(l.actor, actorWidth) : l.actor + ' '.repeat(actorWidth - displayWidth(l.actor))
  const n = String(l.line).padStart(numberWidth)
  const width = Number.isFinite(term.width) ? term.width : Number.POSITIVE_INFINITY
  // The time goes first when the terminal leaves the text less than 24 columns.
  const full = `${l.commit.slice(0, 10)} (${actor} ${localTime(l.date)} ${n}) `
  const prefix = width - displayWidth(full) >= 24 ? full : `${l.commit.slice(0, 10)} (${actor} ${n}) `
  const room = width - displayWidth(prefix)
  const text = room < displayWidth(l.text) ? truncate(l.text, Math.max(1, room)) : l.text
  return `${paint(term, 'yellow', l.commit.slice(0, 10))}${paint(term, 'dim', prefix.slice(10))}${text}`
}

/** `blame --format compact`: the fields table (a value that is not text as JSON), then the description's lines with their commits. */
export function compactBlame(r: BlameResult): string {
  const w: CompactWriter = startDocument('blame')
  w.scalar('list', r.list)
  w.scalar('task', r.task.replace(/^tsk-/, ''))
  w.scalar('at', r.at?.commit.slice(0, 12))
  w.scalar('commit', r.commit.slice(0, 12))
  w.scalar('walked', r.walked)
  const who: Array<readonly [string, (b: FieldBlame | LineBlame) => string]> = [
    ['commit', (b) => b.commit.slice(0, 12)],
    ['actor', (b) => b.actor],
    ['date', (b) => b.date],
    ['op', (b) => b.op],
  ]
  w.table<FieldBlame>('fields', [['field', (f) => f.field], ['value', (f) => (typeof f.value === 'string' ? f.value : JSON.stringify(f.value))], ...who], r.fields)
  w.table<LineBlame>('description', [['line', (l) => l.line], ...who, ['text', (l) => l.text]], r.description)
  return w.toString()
}
