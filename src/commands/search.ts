import type {SearchOutput} from '../app/search'
import type {SessionHit} from '../app/work-session-actions'
import type {Terminal} from '../render/terminal'
import {engine} from './engine-loader'
import {search} from '../operations/history'
import {commandFrom} from './from-spec'
import {atHeading} from './at-heading'

export default commandFrom<SearchOutput & {sessions: SessionHit[]}>(search, {
  render: (r, term) => atHeading(r) + found(r, term),
})

function found(r: SearchOutput & {sessions: SessionHit[]}, term: Terminal): string {
  const sessions = r.sessions.map((h) => `session ${h.session.id}  ${h.session.state}  ${engine().neutralize(h.session.title)}`)
  if (r.results.length === 0) return `no task matches "${r.query}"\n${sessions.map((l) => `${l}\n`).join('')}`
  const e = engine()
  const lines: string[] = []
  for (const hit of r.results) {
    lines.push(e.render.renderTaskLine(term, hit.task.state, hit.task).trimEnd())
    if (hit.snippet && hit.snippet.field !== 'title') lines.push(`    ${hit.snippet.field}: ${hit.snippet.text}`)
  }
  lines.push(...sessions)
  lines.push(`${r.total} match${r.total === 1 ? '' : 'es'}${r.total > r.results.length ? `, ${r.offset + 1}–${r.offset + r.results.length} shown (--limit)` : ''}`)
  if (r.next_cursor) lines.push(`more: pass --cursor ${r.next_cursor} (same query and filters) for the next page`)
  return `${lines.join('\n')}\n`
}
