/**
 * The lost escalation (issue 33, item 7): when the card's creator runs
 * `remind` (a cron or the daemon under their name), the escalation meant for
 * them must be delivered, not only latched: a latch without a record would
 * stop every later run from sending it.
 */
import {describe, expect, it} from 'vitest'
import {type ActorEntry, type ReminderLatch, parseLatch, parseRecord} from '../../src/core/inbox'
import {remind} from '../../src/core/ops/remind'
import type {Plan} from '../../src/core/plan'
import {T0, ctx, snapshot, task} from '../helpers/snapshot'

const H = 3600_000
const now = new Date(Date.parse(T0) + 5 * H).toISOString()
const work = task({id: 'tsk-cccccccccc', status: 'in_progress', owner: 'olga', epoch: 1, claimed_at: T0, updated_at: T0, created_by: 'carol'})
const base = snapshot([work])
const snap = {...base, config: {...base.config, escalate_after_seconds: 4 * 3600}}
const registry = new Map<string, ActorEntry>([['olga', {id: 'olga', last_seen: T0}]])

function latchesOf(plan: Plan<unknown>): Map<string, ReminderLatch> {
  const out = new Map<string, ReminderLatch>()
  for (const c of plan.changes) {
    if (c.kind !== 'put-file' || !c.path.startsWith('reminders/')) continue
    const l = parseLatch(c.content)
    if (l.ok) out.set(c.path, l.value)
  }
  return out
}

function escalationRecords(plan: Plan<unknown>): Array<{to: string; task: string}> {
  return plan.changes.flatMap((c) => {
    if (c.kind !== 'put-file' || !c.path.startsWith('inbox/')) return []
    const r = parseRecord(c.content, c.path.slice(c.path.lastIndexOf('/') + 1, -3))
    return r.ok && r.value.event === 'escalation' ? [{to: r.value.to, task: r.value.task}] : []
  })
}

describe('remind run by the card\'s creator', () => {
  it('delivers the escalation to the creator (a record in their inbox) with the latch, so it is never latched unsent', () => {
    const plan = remind(snap, ctx('carol', now), {olderThanSeconds: 7200, registry, latches: new Map()})
    expect(plan.result.escalations).toEqual([{to: 'carol', task: work.id, owner: 'olga', last_seen: T0}])
    expect(escalationRecords(plan)).toEqual([{to: 'carol', task: work.id}])
    // The latch is there too: a second run, by anyone, sends nothing more for this streak.
    const latches = latchesOf(plan)
    expect([...latches.keys()]).toContain(`reminders/cards/${work.id}.yaml`)
    for (const actor of ['carol', 'bot']) {
      const again = remind(snap, ctx(actor, new Date(Date.parse(now) + H).toISOString()), {olderThanSeconds: 7200, registry, latches})
      expect(again.result.escalations).toEqual([])
      expect(escalationRecords(again)).toEqual([])
    }
  })

  it('whoever runs it, an escalation latch is written only with a record, or when nobody can be told (the creator is the owner)', () => {
    for (const actor of ['carol', 'bot', 'olga']) {
      const plan = remind(snap, ctx(actor, now), {olderThanSeconds: 7200, registry, latches: new Map()})
      expect(escalationRecords(plan), actor).toEqual([{to: 'carol', task: work.id}])
    }
    const plan = remind({...snapshot([{...work, created_by: 'olga'}]), config: snap.config}, ctx('bot', now), {olderThanSeconds: 7200, registry, latches: new Map()})
    expect(escalationRecords(plan)).toEqual([])
    expect(plan.result.escalations).toEqual([])
  })
})
