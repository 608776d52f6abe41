/**
 * Issue 33, item 3, the pure parts: dates as typed and as stored, moving a
 * date on by a repeat interval, a deferral waking at read time (readiness,
 * the open rows and the guard agree), and the next instance of a repeat.
 */
import {describe, expect, it} from 'vitest'
import {UsageError} from '../../src/core/errors'
import {dueBefore, isOverdue, parseDateInput, parseEvery, shiftDate, startMs, wakeMsOf, wokenStatus} from '../../src/core/dates'
import {derivedState, isReady, openRowState} from '../../src/core/readiness'
import {openRowOf, tablesOf} from '../../src/core/snapshot'
import {claimTask} from '../../src/core/ops/claim'
import {finishTask} from '../../src/core/ops/lifecycle'
import {nextInstance} from '../../src/core/ops/states'
import {judgeTaskChange} from '../../src/hooks/rules'
import {DEFAULT_CONFIG} from '../../src/core/task'
import {T0, ctx, snapshot, task} from '../helpers/snapshot'

const NOW = '2026-03-10T12:00:00.000Z'

describe('dates as typed', () => {
  it('keeps a day a day, stores a timestamp in UTC, resolves today, tomorrow and +N', () => {
    expect(parseDateInput('2026-03-20', NOW, '--due')).toBe('2026-03-20')
    expect(parseDateInput('0050-01-01', NOW, '--due')).toBe('0050-01-01')
    expect(parseDateInput('2026-03-20T09:00:00+02:00', NOW, '--due')).toBe('2026-03-20T07:00:00.000Z')
    expect(parseDateInput('today', NOW, '--due')).toBe('2026-03-10')
    expect(parseDateInput('tomorrow', NOW, '--due')).toBe('2026-03-11')
    expect(parseDateInput('+3d', NOW, '--due')).toBe('2026-03-13T12:00:00.000Z')
    expect(parseDateInput('+4h', NOW, '--due')).toBe('2026-03-10T16:00:00.000Z')
    expect(parseDateInput('1m', NOW, '--due')).toBe('2026-04-10T12:00:00.000Z')
    for (const bad of ['2026-02-30', '2026-04-31', '2026-13-01', 'next week', '2026-03-20T09:00:00', '+0d', '']) {
      expect(() => parseDateInput(bad, NOW, '--due'), bad).toThrow(UsageError)
    }
  })

  it('repeat intervals: N followed by d, w, m or y; scitex\'s leading + is allowed', () => {
    expect(parseEvery('1w')).toBe('1w')
    expect(parseEvery('+1m')).toBe('1m')
    expect(parseEvery(' 10d ')).toBe('10d')
    for (const bad of ['w', '0d', '1h', 'weekly', '1000d']) expect(() => parseEvery(bad), bad).toThrow(UsageError)
  })

  it('moves a date on by an interval, a day staying a day, month ends clamped', () => {
    expect(shiftDate('2026-03-06', '1w')).toBe('2026-03-13')
    expect(shiftDate('2026-01-31', '1m')).toBe('2026-02-28')
    expect(shiftDate('2024-02-29', '1y')).toBe('2025-02-28')
    expect(shiftDate('2026-03-06T09:30:00.000Z', '2d')).toBe('2026-03-08T09:30:00.000Z')
  })

  it('a due day is missed once it is over; a start day begins at its start', () => {
    expect(isOverdue({status: 'todo', due: '2026-03-10'}, Date.parse(NOW))).toBe(false)
    expect(isOverdue({status: 'todo', due: '2026-03-09'}, Date.parse(NOW))).toBe(true)
    expect(isOverdue({status: 'done', due: '2026-03-09'}, Date.parse(NOW))).toBe(false)
    expect(isOverdue({status: 'failed', due: '2026-03-09'}, Date.parse(NOW))).toBe(false)
    expect(dueBefore({due: '2026-03-11'}, startMs('2026-03-12'))).toBe(true)
    expect(dueBefore({due: '2026-03-12'}, startMs('2026-03-12'))).toBe(false)
  })
})

describe('a deferral wakes at read time', () => {
  const config = DEFAULT_CONFIG
  const deferred = task({status: 'deferred', defer_until: '2026-03-12', defer_reason: 'freeze'})
  const forever = task({status: 'deferred', defer_reason: 'someday'})
  const scheduled = task({scheduled: '2026-03-12T06:00:00.000Z'})
  const snap = snapshot([deferred, forever, scheduled])
  const rows = tablesOf(snap).openRows().rows

  it('the card, the open rows and readiness agree before and after the date', () => {
    for (const [now, want] of [
      ['2026-03-11T23:59:59.000Z', {d: 'deferred', s: 'todo', ready: false}],
      ['2026-03-12T06:00:00.000Z', {d: 'ready', s: 'ready', ready: true}],
    ] as const) {
      const ms = Date.parse(now)
      expect(derivedState(snap, deferred, undefined, now)).toEqual({state: want.d, ready: want.ready})
      expect(derivedState(snap, scheduled, undefined, now)).toEqual({state: want.s, ready: want.ready})
      expect(derivedState(snap, forever, undefined, now)).toEqual({state: 'deferred', ready: false})
      for (const meta of [deferred, forever, scheduled]) {
        const row = rows.find((r) => r[0] === meta.id)!
        expect(openRowState(row, undefined, ms, config), `${meta.id} at ${now}`).toEqual(derivedState(snap, meta, undefined, now))
        expect(isReady(snap, meta, undefined, now)).toBe(derivedState(snap, meta, undefined, now).ready)
      }
    }
    expect(openRowOf(snap.tasks, tablesOf(snap), snap.tasks.get(forever.id)!)![10]).toBe(Number.POSITIVE_INFINITY)
    expect(wakeMsOf(task())).toBe(Number.NEGATIVE_INFINITY)
  })

  it('a claim of a woken deferral is a claim of a todo card, for the op and for the guard', () => {
    const later = '2026-03-12T09:00:00.000Z'
    expect(wokenStatus(deferred, Date.parse(later))).toBe('todo')
    const plan = claimTask(snap, ctx('bob', later), {id: deferred.id})
    const claimed = plan.changes[0]!.kind === 'put-task' ? plan.changes[0]!.meta : null
    expect(claimed).toMatchObject({status: 'in_progress', owner: 'bob', epoch: 1})
    expect(claimed!.defer_until).toBeUndefined()
    const facts = {actor: 'bob', op: 'claim', time: later, override: null}
    expect(judgeTaskChange(deferred, claimed!, facts, config)).toEqual([])
    // The same change pushed before the date is not a move the rulebook knows (deferred → in_progress).
    expect(judgeTaskChange(deferred, claimed!, {...facts, time: '2026-03-11T00:00:00.000Z'}, config).map((r) => r.rule)).toContain('illegal_transition')
    expect(() => claimTask(snap, ctx('bob', '2026-03-11T00:00:00.000Z'), {id: deferred.id})).toThrow(/deferred/)
  })
})

describe('the next instance of a repeat', () => {
  it('has an id from the finished instance (the same on every clone), its dates moved on past the day it was finished', () => {
    const weekly = task({title: 'Weekly report', due: '2026-02-20', every: '1w', tags: ['ops']})
    const snap = snapshot([weekly])
    const a = nextInstance(snap, ctx('alice', NOW), weekly)!
    const b = nextInstance(snap, ctx('bob', '2026-03-10T23:00:00.000Z'), weekly)!
    expect(a.id).toBe(b.id)
    expect({...a, created_at: '', created_by: '', updated_at: '', updated_by: ''}).toEqual({...b, created_at: '', created_by: '', updated_at: '', updated_by: ''})
    expect(a).toMatchObject({due: '2026-03-13', every: '1w', previous: weekly.id, key: `repeat:${weekly.id}`, status: 'todo', tags: ['ops']})
    // Without dates: scheduled one interval after the day it was finished.
    const bare = task({every: '1d'})
    expect(nextInstance(snapshot([bare]), ctx('alice', NOW), bare)).toMatchObject({scheduled: '2026-03-11'})
    // Not repeating: none.
    expect(nextInstance(snap, ctx('alice', T0), task())).toBeNull()
  })

  it('done makes it in the same plan, once', () => {
    const item = task({due: '2026-03-10', every: '1m'})
    const snap = snapshot([item])
    const plan = finishTask(snap, ctx('alice', NOW), {id: item.id})
    expect(plan.changes.map((c) => (c.kind === 'put-task' ? c.meta.status : c.kind))).toEqual(['done', 'todo'])
    expect(plan.trailers).toContainEqual(['Tasks-Repeat', plan.result.next_instance!.id])
    expect(plan.result.next_instance!.due).toBe('2026-04-10')
  })
})

describe('cancel and fail close a subtree alike (ops/finish-subtree.ts)', () => {
  it('both clear the lease, the block note and whom a card was parked on, on the card and its open sub-items', async () => {
    const {failTask} = await import('../../src/core/ops/states')
    const {cancelTask} = await import('../../src/core/ops/lifecycle')
    const parent = task({id: 'tsk-parent0001', status: 'blocked', owner: 'alice', epoch: 1, lease_expires: '2099-01-01T00:00:00.000Z', block_note: 'budget', blocked_on: 'bob'})
    const kid = task({id: 'tsk-child00001', parent: parent.id, status: 'blocked', owner: 'alice', epoch: 1, lease_expires: '2099-01-01T00:00:00.000Z', block_note: 'waits', blocked_on: 'carol'})
    for (const [op, close] of [['fail', failTask], ['cancel', cancelTask]] as const) {
      const plan = close(snapshot([parent, kid]), ctx('alice'), {id: parent.id, reason: 'dropped'})
      const metas = plan.changes.flatMap((c) => (c.kind === 'put-task' ? [c.meta] : []))
      expect(metas.map((m) => m.id), op).toEqual([parent.id, kid.id])
      for (const m of metas) expect([m.lease_expires, m.block_note, m.blocked_on], `${op} ${m.id}`).toEqual([undefined, undefined, undefined])
      expect(metas[1]!.cancel_reason, op).toBe(`parent ${parent.id} ${op === 'fail' ? 'failed' : 'cancelled'}: dropped`)
    }
  })
})
