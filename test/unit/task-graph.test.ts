/**
 * The task graph model (src/core/task-graph.ts) and its renderers: the
 * critical path, the ready frontier, sub-item nesting, scope, cycles set
 * aside before anything is measured or drawn; SVG that is well-formed XML,
 * DOT that Graphviz's `dot` accepts, Mermaid of the expected shape. Hostile
 * titles stay text in every format.
 */
import {execFileSync} from 'node:child_process'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {breakCycles, buildTaskGraph, longestChain, type TaskGraph} from '../../src/core/task-graph'
import {TaskViewer} from '../../src/core/task-view'
import {renderDot, renderMermaid} from '../../src/render/graph-text'
import {renderSvg} from '../../src/render/graph-svg'
import {T0, snapshot, task} from '../helpers/snapshot'
import type {TaskMeta} from '../../src/core/task'

const id = (n: string) => `tsk-${n.padEnd(10, '0')}`

function graphOf(tasks: TaskMeta[], scope: Parameters<typeof buildTaskGraph>[2] = {}): TaskGraph {
  const snap = snapshot(tasks)
  return buildTaskGraph(snap, new TaskViewer(snap, 'alice', T0), scope)
}

/** True when the edges admit a topological order. */
function acyclic(ids: readonly string[], edges: ReadonlyArray<{from: string; to: string}>): boolean {
  const indeg = new Map(ids.map((i) => [i, 0]))
  for (const e of edges) indeg.set(e.to, (indeg.get(e.to) ?? 0) + 1)
  const queue = ids.filter((i) => indeg.get(i) === 0)
  let seen = 0
  while (queue.length) {
    const n = queue.pop()!
    seen++
    for (const e of edges) if (e.from === n) {
      indeg.set(e.to, indeg.get(e.to)! - 1)
      if (indeg.get(e.to) === 0) queue.push(e.to)
    }
  }
  return seen === ids.length
}

describe('task graph model', () => {
  const a = task({id: id('a'), title: 'design'})
  const b = task({id: id('b'), depends_on: [a.id]})
  const c = task({id: id('c'), depends_on: [b.id]})
  const d = task({id: id('d'), depends_on: [a.id]})
  const done = task({id: id('e'), status: 'done', closed_at: T0})
  const afterDone = task({id: id('f'), depends_on: [done.id]})

  it('the critical path is the longest chain of unfinished work; the frontier is what is ready', () => {
    const g = graphOf([a, b, c, d, done, afterDone])
    expect(g.critical_path).toEqual([a.id, b.id, c.id])
    expect(g.frontier.sort()).toEqual([a.id, afterDone.id].sort())
    expect(g.nodes.map((n) => n.id)).not.toContain(done.id) // open items only by default
    expect(g.nodes.filter((n) => n.critical).map((n) => n.id)).toEqual([a.id, b.id, c.id])
    const crit = g.edges.filter((e) => e.critical).map((e) => `${e.from}>${e.to}`)
    expect(crit.sort()).toEqual([`${a.id}>${b.id}`, `${b.id}>${c.id}`].sort())
    // Edges point from the dependency to the item waiting for it.
    expect(g.edges).toContainEqual({from: a.id, to: d.id, kind: 'depends', critical: false})
  })

  it('--all keeps finished items, which never lengthen the critical path', () => {
    const g = graphOf([a, b, c, d, done, afterDone], {all: true})
    expect(g.nodes.map((n) => n.id)).toContain(done.id)
    expect(g.edges).toContainEqual({from: done.id, to: afterDone.id, kind: 'depends', critical: false})
    expect(g.critical_path).toEqual([a.id, b.id, c.id])
  })

  it('sub-items: drawn under their parent, and on the critical path between the parent’s dependencies and the parent', () => {
    const dep = task({id: id('g')})
    const parent = task({id: id('h'), depends_on: [dep.id]})
    const kid1 = task({id: id('i'), parent: parent.id})
    const kid2 = task({id: id('j'), parent: parent.id, depends_on: [kid1.id]})
    const g = graphOf([dep, parent, kid1, kid2])
    expect(g.edges).toContainEqual({from: parent.id, to: kid1.id, kind: 'subitem', critical: false})
    expect(g.critical_path).toEqual([dep.id, kid1.id, kid2.id, parent.id])
    expect(g.frontier).toEqual([dep.id]) // kids wait for the parent's dependency
    expect(g.edges.find((e) => e.from === parent.id && e.to === kid2.id)?.critical).toBe(true)
  })

  it('with ids: only what they reach through dependencies and sub-items', () => {
    const g = graphOf([a, b, c, d, done, afterDone], {roots: [c.id]})
    expect(g.nodes.map((n) => n.id)).toEqual([a.id, b.id, c.id])
    // A finished root is still shown.
    expect(graphOf([done, afterDone], {roots: [done.id]}).nodes.map((n) => n.id)).toEqual([done.id])
  })

  it('nothing open: an empty graph, drawn without failing', () => {
    const g = graphOf([done])
    expect(g).toMatchObject({nodes: [], edges: [], critical_path: [], frontier: []})
    expect(renderSvg(g)).toContain('nothing open')
    expect(renderMermaid(g)).toBe('flowchart TD\n  empty["nothing open"]\n')
    expect(() => execFileSync('dot', ['-Tsvg'], {input: renderDot(g)})).not.toThrow()
  })

  it('a cycle left by a merge or a hand edit is set aside, never drawn or measured', () => {
    const x = task({id: id('x'), depends_on: [id('y')]})
    const y = task({id: id('y'), depends_on: [id('z')]})
    const z = task({id: id('z'), depends_on: [id('x')]})
    // A parent that depends on its own sub-item: nesting and dependency disagree.
    const p = task({id: id('p'), depends_on: [id('q')]})
    const q = task({id: id('q'), parent: id('p')})
    const g = graphOf([x, y, z, p, q])
    expect(g.dropped_edges.length).toBe(2)
    expect(acyclic(g.nodes.map((n) => n.id), g.edges)).toBe(true)
    expect(g.critical_path.length).toBeGreaterThan(0)
    expect(renderSvg(g)).toContain('<svg')
  })

  it('breakCycles keeps a DAG and loses no edge unaccounted (property)', () => {
    fc.assert(
      fc.property(fc.integer({min: 1, max: 12}), fc.array(fc.tuple(fc.nat(11), fc.nat(11)), {maxLength: 40}), (n, pairs) => {
        const ids = Array.from({length: n}, (_, i) => `n${String(i).padStart(2, '0')}`)
        const edges = pairs.filter(([f, t]) => f < n && t < n).map(([f, t]) => ({from: ids[f]!, to: ids[t]!}))
        const {kept, dropped} = breakCycles(ids, edges)
        expect(kept.length + dropped.length).toBe(edges.length)
        expect(acyclic(ids, kept)).toBe(true)
        // Deterministic.
        expect(breakCycles(ids, edges).kept).toEqual(kept)
        // The chain is a path of the DAG.
        const preds = new Map<string, string[]>()
        for (const e of kept) preds.set(e.to, [...(preds.get(e.to) ?? []), e.from])
        const chain = longestChain(ids, preds)
        for (let i = 1; i < chain.length; i++) expect(preds.get(chain[i]!)).toContain(chain[i - 1])
      }),
      {numRuns: 200},
    )
  })
})

/** A small well-formedness check of XML: balanced tags, quoted attributes, known entities, no stray < or &. */
function wellFormed(xml: string): void {
  const stack: string[] = []
  const re = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|([<>])|&(?!(?:amp|lt|gt|quot|#39|#\d+);)/g
  for (const m of xml.matchAll(re)) {
    if (m[0].startsWith('<!--') || m[0].startsWith('<?')) continue
    if (m[0] === '&' || m[5]) throw new Error(`stray ${m[0]} at ${m.index}: ${xml.slice(m.index! - 40, m.index! + 40)}`)
    if (m[4]) continue // self-closing
    if (m[1]) {
      const open = stack.pop()
      if (open !== m[2]) throw new Error(`</${m[2]}> closes <${open}>`)
    } else stack.push(m[2]!)
  }
  if (stack.length) throw new Error(`unclosed ${stack.join(', ')}`)
}

describe('renderers', () => {
  const hostile = 'Fix "quotes" & <script>alert(1)</script> ]] --> x; A -- B {c} [d] #35; \\ \u0007 end'
  const p = task({id: id('r'), title: hostile, tags: ['web']})
  const k1 = task({id: id('s'), parent: p.id, title: 'child'})
  const k2 = task({id: id('t'), depends_on: [k1.id], title: 'second "one"'})
  const g = graphOf([p, k1, k2])

  it('SVG: well-formed, one box per item, hostile titles escaped', () => {
    const svg = renderSvg(g, 'tasks & <things>')
    wellFormed(svg)
    expect(svg.match(/<g class="node /g)).toHaveLength(3)
    expect(svg).not.toContain('<script')
    expect(svg).toContain('&lt;script&gt;')
    expect(svg).not.toContain('\u0007')
    expect(svg).toContain('stroke-dasharray') // the sub-item edge
  })

  it('SVG: standalone, it shrinks to the window; embedded (the board), no style attribute and otherwise the same drawing', () => {
    const file = renderSvg(g, 'tasks')
    const page = renderSvg(g, 'tasks', {embedded: true})
    expect(file.split('\n')[0]).toContain(' style="max-width:100%;height:auto"')
    expect(page).not.toContain('style=')
    expect(page).toBe(file.replace(' style="max-width:100%;height:auto"', ''))
  })

  it('DOT: accepted by Graphviz, with exactly the items and edges of the graph', () => {
    const dot = renderDot(g)
    const plain = execFileSync('dot', ['-Tplain'], {input: dot, encoding: 'utf8'})
    expect(plain.split('\n').filter((l) => l.startsWith('node ')).length).toBe(3)
    expect(plain.split('\n').filter((l) => l.startsWith('edge ')).length).toBe(g.edges.length)
    execFileSync('dot', ['-Tsvg'], {input: dot})
  })

  it('Mermaid: a flowchart whose every line is a node, a link, a class or a style; labels hold no syntax', () => {
    const text = renderMermaid(g)
    const lines = text.trimEnd().split('\n')
    expect(lines[0]).toBe('flowchart TD')
    const declared = new Set<string>()
    for (const line of lines.slice(1)) {
      const node = /^ {2}(n\d+)\["([^"[\]{}<>]*)"\]$/.exec(line)
      const link = /^ {2}(n\d+) (-->|-\.->) (n\d+)$/.exec(line)
      const klass = /^ {2}class (n\d+(?:,n\d+)*) [a-z_]+$/.exec(line)
      const style = /^ {2}(classDef [a-z_]+ |linkStyle \d+(?:,\d+)* )[\w:#,.-]+$/.exec(line)
      expect(node || link || klass || style, line).toBeTruthy()
      if (node) declared.add(node[1]!)
      if (link) expect(declared.has(link[1]!) && declared.has(link[3]!), line).toBe(true)
      if (node) expect(node[2]!.replace(/#\d+;/g, "")).not.toMatch(/[;"#<>]/) // only entity codes carry punctuation Mermaid reads
    }
    expect(declared.size).toBe(3)
    expect(text).toContain('#60;script#62;')
  })
})

describe('SVG layout', () => {
  it('work flows downwards: a dependency is drawn above what waits for it; loose items go in a grid below', () => {
    const a = task({id: id('ua')})
    const b = task({id: id('ub'), depends_on: [a.id]})
    const c = task({id: id('uc'), depends_on: [b.id]})
    const loose = Array.from({length: 30}, (_, i) => task({id: id(`v${String(i).padStart(2, '0')}`)}))
    const svg = renderSvg(graphOf([a, b, c, ...loose]))
    const yOf = (tid: string) => Number(new RegExp(`data-id="${tid}"[^>]*>\\s*<title>[^<]*</title>\\s*<rect class="box" x="[\\d.]+" y="([\\d.]+)"`).exec(svg)?.[1])
    expect(yOf(a.id)).toBeLessThan(yOf(b.id))
    expect(yOf(b.id)).toBeLessThan(yOf(c.id))
    for (const l of loose) expect(yOf(l.id)).toBeGreaterThan(yOf(c.id))
    const width = Number(/width="(\d+)"/.exec(svg)?.[1])
    expect(width).toBeLessThan(30 * 200) // a grid, not one row of 30
  })
})
