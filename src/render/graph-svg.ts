/**
 * The task graph as a standalone SVG image, laid out by d3-dag's Sugiyama
 * layout: dependencies above the items that wait on them (top to bottom),
 * each node as large as its label (graph-label.ts: the id and priority, the
 * whole title wrapped over up to three lines, the state as a badge and the
 * owner beside it, each on its own row), and edges that go straight down
 * through a layer (d3-dag gives a long edge its own slot in every layer it
 * crosses) and curve only in the gaps between layers, so no edge passes over
 * a node.
 *
 * The operators suit the graph's size (decrossing is the costly step):
 * tiny pieces (SMALL_NODES, SMALL_LINKS) an optimal decrossing and simplex
 * layering and coordinates; up to a few hundred nodes the two-layer heuristic with
 * simplex coordinates; beyond that longest-path layering, a short two-layer
 * pass and greedy coordinates, and past LARGE nodes the depth-first order
 * alone, which stay near-linear (docs/scale.md).
 * Items with no edge at all (most of a large open list, often) are put in a
 * grid below, so they neither widen the layers nor cost the layout anything.
 *
 * Built into its own bundle (dist/graph-svg.js) and loaded only by `tasks
 * graph --format svg` and the board, so no other command pays for d3-dag.
 */
import {
  coordGreedy,
  coordSimplex,
  decrossDfs,
  decrossOpt,
  decrossTwoLayer,
  graph,
  layeringLongestPath,
  layeringSimplex,
  sugiyama,
  twolayerAgg,
  twolayerGreedy,
  type MutGraph,
} from 'd3-dag'
import type {GraphEdge, GraphNode, TaskGraph} from '../core/task-graph'
import {CRITICAL_STROKE, FRONTIER_STROKE, STATE_FILL} from './graph-text'
import {LABEL, type NodeLabel, flatText, nodeLabel} from './graph-label'

/** Space between nodes of a layer, and between layers (where edges curve). */
const GAP_X = 28
const GAP_Y = 56
const MARGIN = 16
const LEGEND_H = 34
/**
 * Up to this many linked nodes and links: optimal decrossing. It is exact and
 * its cost explodes with size without refusing (measured with d3-dag 1.2 on
 * random plans, worst of 8: 12 nodes and 15 links 28 ms, 15 and 20 267 ms,
 * 20 and 26 3 s, 25 and 35 34 s), and a draw is synchronous (the board waits
 * on it): beyond this, the two-layer heuristic.
 */
const SMALL_NODES = 12
const SMALL_LINKS = 15
/** Up to this many linked nodes: simplex layering and coordinates with the two-layer heuristic. */
const MEDIUM = 400
/**
 * Up to this many linked nodes: the two-layer passes after a depth-first
 * order; beyond, the depth-first order alone. The passes grow faster than
 * the piece: a 4,753-node piece of the 10,000-task bench list took 3.9 s
 * with them and 0.2 s without (d3-dag 1.2), and a drawing that size is
 * read by zooming in on a corner, where the depth-first order already keeps
 * what is linked together.
 */
const LARGE = 2000

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

export interface Placed {
  node: GraphNode
  label: NodeLabel
  /** Centre. */
  x: number
  y: number
  /** Layer from the top (0 first); the loose items' grid rows continue the count. */
  layer: number
}

export interface Routed {
  edge: GraphEdge
  /** Vertical through layers, curves in the gaps. */
  steps: Step[]
}

export interface Laid {
  width: number
  height: number
  nodes: Placed[]
  edges: Routed[]
}

const f1 = (v: number) => (Math.round(v * 10) / 10).toString()

type Dag = MutGraph<GraphNode, GraphEdge>

/** Sugiyama with operators that suit `n` linked nodes. */
function runSugiyama(dag: Dag, n: number, size: (d: GraphNode) => readonly [number, number]): {width: number; height: number} {
  const nodeSize = (node: {data: GraphNode}) => size(node.data)
  const base = sugiyama().nodeSize(nodeSize).gap([GAP_X, GAP_Y])
  if (n <= SMALL_NODES && dag.nlinks() <= SMALL_LINKS) {
    try {
      return base.layering(layeringSimplex()).decross(decrossOpt()).coord(coordSimplex())(dag)
    } catch {
      // decrossOpt may still refuse (its own size check): the heuristic.
    }
  }
  if (n <= MEDIUM) return base.layering(layeringSimplex()).decross(decrossTwoLayer().order(twolayerGreedy().base(twolayerAgg())).passes(8)).coord(coordSimplex())(dag)
  const decross = n <= LARGE ? decrossTwoLayer().order(twolayerAgg()).inits([decrossDfs()]).passes(2) : decrossDfs()
  return base.layering(layeringLongestPath()).decross(decross).coord(coordGreedy())(dag)
}

/** A step of an edge's path: move to, curve to (two controls and the end), or a vertical line to y. */
export type Step = ['M', number, number] | ['C', number, number, number, number, number, number] | ['V', number]

/**
 * An edge's path through d3-dag's points (source centre, one point per
 * layer crossed, target centre): out of the source's bottom, straight down
 * through each layer's band, an S-curve across each gap, into the target's
 * top.
 */
function route(points: ReadonlyArray<readonly [number, number]>, band: (y: number) => number, fromH: number, toH: number): Step[] {
  const [x0, y0] = points[0]!
  let cy = y0 + fromH / 2
  let cx = x0
  const steps: Step[] = [['M', cx, cy]]
  const down = y0 + band(y0) / 2
  if (down > cy + 0.5) steps.push(['V', (cy = down)])
  for (let i = 1; i < points.length; i++) {
    const [x, y] = points[i]!
    const half = band(y) / 2
    const top = y - half
    const mid = (cy + top) / 2
    steps.push(['C', cx, mid, x, mid, x, top])
    cx = x
    cy = top
    const end = i === points.length - 1 ? y - toH / 2 : y + half
    if (end > cy + 0.5) steps.push(['V', (cy = end)])
  }
  return steps
}

/** SVG path data of `steps`, moved by (dx, dy). */
export function pathData(steps: readonly Step[], dx: number, dy: number): string {
  return steps
    .map((s) => {
      if (s[0] === 'V') return `V${f1(s[1] + dy)}`
      const nums = s.slice(1) as number[]
      const pts: string[] = []
      for (let i = 0; i < nums.length; i += 2) pts.push(`${f1(nums[i]! + dx)},${f1(nums[i + 1]! + dy)}`)
      return `${s[0]}${pts.join(' ')}`
    })
    .join(' ')
}

/** One connected part of the graph laid out by Sugiyama, from (0, 0). */
function layoutComponent(members: GraphNode[], links: GraphEdge[], labels: ReadonlyMap<string, NodeLabel>): Laid & {layers: number} {
  const size = (n: GraphNode) => {
    const l = labels.get(n.id)!
    return [l.width, l.height] as const
  }
  const nodes: Placed[] = []
  const edges: Routed[] = []
  const dag: Dag = graph<GraphNode, GraphEdge>()
  const handles = new Map(members.map((n) => [n.id, dag.node(n)]))
  for (const e of links) dag.link(handles.get(e.from)!, handles.get(e.to)!, e)
  const {width, height} = runSugiyama(dag, members.length, size)
  // Each layer's band: as tall as its tallest node (all nodes of a layer share their centre's y).
  const bands = new Map<number, number>()
  for (const n of dag.nodes()) bands.set(n.y, Math.max(bands.get(n.y) ?? 0, labels.get(n.data.id)!.height))
  const ys = [...bands.keys()].sort((a, b) => a - b)
  const layerOf = new Map(ys.map((y, i) => [y, i]))
    const band = (y: number) => bands.get(y) ?? 0
  for (const n of dag.nodes()) nodes.push({node: n.data, label: labels.get(n.data.id)!, x: n.x, y: n.y, layer: layerOf.get(n.y) ?? 0})
  // Ports: the edges leaving a node spread along its bottom, those entering along its top, in the
  // order of where they go or come from, so edges meeting at a node stay apart.
  const routes = [...dag.links()].map((l) => ({l, points: l.points.map(([x, y]) => [x, y] as [number, number])}))
  const spread = (key: (p: (typeof routes)[number]) => string, at: (p: (typeof routes)[number]) => [number, number], toward: (p: (typeof routes)[number]) => number, width: (p: (typeof routes)[number]) => number) => {
    const groups = new Map<string, typeof routes>()
    for (const p of routes) groups.set(key(p), [...(groups.get(key(p)) ?? []), p])
    for (const group of groups.values()) {
      if (group.length < 2) continue
      group.sort((a, b) => toward(a) - toward(b))
      const step = Math.min(16, (width(group[0]!) - 28) / (group.length - 1))
      group.forEach((p, i) => (at(p)[0] += (i - (group.length - 1) / 2) * step))
    }
  }
  spread((p) => p.l.source.data.id, (p) => p.points[0]!, (p) => p.points[1]![0], (p) => labels.get(p.l.source.data.id)!.width)
  spread((p) => p.l.target.data.id, (p) => p.points[p.points.length - 1]!, (p) => p.points[p.points.length - 2]![0], (p) => labels.get(p.l.target.data.id)!.width)
  for (const {l, points} of routes) edges.push({edge: l.data, steps: route(points, band, labels.get(l.source.data.id)!.height, labels.get(l.target.data.id)!.height)})
  return {width, height, nodes, edges, layers: ys.length}
}

/**
 * The connected parts of the linked items, each laid out on its own and
 * packed in rows (the one holding the critical path first, then the
 * largest), about 16:10 overall: independent pieces of work side by side in
 * one long row would make the drawing many times wider than a window.
 */
function packComponents(g: TaskGraph, linked: ReadonlySet<string>, labels: ReadonlyMap<string, NodeLabel>): Laid & {layers: number} {
  const root = new Map<string, string>()
  const find = (id: string): string => {
    let r = id
    while (root.get(r) !== r) r = root.get(r)!
    root.set(id, r)
    return r
  }
  for (const id of linked) root.set(id, id)
  for (const e of g.edges) root.set(find(e.from), find(e.to))
  const parts = new Map<string, {members: GraphNode[]; links: GraphEdge[]; critical: boolean}>()
  for (const n of g.nodes) {
    if (!linked.has(n.id)) continue
    const k = find(n.id)
    const part = parts.get(k) ?? {members: [], links: [], critical: false}
    part.members.push(n)
    part.critical ||= n.critical
    parts.set(k, part)
  }
  for (const e of g.edges) parts.get(find(e.from))!.links.push(e)
  const laid = [...parts.values()]
    .sort((a, b) => Number(b.critical) - Number(a.critical) || b.members.length - a.members.length)
    .map((p) => layoutComponent(p.members, p.links, labels))
  const area = laid.reduce((sum, c) => sum + (c.width + GAP_X * 2) * (c.height + GAP_Y), 0)
  const rowWidth = Math.max(...laid.map((c) => c.width), Math.sqrt(area * 1.6))
  const nodes: Placed[] = []
  const edges: Routed[] = []
  let x = 0
  let y = 0
  let rowH = 0
  let width = 0
  let layers = 0
  let rowLayers = 0
  let layerBase = 0
  for (const c of laid) {
    if (x > 0 && x + c.width > rowWidth) {
      y += rowH + GAP_Y
      x = 0
      rowH = 0
      layerBase += rowLayers
      rowLayers = 0
    }
    for (const p of c.nodes) nodes.push({...p, x: p.x + x, y: p.y + y, layer: p.layer + layerBase})
    for (const r of c.edges) edges.push({edge: r.edge, steps: moveSteps(r.steps, x, y)})
    width = Math.max(width, x + c.width)
    rowH = Math.max(rowH, c.height)
    rowLayers = Math.max(rowLayers, c.layers)
    layers = layerBase + rowLayers
    x += c.width + GAP_X * 2
  }
  return {width, height: y + rowH, nodes, edges, layers}
}

/** Steps moved by (dx, dy). */
function moveSteps(steps: readonly Step[], dx: number, dy: number): Step[] {
  return steps.map((s) => (s[0] === 'V' ? ['V', s[1] + dy] : (s.map((v, i) => (i === 0 ? v : i % 2 === 1 ? (v as number) + dx : (v as number) + dy)) as Step)))
}

/** Order of the loose items in their grid: work under way first, then what can start, then the rest. */
const GRID_ORDER: Record<string, number> = {in_progress: 0, stale: 1, blocked: 2, ready: 3, reserved: 4, waiting: 5, todo: 6, done: 7, cancelled: 8}

/** Positions of nodes (centres, in a box from 0,0) and edge paths. */
export function layoutGraph(g: TaskGraph): Laid {
  const labels = new Map(g.nodes.map((n) => [n.id, nodeLabel(n)]))
  const linked = new Set<string>()
  for (const e of g.edges) linked.add(e.from).add(e.to)
  let nodes: Placed[] = []
  let edges: Routed[] = []
  let width = 0
  let height = 0
  let layers = 0
  if (linked.size > 0) ({width, height, nodes, edges, layers} = packComponents(g, linked, labels))
  const loose = g.nodes.filter((n) => !linked.has(n.id)).sort((a, b) => (GRID_ORDER[a.state] ?? 9) - (GRID_ORDER[b.state] ?? 9) || a.priority - b.priority || (a.id < b.id ? -1 : 1))
  if (loose.length > 0) {
    const cellW = Math.max(...loose.map((n) => labels.get(n.id)!.width)) + GAP_X
    // As wide as the layers above, or (alone, or below a narrow drawing) about 16:10 overall.
    const area = loose.reduce((s, n) => s + cellW * (labels.get(n.id)!.height + GAP_Y / 2), 0)
    const cols = Math.max(1, Math.min(loose.length, Math.max(Math.floor((width + GAP_X) / cellW), Math.round(Math.sqrt(area * 1.6) / cellW))))
    let top = height > 0 ? height + GAP_Y : 0
    for (let r = 0; r * cols < loose.length; r++) {
      const row = loose.slice(r * cols, (r + 1) * cols)
      const rowH = Math.max(...row.map((n) => labels.get(n.id)!.height))
      row.forEach((n, i) => nodes.push({node: n, label: labels.get(n.id)!, x: cellW * (i + 0.5) - GAP_X / 2, y: top + rowH / 2, layer: layers + r}))
      top += rowH + GAP_Y / 2
    }
    width = Math.max(width, cols * cellW - GAP_X)
    height = top - GAP_Y / 2
  }
  return {width, height, nodes, edges}
}

const PRIORITY_FILL: Record<number, string> = {0: '#e03131', 1: '#f08c00'}
/** The state badge: a darker tone of the node's fill. */
const BADGE_FILL: Record<string, string> = {
  ready: '#2f9e44',
  in_progress: '#1c7ed6',
  blocked: '#e03131',
  stale: '#f08c00',
  done: '#5c940d',
  failed: '#c92a2a',
  deferred: '#b08900',
  reserved: '#7950f2',
}

/** One node: its box, the id and priority on the first row, the title's lines, the state badge and the owner on the last. */
function nodeSvg(p: Placed, dx: number, dy: number): string {
  const {node: n, label: l} = p
  const x = p.x + dx - l.width / 2
  const y = p.y + dy - l.height / 2
  const left = x + LABEL.pad
  const right = x + l.width - LABEL.pad
  const stroke = n.critical ? CRITICAL_STROKE : n.ready ? FRONTIER_STROKE : '#8a8f98'
  const sw = n.critical || n.ready ? 3 : 1
  const tip = `${n.id} · ${n.state.replace('_', ' ')} · P${n.priority}${n.owner ? ` · ${n.owner}` : n.assignee ? ` · for ${n.assignee}` : ''}${n.critical ? ' · critical path' : ''}${n.ready ? ' · ready now' : ''}\n${flatText(n.title)}`
  const out = [`<g class="node state-${n.state}${n.critical ? ' critical' : ''}${n.ready ? ' frontier' : ''}" data-id="${xmlText(n.id)}" data-layer="${p.layer}">`]
  out.push(`<title>${xmlText(tip)}</title>`)
  out.push(`<rect class="box" x="${f1(x)}" y="${f1(y)}" width="${l.width}" height="${l.height}" rx="7" fill="${STATE_FILL[n.state] ?? '#f0f0f0'}" stroke="${stroke}" stroke-width="${sw}"${n.ready && !n.critical ? ' stroke-dasharray="7,3"' : ''}/>`)
  const row1 = y + LABEL.pad + 11
  out.push(`<text x="${f1(left)}" y="${f1(row1)}" font-size="${LABEL.meta}" font-weight="bold" fill="#222">${xmlText(l.id)}</text>`)
  const pFill = PRIORITY_FILL[n.priority]
  out.push(`<text x="${f1(right)}" y="${f1(row1)}" font-size="${LABEL.meta}" text-anchor="end" fill="${pFill ?? '#555'}"${pFill ? ' font-weight="bold"' : ''}>${xmlText(l.priority)}</text>`)
  const t0 = y + LABEL.pad + LABEL.row + 12
  out.push(`<text class="title" font-size="${LABEL.title}" fill="#111">${l.lines.map((line, i) => `<tspan x="${f1(left)}" y="${f1(t0 + i * LABEL.line)}">${xmlText(line)}</tspan>`).join('')}</text>`)
  const by = y + l.height - LABEL.pad - 15
  out.push(`<rect class="badge" x="${f1(left)}" y="${f1(by)}" width="${f1(l.stateWidth)}" height="15" rx="7.5" fill="${BADGE_FILL[n.state] ?? '#6b7280'}"/>`)
  out.push(`<text x="${f1(left + l.stateWidth / 2)}" y="${f1(by + 11)}" font-size="${LABEL.meta}" text-anchor="middle" fill="#fff">${xmlText(l.state)}</text>`)
  if (l.who) out.push(`<text class="who" x="${f1(left + l.stateWidth + 8)}" y="${f1(by + 11)}" font-size="${LABEL.meta}" fill="#444">${xmlText(l.who)}</text>`)
  out.push('</g>')
  return out.join('')
}

/** The legend row: counts, then a swatch per mark. */
function legendSvg(g: TaskGraph): string {
  const y = MARGIN + 10
  const parts = [`<g class="legend" font-size="12" fill="#333">`]
  let x = MARGIN
  const text = (s: string) => {
    parts.push(`<text x="${x}" y="${y + 4}">${xmlText(s)}</text>`)
    x += s.length * 7 + 14
  }
  text(`${g.nodes.length} items · ${g.frontier.length} ready · ${g.critical_path.length} on the critical path`)
  parts.push(`<path d="M${x},${y} h24" stroke="${CRITICAL_STROKE}" stroke-width="3"/>`)
  x += 30
  text('critical path')
  parts.push(`<rect x="${x}" y="${y - 7}" width="24" height="14" rx="4" fill="${STATE_FILL.ready}" stroke="${FRONTIER_STROKE}" stroke-width="3" stroke-dasharray="7,3"/>`)
  x += 30
  text('ready now')
  parts.push(`<path d="M${x},${y} h24" stroke="#888" stroke-width="1.5" stroke-dasharray="5,4"/>`)
  x += 30
  text('sub-item')
  parts.push('</g>')
  return parts.join('')
}

/** How the SVG is to be used. */
export interface SvgOptions {
  /**
   * Drawn inside a page that sizes it (the board's /graph, whose
   * Content-Security-Policy allows no style attribute): no inline style.
   * Otherwise a standalone document that shrinks to the window.
   */
  embedded?: boolean
}

/**
 * An SVG document of the graph: a legend row, nodes coloured by state, the
 * critical path in red, the ready frontier outlined in dashed green. Its
 * width and height are the drawing's own size; standalone, it shrinks to
 * the window when opened in a browser (max-width: 100%).
 */
export function renderSvg(g: TaskGraph, title = 'tasks', options: SvgOptions = {}): string {
  const laid = layoutGraph(g)
  const width = Math.ceil(Math.max(laid.width, 640) + MARGIN * 2)
  const height = Math.ceil(laid.height + MARGIN * 2 + LEGEND_H)
  const dy = MARGIN + LEGEND_H
  const dx = MARGIN + Math.max(0, (640 - laid.width) / 2)
  const out: string[] = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-size="12"${options.embedded ? '' : ' style="max-width:100%;height:auto"'}>`,
  )
  out.push(`<title>${xmlText(title)}</title>`)
  out.push('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker>')
  out.push(`<marker id="arrow-critical" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${CRITICAL_STROKE}"/></marker></defs>`)
  out.push(`<rect class="background" width="100%" height="100%" fill="#ffffff"/>`)
  out.push(legendSvg(g))
  if (g.nodes.length === 0) out.push(`<text x="${MARGIN}" y="${MARGIN + LEGEND_H + 12}" fill="#666">nothing open</text>`)
  out.push(`<g class="graph-body"><g class="edges" fill="none">`)
  // Critical edges last, so they are drawn over the others.
  for (const r of [...laid.edges].sort((a, b) => Number(a.edge.critical) - Number(b.edge.critical))) {
    const d = pathData(r.steps, dx, dy)
    const stroke = r.edge.critical ? CRITICAL_STROKE : '#8a8f98'
    const dash = r.edge.kind === 'subitem' ? ' stroke-dasharray="5,4"' : ''
    const marker = r.edge.kind === 'subitem' ? '' : ` marker-end="url(#${r.edge.critical ? 'arrow-critical' : 'arrow'})"`
    out.push(`<path class="edge ${r.edge.kind}${r.edge.critical ? ' critical' : ''}" d="${d}" stroke="${stroke}" stroke-width="${r.edge.critical ? 3 : 1.4}"${dash}${marker}/>`)
  }
  out.push('</g><g class="nodes">')
  for (const p of laid.nodes) out.push(nodeSvg(p, dx, dy))
  out.push('</g></g></svg>')
  return `${out.join('\n')}\n`
}
