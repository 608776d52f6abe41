import {describe, expect, it} from 'vitest'
import {cardChanges, cardFields} from '../../src/core/field-changes'
import type {TaskMeta} from '../../src/core/task'

const meta = (over: Partial<TaskMeta>): TaskMeta =>
  ({id: 'tsk-aaaa', title: 'T', status: 'todo', priority: 2, tags: [], depends_on: [], created_at: '2026-12-01T00:00:00Z', created_by: 'a', updated_at: '2026-12-01T00:00:00Z', updated_by: 'a', revision: 1, ...over}) as TaskMeta

describe('cardChanges', () => {
  it('ignores bookkeeping and reports each field with both values', () => {
    const before = {meta: meta({}), body: 'one\n'}
    const after = {meta: meta({priority: 0, revision: 4, updated_by: 'b', tags: ['x'], fields: {area: 'ui'}}), body: 'two\n'}
    expect(cardChanges(before, after)).toEqual([
      {field: 'priority', before: 2, after: 0},
      {field: 'tags', before: [], after: ['x']},
      {field: 'fields.area', after: 'ui'},
      {field: 'description', before: 'one\n', after: 'two\n'},
    ])
  })
  it('a created card changes every set field; a removed one the same, backwards', () => {
    const card = {meta: meta({owner: 'bob'}), body: ''}
    const made = cardChanges(null, card)
    expect(made.map((c) => c.field)).toContain('owner')
    expect(made.every((c) => !('before' in c))).toBe(true)
    expect(cardChanges(card, null).every((c) => !('after' in c))).toBe(true)
  })
  it('the same card is no change, whatever the key order', () => {
    const a = {meta: meta({fields: {b: 1, a: 2}}), body: 'x'}
    const b = {meta: meta({fields: {a: 2, b: 1}, revision: 9}), body: 'x'}
    expect(cardChanges(a, b)).toEqual([])
    expect([...cardFields(a).keys()]).toContain('fields.a')
  })
})
