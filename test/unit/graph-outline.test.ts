import {describe, expect, it} from 'vitest'
import type {TaskGraph} from '../../src/core/task-graph'
import {printsOutline} from '../../src/commands/graph-tty'
import {outlineLayers, renderGraphOutline} from '../../src/render/graph-outline'

const plain = {color: false, width: 100}
const node = (id: string, title: string, extra: Partial<TaskGraph['nodes'][number]> = {}) => ({
  id: `tsk-${id}`, short_id: `tsk-${id.slice(0, 4)}`, title, status: 'todo' as const, state: 'waiting' as const, priority: 2,
  owner: null, assignee: null, parent: null, tags: [], ready: false, critical: false, ...extra,
})

describe('tasks graph on a terminal', () => {
  it('prints text, not SVG, only on a TTY with neither --format nor --out', () => {
    expect(printsOutline(undefined, undefined, true)).toBe(true)
    expect(printsOutline(undefined, undefined, false)).toBe(false)
    expect(printsOutline('svg', undefined, true)).toBe(false)
    expect(printsOutline(undefined, 'g.svg', true)).toBe(false)
  })

  it('lays items out after what they wait on, with the critical path and the ready items marked', () => {
    const g: TaskGraph = {
      nodes: [
        node('cccccccc', 'Ship it', {critical: true}),
        node('aaaaaaaa', 'Design the schema with a title longer than forty characters in full', {state: 'ready', ready: true, critical: true}),
        node('bbbbbbbb', 'Write the parser', {state: 'in_progress', status: 'in_progress', owner: 'agent-1'}),
      ],
      edges: [
        {from: 'tsk-aaaaaaaa', to: 'tsk-cccccccc', kind: 'depends', critical: true},
        {from: 'tsk-bbbbbbbb', to: 'tsk-cccccccc', kind: 'depends', critical: false},
      ],
      critical_path: ['tsk-aaaaaaaa', 'tsk-cccccccc'],
      frontier: ['tsk-aaaaaaaa'],
      dropped_edges: [],
    }
    const text = renderGraphOutline(plain, g, 'main: 3 items')
    expect(text).not.toContain('<svg')
    const lines = text.split('\n')
    const at = (s: string) => lines.findIndex((l) => l.includes(s))
    expect(at('layer 1')).toBeLessThan(at('tsk-aaaa  ready'))
    expect(at('tsk-aaaa  ready')).toBeLessThan(at('layer 2'))
    expect(at('layer 2')).toBeLessThan(at('tsk-cccc  waiting'))
    expect(lines[at('tsk-cccc  waiting')]).toContain('(after tsk-aaaa, tsk-bbbb)')
    expect(lines[at('tsk-bbbb')]).toContain('in progress @agent-1  Write the parser')
    expect(text).toContain('Design the schema with a title longer than forty characters in full')
    expect(lines[at('tsk-aaaa  ready')]).toMatch(/^ {2}\* /)
    expect(text).toContain('critical path: tsk-aaaa -> tsk-cccc')
    expect(text).toContain('ready now: 1')
    expect(text).toContain('tasks graph --out graph.svg')
  })

  it('outlineLayers: each item after what it waits on and under its parent; the items linked to nothing in layer 1, or last and apart', () => {
    const g: TaskGraph = {
      nodes: [node('dddddddd', 'Loose'), node('cccccccc', 'Child'), node('bbbbbbbb', 'Parent'), node('aaaaaaaa', 'First')],
      edges: [
        {from: 'tsk-aaaaaaaa', to: 'tsk-bbbbbbbb', kind: 'depends', critical: false},
        {from: 'tsk-bbbbbbbb', to: 'tsk-cccccccc', kind: 'subitem', critical: false},
      ],
      critical_path: [],
      frontier: [],
      dropped_edges: [],
    }
    const shape = (ls: ReturnType<typeof outlineLayers>) => ls.map((l) => [l.layer, l.items.map((i) => [i.node.id.slice(4, 5), i.after.join(), i.parent ?? ''])])
    expect(shape(outlineLayers(g))).toEqual([
      [0, [['d', '', ''], ['a', '', '']]],
      [1, [['b', 'tsk-aaaaaaaa', '']]],
      [2, [['c', '', 'tsk-bbbbbbbb']]],
    ])
    expect(shape(outlineLayers(g, {looseApart: true}))).toEqual([
      [0, [['a', '', '']]],
      [1, [['b', 'tsk-aaaaaaaa', '']]],
      [2, [['c', '', 'tsk-bbbbbbbb']]],
      [-1, [['d', '', '']]],
    ])
  })

  it('says what to do on an empty graph', () => {
    expect(renderGraphOutline(plain, {nodes: [], edges: [], critical_path: [], frontier: [], dropped_edges: []}, 'main: 0 items')).toContain('tasks add')
  })
})
