/**
 * The task graph as text for a terminal: the items in dependency layers (an
 * item comes after everything it waits on), each with its state, owner and
 * what it waits on, the critical path and the ready frontier marked. What
 * `tasks graph` prints on a TTY when no --format or --out asks for a
 * drawing (raw SVG is for files and pipes, not for a person). Pure.
 */
import type {GraphNode, TaskGraph} from '../core/task-graph'
import {pushTo} from '../core/snapshot'
import {type Terminal, paint} from './terminal'

/** Layer of each node: 0 for an item that waits on nothing in the graph, else 1 + its deepest dependency or parent. */
export function graphLayers(g: TaskGraph): Map<string, number> {
  const preds = new Map<string, string[]>()
  for (const e of g.edges) preds.set(e.to, [...(preds.get(e.to) ?? []), e.from])
  const depth = new Map<string, number>()
  const visiting = new Set<string>()
  const of = (id: string): number => {
    const known = depth.get(id)
    if (known !== undefined) return known
    if (visiting.has(id)) return 0 // cycles are dropped upstream; stay safe
    visiting.add(id)
    const d = Math.max(-1, ...(preds.get(id) ?? []).map(of)) + 1
    visiting.delete(id)
    depth.set(id, d)
    return d
  }
  for (const n of g.nodes) of(n.id)
  return depth
}

/** An item of the outline: its node, the ids of the items it waits on (in the graph's edge order), its parent's id. */
export interface OutlineItem {
  node: GraphNode
  after: string[]
  parent: string | null
}

/** A layer of the outline (graphLayers' depth; -1 for the items linked to nothing, when they are set apart). */
export interface OutlineLayer {
  layer: number
  items: OutlineItem[]
}

/**
 * The graph as layers, first layer first, each layer's items in the graph's
 * node order: what `tasks graph` prints on a terminal and the board's list
 * of layers shows. With `looseApart`, the items linked to no other item
 * form a group of their own (layer -1), last.
 */
export function outlineLayers(g: TaskGraph, options: {looseApart?: boolean} = {}): OutlineLayer[] {
  const after = new Map<string, string[]>()
  const parent = new Map<string, string>()
  const linked = new Set<string>()
  for (const e of g.edges) {
    linked.add(e.from).add(e.to)
    if (e.kind === 'depends') pushTo(after, e.to, e.from)
    else if (e.kind === 'subitem') parent.set(e.to, e.from)
  }
  const depth = graphLayers(g)
  const byLayer = new Map<number, OutlineItem[]>()
  for (const node of g.nodes) {
    const d = options.looseApart && !linked.has(node.id) ? -1 : (depth.get(node.id) ?? 0)
    pushTo(byLayer, d, {node, after: after.get(node.id) ?? [], parent: parent.get(node.id) ?? null})
  }
  return [...byLayer.keys()]
    .sort((a, b) => (a === -1 ? 1 : b === -1 ? -1 : a - b))
    .map((layer) => ({layer, items: byLayer.get(layer)!}))
}

/** `tasks graph` on a terminal: layers of items, one line each. */
export function renderGraphOutline(term: Terminal, g: TaskGraph, title: string): string {
  if (g.nodes.length === 0) return `${title}\nnothing to draw: the list has no items in scope (tasks add "…" to start one)\n`
  const short = new Map(g.nodes.map((n) => [n.id, n.short_id]))
  const shortOf = (id: string) => short.get(id) ?? id
  const out = [title]
  for (const {layer, items} of outlineLayers(g)) {
    out.push(`layer ${layer + 1}`)
    for (const {node: n, after, parent} of items) {
      const mark = n.critical ? paint(term, 'red', '*') : n.ready ? paint(term, 'green', '>') : ' '
      const who = n.owner ? ` @${n.owner}` : ''
      const extra = [after.length ? `after ${after.map(shortOf).join(', ')}` : '', parent ? `in ${shortOf(parent)}` : ''].filter(Boolean).join('; ')
      out.push(`  ${mark} ${paint(term, 'yellow', n.short_id)}  ${n.state.replace('_', ' ')}${who}  ${n.title}${extra ? `  ${paint(term, 'dim', `(${extra})`)}` : ''}`)
    }
  }
  const crit = g.critical_path.map(shortOf)
  out.push('')
  out.push(`* critical path${crit.length ? `: ${crit.join(' -> ')}` : ' (none open)'}   > ready now: ${g.frontier.length}`)
  out.push(paint(term, 'dim', 'a drawing: tasks graph --out graph.svg (or .png, .dot, .mmd), --format svg|dot|mermaid for a pipe, or tasks board'))
  return `${out.join('\n')}\n`
}
