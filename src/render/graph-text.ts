/**
 * The task graph as text other tools draw: Mermaid (Markdown on forges) and
 * DOT (Graphviz). Pure; every label is escaped for its format, so a title
 * cannot add nodes, edges or attributes. The SVG renderer
 * (graph-svg.ts) shares the palette.
 */
import type {State} from '../core/readiness'
import type {GraphNode, TaskGraph} from '../core/task-graph'

/** Fill colour per state (light, readable with dark text). */
export const STATE_FILL: Record<State, string> = {
  ready: '#c8f0c8',
  waiting: '#e4e4e4',
  reserved: '#e0d8f4',
  todo: '#f0f0f0',
  in_progress: '#c8dcf8',
  stale: '#f8e4b8',
  blocked: '#f8c8c8',
  done: '#d8ecd8',
  cancelled: '#ececec',
  // issue 33 (scitex's palette: deferred amber, failed red)
  deferred: '#ffca28',
  failed: '#ffcdd2',
}
export const CRITICAL_STROKE = '#c0392b'
export const FRONTIER_STROKE = '#1e8449'

/** Titles longer than this are cut in node labels (the full title is in the SVG tooltip and the board). */
export const LABEL_TITLE_MAX = 40

/** A title fit for a one-line label: controls and line breaks become spaces, long ones are cut. */
export function labelTitle(title: string, max = LABEL_TITLE_MAX): string {
  // eslint-disable-next-line no-control-regex
  const flat = title.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim()
  const chars = [...flat]
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat
}

function nodeLabel(n: GraphNode): string {
  return `${n.short_id} ${labelTitle(n.title)}`
}

/** Mermaid text: every character outside a plain set becomes an entity code (#NNN;), which Mermaid decodes. */
function mermaidText(text: string): string {
  let out = ''
  for (const ch of text) out += /^[\p{L}\p{N} .,:;!?()_+=/'@-]$/u.test(ch) && ch !== '#' ? ch : `#${ch.codePointAt(0)};`
  return out
}

/** `flowchart TD`, one node per item (n0, n1, … in id order), dotted links for sub-items. */
export function renderMermaid(g: TaskGraph): string {
  const key = new Map(g.nodes.map((n, i) => [n.id, `n${i}`]))
  const lines = ['flowchart TD']
  if (g.nodes.length === 0) return 'flowchart TD\n  empty["nothing open"]\n'
  for (const n of g.nodes) lines.push(`  ${key.get(n.id)}["${mermaidText(nodeLabel(n))}"]`)
  const critical: number[] = []
  g.edges.forEach((e, i) => {
    lines.push(`  ${key.get(e.from)} ${e.kind === 'subitem' ? '-.->' : '-->'} ${key.get(e.to)}`)
    if (e.critical) critical.push(i)
  })
  const states = [...new Set(g.nodes.map((n) => n.state))].sort()
  for (const s of states) lines.push(`  classDef ${s} fill:${STATE_FILL[s]},stroke:#555,color:#111`)
  lines.push(`  classDef frontier stroke:${FRONTIER_STROKE},stroke-width:3px`)
  lines.push(`  classDef critical stroke:${CRITICAL_STROKE},stroke-width:3px`)
  for (const s of states) {
    const ids = g.nodes.filter((n) => n.state === s).map((n) => key.get(n.id))
    lines.push(`  class ${ids.join(',')} ${s}`)
  }
  const frontier = g.nodes.filter((n) => n.ready && !n.critical).map((n) => key.get(n.id))
  if (frontier.length) lines.push(`  class ${frontier.join(',')} frontier`)
  const onPath = g.nodes.filter((n) => n.critical).map((n) => key.get(n.id))
  if (onPath.length) lines.push(`  class ${onPath.join(',')} critical`)
  if (critical.length) lines.push(`  linkStyle ${critical.join(',')} stroke:${CRITICAL_STROKE},stroke-width:3px`)
  return `${lines.join('\n')}\n`
}

/** A DOT double-quoted string. */
function dotString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

/** `digraph tasks`, nodes named by full id, filled by state; the frontier and the critical path outlined. */
export function renderDot(g: TaskGraph): string {
  const lines = [
    'digraph tasks {',
    '  rankdir=TB;',
    '  node [shape=box, style="rounded,filled", fontname="sans-serif", fontsize=10];',
    '  edge [color="#777777"];',
  ]
  for (const n of g.nodes) {
    const attrs = [`label=${dotString(nodeLabel(n))}`, `tooltip=${dotString(`${n.id} (${n.state}) ${labelTitle(n.title, 200)}`)}`, `fillcolor=${dotString(STATE_FILL[n.state])}`]
    if (n.critical) attrs.push(`color=${dotString(CRITICAL_STROKE)}`, 'penwidth=2.5')
    else if (n.ready) attrs.push(`color=${dotString(FRONTIER_STROKE)}`, 'penwidth=2.5')
    lines.push(`  ${dotString(n.id)} [${attrs.join(', ')}];`)
  }
  for (const e of g.edges) {
    const attrs: string[] = []
    if (e.kind === 'subitem') attrs.push('style=dashed', 'arrowhead=none')
    if (e.critical) attrs.push(`color=${dotString(CRITICAL_STROKE)}`, 'penwidth=2.5')
    lines.push(`  ${dotString(e.from)} -> ${dotString(e.to)}${attrs.length ? ` [${attrs.join(', ')}]` : ''};`)
  }
  lines.push('}')
  return `${lines.join('\n')}\n`
}
