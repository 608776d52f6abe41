import {describe, expect, it} from 'vitest'
import {type DiffStep, buildListDiff, cardFileOf, cardsWithoutTaskFile} from '../../src/core/list-diff'
import {type Check, checkPath} from '../../src/core/check'
import {serialiseCheck} from '../../src/core/check'
import {commentPath, taskFilePath} from '../../src/core/store-layout'
import type {TaskMeta} from '../../src/core/task'
import {serialiseComment, serialiseTask} from '../../src/core/task-file'
import {unifiedDiff} from '../../src/merge/unified-diff'

const A = 'tsk-k3v9k3v9k3'
const B = 'tsk-8d2q8d2q8d'
const C = 'tsk-zz00zz00zz'

const meta = (id: string, over: Partial<TaskMeta> = {}): TaskMeta =>
  ({id, title: 'T', status: 'todo', priority: 2, tags: [], depends_on: [], epoch: 0, created_at: '2026-12-01T00:00:00.000Z', created_by: 'a', updated_at: '2026-12-01T00:00:00.000Z', updated_by: 'a', revision: 1, ...over}) as TaskMeta
const task = (id: string, over: Partial<TaskMeta> = {}, body = ''): string => serialiseTask(meta(id, over), body)
const check = (task: string, over: Partial<Check> = {}): Check => ({
  id: 'chk-aaaaaaaa',
  task,
  kind: 'test',
  text: 'tests pass',
  status: 'pending',
  spec_revision: 1,
  added_by: 'a',
  added_at: '2026-12-01T00:00:00.000Z',
  updated_by: 'a',
  updated_at: '2026-12-01T00:00:00.000Z',
  ...over,
})
const header = {list: 'main', from: {commit: 'a'.repeat(40), date: 'd0', input: null}, to: {commit: 'b'.repeat(40), date: 'd1', input: null}, actors: null}
const build = (steps: DiffStep[], titles?: Map<string, string>) => buildListDiff(header, steps, unifiedDiff, titles, (id) => id.slice(0, 8))
const step = (files: DiffStep['files'], actor: string | null = null): DiffStep => ({commit: null, actor, files})

describe('unifiedDiff', () => {
  it('hunks with three lines of context, both ranges, a changed and an added line', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\n'
    const after = 'a\nb\nc\nD\ne\nf\ng\nh\ni\n'
    expect(unifiedDiff(before, after)).toEqual(['@@ -1,8 +1,9 @@', ' a', ' b', ' c', '-d', '+D', ' e', ' f', ' g', ' h', '+i'])
  })
  it('far-apart changes are separate hunks; a new text is all additions; the same text no lines', () => {
    const lines = Array.from({length: 20}, (_, i) => `l${i}`)
    const changed = [...lines]
    changed[1] = 'X'
    changed[18] = 'Y'
    const d = unifiedDiff(`${lines.join('\n')}\n`, `${changed.join('\n')}\n`)
    expect(d.filter((l) => l.startsWith('@@'))).toEqual(['@@ -1,5 +1,5 @@', '@@ -16,5 +16,5 @@'])
    expect(unifiedDiff('', 'x\ny\n')).toEqual(['@@ -0,0 +1,2 @@', '+x', '+y'])
    expect(unifiedDiff('x\n', 'x\n')).toEqual([])
    expect(unifiedDiff('x', 'x\n')).toEqual(['@@ -1 +1 @@', '-x', '\\ No newline at end of file', '+x'])
  })
})

describe('buildListDiff', () => {
  it('cards added, removed and changed, field by field with both values, the description as a diff', () => {
    const d = build([
      step([
        {path: taskFilePath(A), before: task(A, {title: 'Old'}, 'one\ntwo\n'), after: task(A, {title: 'New', status: 'done', owner: 'bob', tags: ['x'], revision: 3, lease_expires: '2026-12-02T00:00:00.000Z'}, 'one\n2\n')},
        {path: taskFilePath(B), before: null, after: task(B, {title: 'Made', fields: {area: 'ui'}})},
        {path: taskFilePath(C), before: task(C, {title: 'Gone'}), after: null},
        {path: 'config.yaml', before: 'x', after: 'y'},
      ]),
    ])
    expect(d.summary).toEqual({added: 1, removed: 1, changed: 1, checks_added: 0, checks_passed: 0, checks_failed: 0, comments: 0})
    const [b, a, c] = d.cards // sorted by id: tsk-8d…, tsk-k3…, tsk-zz…
    expect(a).toEqual({
      id: A,
      short_id: A.slice(0, 8),
      title: 'New',
      change: 'changed',
      fields: [
        {field: 'title', before: 'Old', after: 'New'},
        {field: 'status', before: 'todo', after: 'done'},
        {field: 'tags', before: [], after: ['x']},
        {field: 'owner', after: 'bob'},
        {field: 'description', before: 'one\ntwo\n', after: 'one\n2\n', diff: ['@@ -1,2 +1,2 @@', ' one', '-two', '+2']},
      ],
      checks: [],
      comments: [],
    })
    expect(b!.change).toBe('added')
    expect(b!.fields.map((f) => f.field)).toEqual(['title', 'status', 'priority', 'created_at', 'created_by', 'fields.area']) // no empty lists, no epoch
    expect(c).toMatchObject({id: C, change: 'removed', title: 'Gone'})
  })

  it('checks added, passed and failed with who; comments added with their first line; titles of untouched cards handed in', () => {
    const files = [
      {path: checkPath(A, 'chk-aaaaaaaa'), before: serialiseCheck(check(A)), after: serialiseCheck(check(A, {status: 'passed', passed_by: 'bob', evidence: 'ci green'}))},
      {path: checkPath(A, 'chk-bbbbbbbb'), before: null, after: serialiseCheck(check(A, {id: 'chk-bbbbbbbb', text: 'docs', added_by: 'carol'}))},
      {path: checkPath(A, 'chk-cccccccc'), before: serialiseCheck(check(A, {id: 'chk-cccccccc'})), after: serialiseCheck(check(A, {id: 'chk-cccccccc', status: 'failed', failed_by: 'dan', evidence: 'red'}))},
      {path: commentPath(A, '20261202T090000.000Z-aaaa'), before: null, after: serialiseComment({id: 'x', task: A, kind: 'note', author: 'bob', created_at: '2026-12-02T09:00:00.000Z', body: '\nFirst line\nsecond'})},
    ]
    expect(cardsWithoutTaskFile([step(files)])).toEqual([A])
    const d = build([step(files)], new Map([[A, 'Title at TO']]))
    expect(d.summary).toEqual({added: 0, removed: 0, changed: 1, checks_added: 1, checks_passed: 1, checks_failed: 1, comments: 1})
    expect(d.cards[0]!.title).toBe('Title at TO')
    expect(d.cards[0]!.checks).toEqual([
      {id: 'chk-aaaaaaaa', kind: 'test', text: 'tests pass', before: 'pending', after: 'passed', event: 'passed', by: 'bob', evidence: 'ci green'},
      {id: 'chk-bbbbbbbb', kind: 'test', text: 'docs', before: null, after: 'pending', event: 'added', by: 'carol', evidence: null},
      {id: 'chk-cccccccc', kind: 'test', text: 'tests pass', before: 'pending', after: 'failed', event: 'failed', by: 'dan', evidence: 'red'},
    ])
    expect(d.cards[0]!.comments).toEqual([{id: '20261202T090000.000Z-aaaa', kind: 'note', author: 'bob', created_at: '2026-12-02T09:00:00.000Z', first_line: 'First line'}])
  })

  it("steps compose field by field: another actor's change between two steps is not counted; set and set back is no change", () => {
    const v1 = task(A, {title: 'T', priority: 2})
    const v2 = task(A, {title: 'T', priority: 0}) // actor: priority 2 → 0
    const v3 = task(A, {title: 'Renamed', priority: 0}) // someone else renames (not a step)
    const v4 = task(A, {title: 'Renamed', priority: 1, status: 'in_progress'}) // actor: priority 0 → 1, status
    const v5 = task(A, {title: 'Renamed', priority: 1, status: 'todo'}) // actor: status back
    const d = build([step([{path: taskFilePath(A), before: v1, after: v2}], 'x'), step([{path: taskFilePath(A), before: v3, after: v4}], 'x'), step([{path: taskFilePath(A), before: v4, after: v5}], 'x')])
    expect(d.cards).toHaveLength(1)
    expect(d.cards[0]!.fields).toEqual([{field: 'priority', before: 2, after: 1}])
    expect(d.cards[0]!.title).toBe('Renamed')
  })

  it('added and removed inside the window is nothing; a heartbeat alone is nothing; a broken file is reported by path', () => {
    const d = build([
      step([{path: taskFilePath(A), before: null, after: task(A)}]),
      step([{path: taskFilePath(A), before: task(A), after: null}]),
      step([{path: taskFilePath(B), before: task(B, {lease_expires: '2026-12-01T01:00:00.000Z', owner: 'x'}), after: task(B, {lease_expires: '2026-12-01T02:00:00.000Z', owner: 'x', revision: 2})}]),
      step([{path: taskFilePath(C), before: task(C), after: 'not a task file'}]),
    ])
    expect(d.cards).toEqual([])
    expect(d.broken.map((b) => b.path)).toEqual([taskFilePath(C)])
  })

  it('paths: a card file by kind, anything else null', () => {
    expect(cardFileOf(taskFilePath(A))).toEqual({id: A, kind: 'task'})
    expect(cardFileOf(checkPath(A, 'chk-aaaaaaaa'))).toEqual({id: A, kind: 'check', name: 'chk-aaaaaaaa'})
    expect(cardFileOf('tasks/ab/stray.md')).toBeNull()
    expect(cardFileOf('config.yaml')).toBeNull()
  })
})
