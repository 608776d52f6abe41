/** The board's server-rendered HTML: columns, escaping of every store string, and safe Markdown. */
import {describe, expect, it} from 'vitest'
import {COLUMNS, PAGE, card, columnPage, columnsOf, type PageContext} from '../../src/board/pages'
import {renderMarkdown} from '../../src/board/markdown'
import {TaskViewer, type TaskView} from '../../src/core/task-view'
import {T0, snapshot, task} from '../helpers/snapshot'

const ctx: PageContext = {list: 'main', actor: 'lead', commit: 'c0ffee', now: T0, token: 'secret'}

function views(metas: Parameters<typeof snapshot>[0]): TaskView[] {
  const snap = snapshot(metas)
  const v = new TaskViewer(snap, 'lead', T0)
  return metas.map((m) => v.view(m))
}

describe('board pages', () => {
  it('every state lands in one column (cancelled ones are left out)', () => {
    const a = task({title: 'ready one'})
    const b = task({title: 'waits', depends_on: [a.id]})
    const c = task({title: 'held', status: 'in_progress', owner: 'x', epoch: 1, claimed_at: T0, lease_expires: '2026-11-29T13:00:00.000Z'})
    const d = task({title: 'stuck', status: 'blocked', owner: 'x', epoch: 1, block_note: 'why'})
    const e = task({title: 'finished', status: 'done', closed_at: T0})
    const f = task({title: 'dropped', status: 'cancelled', cancel_reason: 'no', closed_at: T0})
    const g = task({title: 'for bob', assignee: 'bob'})
    const cols = columnsOf(views([a, b, c, d, e, f, g]), {})
    const titles = (k: string) => cols.get(k)!.map((t) => t.title)
    expect(COLUMNS.map((col) => col.key)).toEqual(['ready', 'waiting', 'in_progress', 'blocked', 'done'])
    expect(titles('ready')).toEqual(['ready one', 'for bob'])
    expect(titles('waiting')).toEqual(['waits'])
    expect(titles('in_progress')).toEqual(['held'])
    expect(titles('blocked')).toEqual(['stuck'])
    expect(titles('done')).toEqual(['finished'])
    // Filters: text, tag, owner.
    expect(columnsOf(views([a, b, c]), {q: 'WAIT'}).get('waiting')!.length).toBe(1)
    expect([...columnsOf(views([a, b, c]), {owner: 'x'}).values()].flat().map((t) => t.title)).toEqual(['held'])
  })

  it('issue 33: cards show due dates (overdue marked); deferred cards wait, failed ones end in Done', () => {
    const due = task({title: 'due soon', due: '2026-12-05'})
    const late = task({title: 'late', due: '2026-11-01'})
    const parked = task({title: 'parked', status: 'deferred', defer_until: '2027-01-01', defer_reason: 'freeze'})
    const broke = task({title: 'broke', status: 'failed', fail_reason: 'vendor', closed_at: T0})
    const [vd, vl, vp, vb] = views([due, late, parked, broke])
    expect(card(vd!, ctx)).toContain('due 2026-12-05')
    expect(card(vl!, ctx)).toMatch(/badge warn due[^>]*>overdue 2026-11-01/)
    expect(card(vp!, ctx)).toContain('deferred until 2027-01-01')
    expect(card(vp!, ctx)).toContain('data-action="reopen"')
    const cols = columnsOf([vd!, vl!, vp!, vb!], {})
    expect(cols.get('waiting')!.map((t) => t.title)).toEqual(['parked'])
    expect(cols.get('done')!.map((t) => t.title)).toEqual(['broke'])
  })

  it('a card escapes every string from the store and offers only the actions that can work', () => {
    const hostile = task({title: '<img src=x onerror=alert(1)> "quoted"', tags: ['x']})
    const html = card(views([hostile])[0]!, ctx)
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot;')
    expect(html).toContain('data-action="claim"')
    const waiting = task({depends_on: ['tsk-0000000zzz']})
    expect(card(views([waiting])[0]!, ctx)).not.toContain('data-action="claim"')
    const reserved = card(views([task({assignee: '<b>"bob"'})])[0]!, ctx)
    expect(reserved).toContain('reserved for &lt;b&gt;&quot;bob&quot;')
    expect(reserved).not.toContain('data-action="claim"') // reserved for someone else
    // Read-only pages (no token) offer no actions at all.
    expect(card(views([hostile])[0]!, {...ctx, token: null})).not.toContain('data-action')
  })

  it('columns are paginated', () => {
    const many = Array.from({length: PAGE + 5}, (_, i) => task({title: `item ${i}`}))
    const vs = views(many)
    const first = columnPage('ready', vs, 0, ctx, {tag: 'a&b'})
    expect(first.match(/<article/g)).toHaveLength(PAGE)
    expect(first).toContain(`data-offset="${PAGE}"`)
    expect(first).toContain('data-filters="tag=a%26b"')
    expect(columnPage('ready', vs, PAGE, ctx, {}).match(/<article/g)).toHaveLength(5)
  })

  it('Markdown: formatting kept, raw HTML and script links dropped', () => {
    const html = renderMarkdown('**b** <script>x()</script> <b onclick="y()">t</b>\n\n[a](javascript:alert(1)) [ok](https://example.com)')
    expect(html).toContain('<strong>b</strong>')
    expect(html).toContain('&lt;script&gt;')
    expect(html).not.toMatch(/<script|<b |href="javascript/)
    expect(html).toContain('href="https://example.com" rel="noopener noreferrer nofollow"')
  })
})

describe('a parent card on the board (issue 33)', () => {
  it('shows its sub-items done, of those not cancelled', () => {
    const parent = task({title: 'parent'})
    const kids = [task({parent: parent.id, status: 'done', closed_at: T0}), task({parent: parent.id}), task({parent: parent.id, status: 'cancelled', cancel_reason: 'no', closed_at: T0})]
    const html = card(views([parent, ...kids])[0]!, ctx)
    expect(html).toContain('1/2 sub-items done')
  })
})
