/**
 * The pure blame walk (core/blame.ts): versions of a card along a made-up
 * history in, the commit blamed for each field and line out.
 */
import {describe, expect, it} from 'vitest'
import {BlameWalk, type BlameStep, descriptionLines} from '../../src/core/blame'
import type {CardVersion} from '../../src/core/field-changes'
import type {TaskMeta} from '../../src/core/task'
import {matchLines} from '../../src/merge/text-merge'
import {renderBlame} from '../../src/render/blame'

function card(meta: Record<string, unknown>, body = ''): CardVersion {
  return {meta: {id: 'tsk-aaaaaaaaaa', revision: 1, ...meta} as unknown as TaskMeta, body}
}

/** A step by `commit` (actor = the commit's name upper-cased, op edit) with its parents. */
function step(commit: string, version: CardVersion | null, parents: Array<[string, CardVersion | null]>): BlameStep {
  return {commit, actor: commit.toUpperCase(), date: '2030-01-01T00:00:00Z', op: 'edit', version, parents: parents.map(([c, v]) => ({commit: c, version: v}))}
}

const who = (b: {commit: string}) => b.commit

describe('descriptionLines', () => {
  it('a final newline ends the last line', () => {
    expect(descriptionLines('')).toEqual([])
    expect(descriptionLines('a\nb\n')).toEqual(['a', 'b'])
    expect(descriptionLines('a\n\nb')).toEqual(['a', '', 'b'])
  })
})

describe('BlameWalk on a line of commits', () => {
  // c1 adds; c2 sets priority 1 and tag x; c3 rewrites line 2 and appends line 4; c4 sets priority back to 2.
  const v1 = card({title: 'T', status: 'todo', priority: 2}, 'one\ntwo\nthree\n')
  const v2 = card({title: 'T', status: 'todo', priority: 1, tags: ['x']}, 'one\ntwo\nthree\n')
  const v3 = card({title: 'T', status: 'todo', priority: 1, tags: ['x']}, 'one\nTWO\nthree\nfour\n')
  const v4 = card({title: 'T', status: 'todo', priority: 2, tags: ['x']}, 'one\nTWO\nthree\nfour\n')

  it('blames each field on the newest commit that set its value, and each line on the commit that wrote it', () => {
    const w = new BlameWalk(v4, matchLines)
    w.step(step('c4', v4, [['c3', v3]]))
    w.step(step('c3', v3, [['c2', v2]]))
    w.step(step('c2', v2, [['c1', v1]]))
    expect(w.done).toBe(false)
    w.step(step('c1', v1, []))
    expect(w.done).toBe(true)
    const r = w.result()
    expect(r.fields.map((f) => [f.field, f.value, who(f)])).toEqual([
      ['title', 'T', 'c1'],
      ['status', 'todo', 'c1'],
      // Set back to 2 by c4: c4 set the value it holds, not c1.
      ['priority', 2, 'c4'],
      ['tags', ['x'], 'c2'],
    ])
    expect(r.lines.map((l) => [l.line, l.text, who(l), l.actor])).toEqual([
      [1, 'one', 'c1', 'C1'],
      [2, 'TWO', 'c3', 'C3'],
      [3, 'three', 'c1', 'C1'],
      [4, 'four', 'c3', 'C3'],
    ])
    expect(w.steps).toBe(4)
  })

  it('is done as soon as everything is explained, and no longer wants older commits', () => {
    const top = card({title: 'New', status: 'done'}, 'x\n')
    const w = new BlameWalk(top, matchLines)
    expect(w.wants('t')).toBe(true)
    w.step(step('t', top, [['p', card({title: 'Old', status: 'todo'}, 'y\n')]]))
    expect(w.done).toBe(true)
    expect(w.wants('p')).toBe(false)
    expect(w.result().fields.map(who)).toEqual(['t', 't'])
  })

  it('blames what is still open when the history ends on the oldest commit that held it', () => {
    const w = new BlameWalk(v2, matchLines)
    w.step(step('c2', v2, [['c1', v1]]))
    const r = w.result()
    expect(r.fields.find((f) => f.field === 'title')?.commit).toBe('c2')
    expect(r.fields.find((f) => f.field === 'priority')?.commit).toBe('c2')
    expect(r.lines.map(who)).toEqual(['c2', 'c2', 'c2'])
  })

  it('a card that was removed and came back: its values are the restoring commit\'s', () => {
    const w = new BlameWalk(v1, matchLines)
    w.step(step('r', v1, [['rm', null]]))
    expect(w.done).toBe(true)
    expect(w.result().fields.every((f) => f.commit === 'r')).toBe(true)
  })
})

describe('BlameWalk through a merge', () => {
  // base b; ours (first parent) o sets title and line 1; theirs (second parent) t sets priority and appends a line;
  // the merge m takes both and the reconciler changes status (a value neither side had).
  const b = card({title: 'T', status: 'todo', priority: 2}, 'one\ntwo\n')
  const o = card({title: 'Ours', status: 'todo', priority: 2}, 'ONE\ntwo\n')
  const t = card({title: 'T', status: 'todo', priority: 0}, 'one\ntwo\nthree\n')
  const m = card({title: 'Ours', status: 'blocked', priority: 0}, 'ONE\ntwo\nthree\n')

  it('a value from one side is blamed on the commit there that set it; one the merge made, on the merge', () => {
    const w = new BlameWalk(m, matchLines)
    w.step(step('m', m, [['o', o], ['t', t]]))
    w.step(step('t', t, [['b', b]]))
    w.step(step('o', o, [['b', b]]))
    expect(w.done).toBe(false)
    w.step(step('b', b, []))
    expect(w.done).toBe(true)
    const r = w.result()
    expect(Object.fromEntries(r.fields.map((f) => [f.field, who(f)]))).toEqual({title: 'o', status: 'm', priority: 't'})
    expect(r.lines.map((l) => [l.text, who(l)])).toEqual([
      ['ONE', 'o'],
      ['two', 'b'],
      ['three', 't'],
    ])
  })

  it('a value both sides hold passes to the first parent', () => {
    const w = new BlameWalk(m, matchLines)
    const o2 = card({title: 'Ours', status: 'blocked', priority: 0}, 'ONE\ntwo\nthree\n')
    w.step(step('m', m, [['o2', o2], ['t', t]]))
    w.step(step('t', t, []))
    w.step(step('o2', o2, []))
    expect(w.result().fields.find((f) => f.field === 'priority')?.commit).toBe('o2')
  })
})

describe('BlameWalk in date order', () => {
  it('a parent stepped before its child (a clock ahead) is stepped again when values reach it', () => {
    const b = card({title: 'T', priority: 2})
    const t = card({title: 'T', priority: 0})
    const m = card({title: 'M', priority: 0})
    const w = new BlameWalk(m, matchLines)
    w.step(step('m', m, [['t', t]]))
    expect([...w.waitingAt()]).toEqual(['t'])
    w.step(step('t', t, [['b', b]]))
    // b came before t in the log: nothing waited on it then.
    w.step(step('b', b, []))
    expect(w.done).toBe(true)
    expect(Object.fromEntries(w.result().fields.map((f) => [f.field, who(f)]))).toEqual({title: 'm', priority: 't'})
    const x = new BlameWalk(m, matchLines)
    x.step(step('m', m, [['t', t]]))
    x.step(step('b', b, []))
    expect(x.done).toBe(false)
    x.step(step('t', t, [['b', b]]))
    expect([...x.waitingAt()]).toEqual([])
    expect(x.done).toBe(true)
  })
})

describe('renderBlame', () => {
  const by = {commit: 'c4ac90713695ecdb14078ca63acd8f511e7980be', actor: 'alice', date: '2030-01-01T00:00:00+00:00', op: 'add'}
  const r = {list: 'main', task: 'tsk-aaaaaaaaaa', at: null, commit: by.commit, walked: 1, fields: [{field: 'title', value: 'A title', ...by}, {field: 'tags', value: ['x', 'y'], ...by}], description: [{line: 1, text: 'a line of the description that is long', ...by}]}

  it('prints the table and git-blame lines, cut to the width, the time left out when narrow, colour only when asked', () => {
    const wide = renderBlame({color: false, width: 200}, r)
    expect(wide).toMatch(/^title +A title +c4ac907136 +alice +\S+ \S+ [+-]\d\d:\d\d +add$/m)
    expect(wide).toMatch(/^tags +x, y +c4ac907136/m)
    expect(wide).toMatch(/^c4ac907136 \(alice \S+ \S+ [+-]\d\d:\d\d 1\) a line of the description that is long$/m)
    expect(wide).not.toContain('\u001b[')
    const narrow = renderBlame({color: false, width: 40}, r)
    expect(narrow).toContain('c4ac907136 (alice 1) a line of the desc…')
    expect(narrow.trimEnd().split('\n').at(-1)!.length).toBeLessThanOrEqual(40)
    expect(renderBlame({color: true, width: 200}, r)).toContain('\u001b[33mc4ac907136\u001b[39m')
  })
})
