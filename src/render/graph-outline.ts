/**
 * The task graph as text for a terminal: the items in dependency layers (an
 * item comes after everything it waits on), each with its state, owner and
 * what it waits on, the critical path and the ready frontier marked. What
 * `tasks graph` prints on a TTY when no --format or --out asks for a
 * drawing (raw SVG is for files and pipes, not for a person). Pure.
 */
import type {TaskGraph} from '../core/task-graph'
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

/** `tasks graph` on a terminal: layers of items, one line each. */
export function renderGraphOutline(term: Terminal, g: TaskGraph, title: string): string {
  if (g.nodes.length === 0) return `${title}\nnothing to draw: the list has no items in scope (tasks add "…" to start one)\n`
  const short = new Map(g.nodes.map((n) => [n.id, n.short_id]))
  const waitsOn = new Map<string, string[]>()
  for (const e of g.edges) if (e.kind === 'depends') waitsOn.set(e.to, [...(waitsOn.get(e.to) ?? []), short.get(e.from) ?? e.from])
  const parentOf = new Map<string, string>()
  for (const e of g.edges) if (e.kind === 'subitem') parentOf.set(e.to, short.get(e.from) ?? e.from)
  const depth = graphLayers(g)
  const byLayer = new Map<number, typeof g.nodes>()
  for (const n of g.nodes) {
    const d = depth.get(n.id) ?? 0
    byLayer.set(d, [...(byLayer.get(d) ?? []), n])
  }
  const out = [title]
  for (const d of [...byLayer.keys()].sort((a, b) => a - b)) {
    out.push(`layer ${d + 1}`)
    for (const n of byLayer.get(d)!) {
      const mark = n.critical ? paint(term, 'red', '*') : n.ready ? paint(term, 'green', '>') : ' '
      const who = n.owner ? ` @${n.owner}` : ''
      const after = waitsOn.get(n.id)
      const under = parentOf.get(n.id)
      const extra = [after ? `after ${after.join(', ')}` : '', under ? `in ${under}` : ''].filter(Boolean).join('; ')
      out.push(`  ${mark} ${paint(term, 'yellow', n.short_id)}  ${n.state.replace('_', ' ')}${who}  ${n.title}${extra ? `  ${paint(term, 'dim', `(${extra})`)}` : ''}`)
    }
  }
  const crit = g.critical_path.map((id) => short.get(id) ?? id)
  out.push('')
  out.push(`* critical path${crit.length ? `: ${crit.join(' -> ')}` : ' (none open)'}   > ready now: ${g.frontier.length}`)
  out.push(paint(term, 'dim', 'a drawing: tasks graph --out graph.svg (or .png, .dot, .mmd), --format svg|dot|mermaid for a pipe, or tasks board'))
  return `${out.join('\n')}\n`
}
