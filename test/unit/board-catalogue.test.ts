/** The board's catalogue (/api/tasks), pure: order, paging while the list changes, query-bound cursors, parameters. */
import {describe, expect, it} from 'vitest'
import {catalogueQuery, cataloguePage} from '../../src/board/catalogue'
import {TaskViewer, type TaskView} from '../../src/core/task-view'
import type {TaskMeta} from '../../src/core/task'
import {T0, snapshot, task} from '../helpers/snapshot'

function views(metas: TaskMeta[]): TaskView[] {
  const v = new TaskViewer(snapshot(metas), 'lead', T0)
  return metas.map((m) => v.view(m))
}
const q = (s: string) => catalogueQuery(new URLSearchParams(s))

describe('the board catalogue', () => {
  it('pages newest first; cards added or changed between pages neither repeat nor hide the older ones', () => {
    const metas = Array.from({length: 7}, () => task())
    const p1 = cataloguePage('main', 'c1', views(metas), q('page_size=3'))
    expect(p1.rows.map((r) => r.id)).toEqual(metas.slice(4).reverse().map((m) => m.id))
    // Before page 2: a new card, and an old one edited (its updated_at moves, not its place).
    const newer = task({created_at: '2030-01-01T00:00:00.000Z'})
    metas[1] = {...metas[1]!, title: 'edited', updated_at: '2030-01-02T00:00:00.000Z', revision: 2}
    const now = views([...metas, newer])
    const p2 = cataloguePage('main', 'c2', now, q(`page_size=3&cursor=${p1.next_cursor}`))
    const p3 = cataloguePage('main', 'c2', now, q(`page_size=3&cursor=${p2.next_cursor}`))
    expect(p3.next_cursor).toBeNull()
    expect([...p1.rows, ...p2.rows, ...p3.rows].map((r) => r.id)).toEqual(metas.slice().reverse().map((m) => m.id))
  })

  it('ties in creation time are broken by the id, so a page boundary inside a tie loses nothing', () => {
    const at = '2026-01-01T00:00:00.000Z'
    const metas = ['tsk-aaaaaa', 'tsk-bbbbbb', 'tsk-cccccc', 'tsk-dddddd'].map((id) => task({id, created_at: at}))
    const p1 = cataloguePage('main', 'c', views(metas), q('page_size=3'))
    const p2 = cataloguePage('main', 'c', views(metas), q(`page_size=3&cursor=${p1.next_cursor}`))
    expect([...p1.rows, ...p2.rows].map((r) => r.id)).toEqual(['tsk-dddddd', 'tsk-cccccc', 'tsk-bbbbbb', 'tsk-aaaaaa'])
  })

  it('filters by words (all of them) and by states; the cursor belongs to its request', () => {
    const metas = [task({title: 'Fix the login form', tags: ['web']}), task({title: 'Fix the build'}), task({title: 'login audit', status: 'done', closed_at: T0})]
    const rows = views(metas)
    expect(cataloguePage('main', 'c', rows, q('query=fix+LOGIN')).rows.map((r) => r.title)).toEqual(['Fix the login form'])
    expect(cataloguePage('main', 'c', rows, q('query=login&status=done')).rows.map((r) => r.title)).toEqual(['login audit'])
    expect(cataloguePage('main', 'c', rows, q('status=open')).total).toBe(2)
    const first = cataloguePage('main', 'c', rows, q('query=fix&page_size=1'))
    expect(() => cataloguePage('main', 'c', rows, q(`query=login&page_size=1&cursor=${first.next_cursor}`))).toThrow(expect.objectContaining({code: 'bad_cursor'}))
    expect(() => cataloguePage('main', 'c', rows, q(`query=fix&page_size=2&cursor=${first.next_cursor}`))).toThrow(expect.objectContaining({code: 'bad_cursor'}))
    expect(cataloguePage('main', 'c', rows, q(`query=fix&page_size=1&cursor=${first.next_cursor}`)).rows.map((r) => r.title)).toEqual(['Fix the login form'])
  })

  it('refuses parameters it does not know, repeated ones and bad sizes (exit-2 errors: HTTP 400)', () => {
    for (const [s, code] of [['limit=3', 'bad_request'], ['page_size=1&page_size=2', 'bad_request'], ['page_size=-1', 'bad_page_size'], ['page_size=2.5', 'bad_page_size'], ['status=nope', 'bad_status'], ['cursor=%%%', 'bad_cursor']] as const) {
      expect(() => cataloguePage('main', 'c', [], q(s)), s).toThrow(expect.objectContaining({code, exitCode: 2}))
    }
    expect(q('')).toMatchObject({query: '', states: null, pageSize: 50, cursor: null})
  })
})
