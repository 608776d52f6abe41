/**
 * The task graph as a standalone SVG image, laid out by d3-dag's Sugiyama
 * layout with its fast operators: longest-path layering, depth-first
 * decrossing and greedy coordinates. (The defaults, simplex layering and
 * two-layer decrossing with quadratic coordinates, grow too slow for a
 * list's graph beyond a few hundred nodes; docs/scale.md.) Built into its own
 * bundle (dist/graph-svg.js) and loaded only by `tasks graph --format svg`
 * and the board, so no other command pays for d3-dag.
 */
import {coordGreedy, decrossDfs, graph, layeringLongestPath, sugiyama} from 'd3-dag'
import type {GraphEdge, GraphNode, TaskGraph} from '../core/task-graph'
import {CRITICAL_STROKE, FRONTIER_STROKE, STATE_FILL, labelTitle} from './graph-text'

const NODE_W = 190
const NODE_H = 44
const GAP_X = 24
const GAP_Y = 46
const MARGIN = 16
const LEGEND_H = 28

/** Text safe inside XML content and attribute values (characters XML cannot hold are dropped). */
export function xmlText(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;')
  )
}

interface Placed {
  node: GraphNode
  x: number
  y: number
}

interface Routed {
  edge: GraphEdge
  points: Array<[number, number]>
}

/** Order of the loose items in their grid: work under way first, then what can start, then the rest. */
const GRID_ORDER: Record<string, number> = {in_progress: 0, stale: 1, blocked: 2, ready: 3, reserved: 4, waiting: 5, todo: 6, done: 7, cancelled: 8}

/**
 * Positions: node centres and edge control points. Items linked to others
 * are laid out by d3-dag; items with no edge at all (most of a large open
 * list, often) are put in a grid below, so they neither widen the layers nor
 * cost the layout anything.
 */
function layout(g: TaskGraph): {width: number; height: number; nodes: Placed[]; edges: Routed[]} {
  const linked = new Set<string>()
  for (const e of g.edges) linked.add(e.from).add(e.to)
  const nodes: Placed[] = []
  const edges: Routed[] = []
  let width = 0
  let height = 0
  if (linked.size > 0) {
    const dag = graph<GraphNode, GraphEdge>()
    const handles = new Map(g.nodes.filter((n) => linked.has(n.id)).map((n) => [n.id, dag.node(n)]))
    for (const e of g.edges) dag.link(handles.get(e.from)!, handles.get(e.to)!, e)
    const run = sugiyama()
      .layering(layeringLongestPath())
      .decross(decrossDfs())
      .coord(coordGreedy())
      .nodeSize([NODE_W + GAP_X, NODE_H + GAP_Y])
    ;({width, height} = run(dag))
    for (const n of dag.nodes()) nodes.push({node: n.data, x: n.x, y: n.y})
    for (const l of dag.links()) edges.push({edge: l.data, points: l.points})
  }
  const loose = g.nodes.filter((n) => !linked.has(n.id)).sort((a, b) => (GRID_ORDER[a.state] ?? 9) - (GRID_ORDER[b.state] ?? 9) || a.priority - b.priority || (a.id < b.id ? -1 : 1))
  if (loose.length > 0) {
    const cellW = NODE_W + GAP_X
    const cellH = NODE_H + GAP_Y
    const cols = Math.min(loose.length, Math.max(Math.floor(width / cellW), 6, Math.ceil(Math.sqrt(loose.length * 2))))
    const top = height
    loose.forEach((n, i) => nodes.push({node: n, x: cellW * ((i % cols) + 0.5), y: top + cellH * (Math.floor(i / cols) + 0.5)}))
    width = Math.max(width, cols * cellW)
    height = top + Math.ceil(loose.length / cols) * cellH
  }
  return {width, height, nodes, edges}
}

function pathOf(points: ReadonlyArray<[number, number]>, dx: number, dy: number): string {
  return points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${(x + dx).toFixed(1)},${(y + dy).toFixed(1)}`).join(' ')
}

/** A standalone SVG document of the graph (title, legend, nodes coloured by state, the critical path in red, the frontier outlined green). */
export function renderSvg(g: TaskGraph, title = 'tasks'): string {
  const laid = layout(g)
  const width = Math.max(laid.width, 520) + MARGIN * 2
  const height = laid.height + MARGIN * 2 + LEGEND_H
  const dy = MARGIN + LEGEND_H
  const dx = MARGIN
  const out: string[] = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width.toFixed(0)}" height="${height.toFixed(0)}" viewBox="0 0 ${width.toFixed(0)} ${height.toFixed(0)}" font-family="sans-serif" font-size="11">`,
  )
  out.push(`<title>${xmlText(title)}</title>`)
  out.push('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker>')
  out.push(`<marker id="arrow-critical" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${CRITICAL_STROKE}"/></marker></defs>`)
  out.push(`<rect width="100%" height="100%" fill="#ffffff"/>`)
  const legend = `${g.nodes.length} items · ${g.critical_path.length} on the critical path (red) · ${g.frontier.length} ready (green outline) · dashed: sub-item`
  out.push(`<text x="${MARGIN}" y="${MARGIN + 8}" fill="#333">${xmlText(legend)}</text>`)
  if (g.nodes.length === 0) out.push(`<text x="${MARGIN}" y="${MARGIN + LEGEND_H + 8}" fill="#666">nothing open</text>`)
  out.push('<g class="edges" fill="none">')
  for (const r of laid.edges) {
    const stroke = r.edge.critical ? CRITICAL_STROKE : '#888'
    // The arrow stops at the border of the target box, not at its centre.
    const pts = r.points.map((p) => [p[0], p[1]] as [number, number])
    if (pts.length >= 2) {
      pts[0]![1] += NODE_H / 2
      pts[pts.length - 1]![1] -= NODE_H / 2
    }
    const dash = r.edge.kind === 'subitem' ? ' stroke-dasharray="5,4"' : ''
    const marker = r.edge.kind === 'subitem' ? '' : ` marker-end="url(#${r.edge.critical ? 'arrow-critical' : 'arrow'})"`
    out.push(`<path class="edge ${r.edge.kind}${r.edge.critical ? ' critical' : ''}" d="${pathOf(pts, dx, dy)}" stroke="${stroke}" stroke-width="${r.edge.critical ? 2.5 : 1.2}"${dash}${marker}/>`)
  }
  out.push('</g><g class="nodes">')
  for (const p of laid.nodes) {
    const n = p.node
    const x = p.x + dx - NODE_W / 2
    const y = p.y + dy - NODE_H / 2
    const stroke = n.critical ? CRITICAL_STROKE : n.ready ? FRONTIER_STROKE : '#666'
    const sw = n.critical || n.ready ? 2.5 : 1
    const who = n.owner ?? (n.assignee ? `→ ${n.assignee}` : '')
    out.push(`<g class="node state-${n.state}${n.critical ? ' critical' : ''}${n.ready ? ' frontier' : ''}" data-id="${xmlText(n.id)}">`)
    out.push(`<title>${xmlText(`${n.id} · ${n.state}${n.owner ? ` · ${n.owner}` : ''}\n${n.title}`)}</title>`)
    out.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${NODE_W}" height="${NODE_H}" rx="6" fill="${STATE_FILL[n.state]}" stroke="${stroke}" stroke-width="${sw}"/>`)
    out.push(`<text x="${(x + 8).toFixed(1)}" y="${(y + 17).toFixed(1)}" fill="#111"><tspan font-weight="bold">${xmlText(n.short_id)}</tspan> <tspan fill="#555">${xmlText(`P${n.priority} ${n.state.replace('_', ' ')}`)}</tspan></text>`)
    out.push(`<text x="${(x + 8).toFixed(1)}" y="${(y + 33).toFixed(1)}" fill="#111">${xmlText(labelTitle(n.title, 28))}</text>`)
    if (who) out.push(`<text x="${(x + NODE_W - 8).toFixed(1)}" y="${(y + 17).toFixed(1)}" fill="#555" text-anchor="end">${xmlText(labelTitle(who, 14))}</text>`)
    out.push('</g>')
  }
  out.push('</g></svg>')
  return `${out.join('\n')}\n`
}
