/**
 * The board's drag-and-drop moves (which action a drop on a column sends,
 * from the card's status), its refusals in its own words (no CLI command
 * or flag a person on the page cannot act on), and its empty states.
 */
import {describe, expect, it} from 'vitest'
import {moveFor, movesOf} from '../../src/board/moves'
import {pageWording, withoutCliAdvice} from '../../src/board/wording'
import {type PageContext, boardPage, columnsOf} from '../../src/board/pages'
import type {ListResult} from '../../src/app/list-query'
import {TaskViewer, type TaskView} from '../../src/core/task-view'
import {T0, snapshot, task} from '../helpers/snapshot'

describe('board moves', () => {
  it('maps a drop on a column to the same action the buttons send', () => {
    expect(movesOf('todo')).toEqual({in_progress: 'claim', blocked: 'block', done: 'done'})
    expect(movesOf('in_progress')).toEqual({ready: 'release', waiting: 'release', blocked: 'block', done: 'done'})
    expect(movesOf('blocked')).toEqual({ready: 'reopen', waiting: 'reopen', in_progress: 'claim', done: 'done'})
    expect(movesOf('done')).toEqual({ready: 'reopen', waiting: 'reopen', in_progress: '!It is done: drag it back to Ready first to reopen it', blocked: '!It is done: drag it back to Ready first to reopen it'})
    expect(moveFor('failed', 'done')).toEqual({refuse: 'It failed: drag it to Ready to reopen it, then finish it'})
    expect(moveFor('deferred', 'ready')).toEqual({action: 'reopen'})
    expect(moveFor('deferred', 'in_progress')).toEqual({refuse: 'It is deferred: drag it to Ready first to bring it back'})
    expect(moveFor('todo', 'waiting')).toBeNull()
  })
})

describe('refusals in the board’s words', () => {
  const short = (id: string) => id.replace('tsk-', '').slice(0, 4)
  const NOW = T0
  it('names the holder, the checks and the waits, and links to the card when the next step is there', () => {
    const claimed = {code: 'already_claimed', message: 'tsk-abcdefgh is already claimed by agent-3 (epoch 2, lease until …)', id: 'tsk-abcdefgh', owner: 'agent-3'}
    expect(pageWording(claimed, 'claim', NOW, short)).toEqual({text: 'agent-3 holds this card'})
    const notOwner = {code: 'not_owner', message: 'tsk-abcdefgh is held by agent-3; only the owner may finish it. Claim it first, or use --force --reason "…"', id: 'tsk-abcdefgh', owner: 'agent-3', lease_expires: '2999-01-01T00:00:00Z'}
    expect(pageWording(notOwner, 'done', NOW, short).text).toBe('agent-3 holds this card; only they can move it')
    // Whether the lease ran out is read against the board's clock, not the machine's.
    const lapsed = {...notOwner, lease_expires: '2026-01-01T10:00:00Z'}
    expect(pageWording(lapsed, 'done', '2026-01-01T10:00:01Z', short).text).toBe('agent-3 holds this card (their lease ran out: claim it to take it over)')
    expect(pageWording(lapsed, 'done', '2026-01-01T09:59:59Z', short).text).toBe('agent-3 holds this card; only they can move it')
    const checks = {code: 'checks_pending', message: 'x; pass them with `tasks check pass tsk-abcdefgh CHECK --evidence "…"` or supersede them', id: 'tsk-abcdefgh'}
    expect(pageWording(checks, 'done', NOW, short)).toEqual({text: 'Pass its checks first (open the card)', href: '/task/tsk-abcdefgh', label: 'open abcd'})
    const waiting = {code: 'waiting', message: 'w', id: 'tsk-abcdefgh', blocked_by: [{id: 'tsk-zzzzyyyy', status: 'in_progress', via: null}]}
    expect(pageWording(waiting, 'claim', NOW, short).text).toBe('It waits on zzzz (in progress): finish that first')
    expect(pageWording({...claimed, code: 'already_claimed'}, 'bulk', NOW, short).text).toBe('abcd: agent-3 holds this card — nothing was written')
  })

  it('strips CLI advice from messages it has no sentence for', () => {
    expect(withoutCliAdvice('tsk-a is scheduled for 2030; it is not handed out before then (or use --force --reason "…")')).toBe('tsk-a is scheduled for 2030; it is not handed out before then')
    expect(withoutCliAdvice('session s is held by a; only its owner may end it. Claim it, take it over (`tasks session takeover`), or use --force --reason "…"')).toBe('session s is held by a; only its owner may end it')
    expect(withoutCliAdvice('the title is empty')).toBe('the title is empty')
    const odd = pageWording({code: 'some_new_code', message: 'tsk-a cannot do that; run `tasks doctor` --fix'}, 'claim', NOW)
    expect(odd.text).toBe('tsk-a cannot do that')
    expect(odd.text).not.toMatch(/--|`/)
  })
})

describe('board empty states', () => {
  const ctx: PageContext = {list: 'main', actor: 'lead', commit: 'c0ffee', now: T0, token: 'secret'}
  const listOf = (tasks: TaskView[]) => ({list: 'main', commit: 'c0ffee', tasks: tasks.map((t) => ({...t, depth: 0})), broken: [], warnings: [], total: tasks.length, offset: 0, limit: null, next_cursor: null}) as unknown as ListResult
  const one = () => {
    const a = task({title: 'the only card'})
    return new TaskViewer(snapshot([a]), 'lead', T0).view(a)
  }

  it('an empty list offers the add form (focused), filtered or not; every column has a hint instead of a bare 0', () => {
    for (const f of [{}, {q: 'x'}]) {
      const html = boardPage(ctx, listOf([]), columnsOf([], f), f)
      expect(html).toContain('<h2>No tasks yet — add one</h2>')
      expect(html).toContain('data-focus="add-title"')
      expect(html).toMatch(/id="add-title"[^>]* autofocus/)
      expect(html).not.toContain('data-empty="filter"')
      expect(html.match(/class="empty-hint"/g)).toHaveLength(5)
    }
  })

  it('a filter matching nothing says so and links to the unfiltered board; without a filter nothing is said', () => {
    const rows = [one()]
    const f = {tag: 'nope'}
    const html = boardPage(ctx, listOf(rows), columnsOf(rows, f), f)
    expect(html).toContain('data-empty="filter"')
    expect(html).toContain('No card matches #nope. <a href="/" data-clear-filter>Clear the filter</a> to see all 1 card.')
    expect(html).not.toContain('autofocus')
    const plain = boardPage(ctx, listOf(rows), columnsOf(rows, {}), {})
    expect(plain).not.toContain('data-empty=')
    expect(plain.match(/class="empty-hint"/g)).toHaveLength(4) // the ready column holds the card
  })
})
