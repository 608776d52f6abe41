/**
 * The index cache keeps each card's frontmatter as a JSON array in TASK_KEYS
 * order (task-index.ts, encodeMeta, which writes the keys out one by one).
 * Every key goes to its own place and comes back as it went in.
 */
import {describe, expect, it} from 'vitest'
import {TASK_KEYS, type TaskMeta} from '../../src/core/task'
import {IndexedTask} from '../../src/refstore/task-index'

describe('the cache line of a card', () => {
  it('holds every known key in TASK_KEYS order, then the unknown ones', () => {
    const meta = Object.fromEntries(TASK_KEYS.map((k, i) => [k, `value of ${k} ${i}`])) as unknown as TaskMeta
    meta.extra = {x_custom: [1, 2]}
    const values = JSON.parse(IndexedTask.fromMeta(meta.id, 'ab', 'dir', meta).data()) as unknown[]
    expect(values).toEqual([...TASK_KEYS.map((k) => (meta as unknown as Record<string, unknown>)[k]), {x_custom: [1, 2]}])
  })

  it('writes null for a key that is absent, and reads it back absent', () => {
    const meta = {id: 'tsk-0000000001', title: 't', status: 'todo', priority: 2, tags: [], depends_on: [], epoch: 0, created_at: '2026-01-01T00:00:00.000Z', created_by: 'a', updated_at: '2026-01-01T00:00:00.000Z', updated_by: 'a', revision: 1} as unknown as TaskMeta
    const line = IndexedTask.fromMeta(meta.id, '00', 'dir', meta).data()
    const values = JSON.parse(line) as unknown[]
    expect(values).toHaveLength(TASK_KEYS.length)
    expect(values[TASK_KEYS.indexOf('owner')]).toBeNull()
    const back = new IndexedTask(meta.id, '00', 'dir', 'todo', '', [], line, undefined).meta
    expect(back).toEqual(meta)
    expect(Object.keys(back!)).toEqual(Object.keys(meta))
  })
})
