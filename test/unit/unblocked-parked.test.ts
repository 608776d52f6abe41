/**
 * Issue 33, items 1 and 4, on the pure core: the unblock rule (the op path,
 * the merge path and the guard ask the same `newlyUnblocked`), the parked
 * card (`block --on`, merged with the claim), stale and remind leaving parked
 * cards alone, the operator escalation once per streak, and the inverse
 * `blocks` edge with deps' refusals.
 */
import {describe, expect, it} from 'vitest'
import {withChanges} from '../../src/core/apply'
import {parseLatch, parseRecord, type ReminderLatch} from '../../src/core/inbox'
import {blockTask, finishTask} from '../../src/core/ops'
import {claimTask} from '../../src/core/ops/claim'
import {inverseEdges, setDependenciesAndBlocks} from '../../src/core/ops/blocks'
import {remind, staleGroups} from '../../src/core/ops/remind'
import {changeConfig, parseConfigValue} from '../../src/core/ops/config'
import type {Plan} from '../../src/core/plan'
import {taskFilePath} from '../../src/core/store-layout'
import {UNBLOCKED_TRAILER, newlyUnblocked, withUnblocked} from '../../src/core/unblock'
import {type CommitView, judgeTaskFile} from '../../src/hooks/judges'
import {mergeTask} from '../../src/merge/task-merge'
import {T0, ctx, snapshot, task} from '../helpers/snapshot'

const H = 3600_000
const at = (hours: number) => new Date(Date.parse(T0) + hours * H).toISOString()

function guard(before: ReturnType<typeof snapshot>, after: ReturnType<typeof snapshot>, id: string, actor: string, op: string): string[] {
  const view: CommitView = {facts: {actor, op, time: at(1), override: null}, before, after, canonical: actor, removed: new Set(), undoBase: null, undoes: null, finishing: new Map()}
  return judgeTaskFile({path: taskFilePath(id), before: '', after: '', commit: view}).map((r) => r.rule)
}

describe('unblocking', () => {
  const d1 = task({id: 'tsk-d100000001', status: 'in_progress', owner: 'bob', epoch: 1})
  const d2 = task({id: 'tsk-d200000002', status: 'done', closed_at: T0})
  const x = task({id: 'tsk-x000000003', depends_on: [d1.id, d2.id], updated_by: 'carol', revision: 4})
  const sub = task({id: 'tsk-s000000004', parent: x.id, revision: 2})
  const held = task({id: 'tsk-h000000005', depends_on: [d1.id], status: 'in_progress', owner: 'dan', epoch: 1})
  const snap = snapshot([d1, d2, x, sub, held])

  it("finishing the last open dependency bumps each newly ready todo dependent (and its sub-items): revision + 1, nothing else, one trailer each", () => {
    const plan = withUnblocked(snap, finishTask(snap, ctx('bob', at(1)), {id: d1.id}))
    expect(plan.trailers.filter(([k]) => k === UNBLOCKED_TRAILER).map(([, v]) => v)).toEqual([sub.id, x.id])
    const bumped = plan.changes.flatMap((c) => (c.kind === 'put-task' && c.meta.id !== d1.id ? [c.meta] : []))
    expect(bumped).toEqual([{...sub, revision: 3}, {...x, revision: 5}])
    // The in-progress dependent is not a transition to todo: left alone.
    expect(bumped.some((m) => m.id === held.id)).toBe(false)
  })

  it('a dependency that is not the last one unblocks nothing; a plan that finishes nothing is returned as it is', () => {
    const open = snapshot([{...d1}, {...d2, status: 'todo', closed_at: undefined}, x, sub])
    const plan = finishTask(open, ctx('bob', at(1)), {id: d1.id})
    expect(withUnblocked(open, plan)).toBe(plan)
    const block = blockTask(snap, ctx('bob', at(1)), {id: d1.id, note: 'later'})
    expect(withUnblocked(snap, block)).toBe(block)
  })

  it('the merge rule: unblocked only when every side still waited (two clones each finished one last dependency)', () => {
    const base = snapshot([{...d1, status: 'todo', owner: undefined, epoch: 0}, {...d2, status: 'todo', closed_at: undefined}, x])
    const ours = withChanges(base, [{kind: 'put-task', meta: {...d1, status: 'done'}}])
    const theirs = withChanges(base, [{kind: 'put-task', meta: {...d2}}])
    const merged = withChanges(ours, [{kind: 'put-task', meta: {...d2}}])
    expect(newlyUnblocked([ours, theirs], merged, [x.id])).toEqual([x.id])
    // One side had already made the transition (it finished both): its commit named it; the merge does not again.
    expect(newlyUnblocked([merged, theirs], merged, [x.id])).toEqual([])
  })

  it('two clones that bump the same item for the same finish write the same file: the merge keeps one revision', () => {
    const a = {...x, revision: 5}
    const m = mergeTask({meta: x, body: ''}, {meta: a, body: ''}, {meta: {...a}, body: ''}, {now: at(2), published: 'theirs'})
    expect(m.meta.revision).toBe(5)
  })

  it('the guard accepts the bump by the actor who unblocked it, and refuses a revision-only change that unblocked nothing', () => {
    const plan = withUnblocked(snap, finishTask(snap, ctx('bob', at(1)), {id: d1.id}))
    const after = withChanges(snap, plan.changes)
    expect(guard(snap, after, x.id, 'bob', 'done')).toEqual([])
    // The same change of x in a commit that finishes nothing: x is carol's last edit, not bob's.
    const forged = withChanges(snap, [{kind: 'put-task', meta: {...x, revision: 5}}])
    expect(guard(snap, forged, x.id, 'bob', 'edit')).toContain('forged_actor')
  })
})

describe('parked cards', () => {
  const t = task({id: 'tsk-p000000001', status: 'in_progress', owner: 'alice', epoch: 1, claimed_at: T0, lease_expires: at(10)})
  const snap = snapshot([t])

  it('block --on records who the card waits on (@me: the actor); a bad actor is refused; claiming again clears it', () => {
    const parked = blockTask(snap, ctx('alice', at(1)), {id: t.id, note: 'which schema?', on: 'carol'})
    expect(parked.result.task).toMatchObject({status: 'blocked', block_note: 'which schema?', blocked_on: 'carol'})
    expect(parked.trailers).toContainEqual(['Tasks-Blocked-On', 'carol'])
    expect(blockTask(snap, ctx('alice', at(1)), {id: t.id, note: 'mine', on: '@me'}).result.task.blocked_on).toBe('alice')
    expect(blockTask(snap, ctx('alice', at(1)), {id: t.id, note: 'no one'}).result.task.blocked_on).toBeUndefined()
    expect(() => blockTask(snap, ctx('alice', at(1)), {id: t.id, note: 'x', on: 'git-tasks'})).toThrow(/git-tasks/)
    expect(() => blockTask(snap, ctx('alice', at(1)), {id: t.id, note: 'x', on: '<bad>'})).toThrow(/not a valid blocker/)
    const after = withChanges(snap, parked.changes)
    const resumed = claimTask(after, ctx('alice', at(2)), {id: t.id} as never)
    expect(resumed.result.task.blocked_on).toBeUndefined()
  })

  it('merges with the claim: one side re-blocked on someone, the other did nothing → the parked side', () => {
    const blocked = {...t, status: 'blocked' as const, block_note: 'x', revision: 2}
    const onCarol = {...blocked, blocked_on: 'carol', revision: 3, updated_at: at(1)}
    expect(mergeTask({meta: blocked, body: ''}, {meta: onCarol, body: ''}, {meta: blocked, body: ''}, {now: at(2), published: 'theirs'}).meta.blocked_on).toBe('carol')
  })

  it('stale leaves parked cards out and lists a blocked card that names nobody, under its owner', () => {
    const parked = task({id: 'tsk-p000000002', status: 'blocked', owner: 'olga', epoch: 1, block_note: 'vendor', blocked_on: 'carol'})
    const stuck = task({id: 'tsk-p000000003', status: 'blocked', owner: 'olga', epoch: 1, block_note: 'flaky CI'})
    const groups = staleGroups(snapshot([parked, stuck]), at(5), 3600)
    expect(groups).toEqual([{owner: 'olga', items: [expect.objectContaining({id: stuck.id, status: 'blocked', priority: 2})]}])
  })

  it('a todo card is stale from when it became ready (its last dependency finished), not from its creation', () => {
    const dep = task({id: 'tsk-p000000004', status: 'done', closed_at: at(4)})
    const ready = task({id: 'tsk-p000000005', depends_on: [dep.id], assignee: 'olga'})
    expect(staleGroups(snapshot([dep, ready]), at(5), 7200)).toEqual([])
    expect(staleGroups(snapshot([dep, ready]), at(7), 7200)[0]!.items[0]!.idle_seconds).toBe(3 * 3600)
  })
})

describe('operator escalation', () => {
  const hot = task({id: 'tsk-q000000001', status: 'in_progress', owner: 'olga', epoch: 1, claimed_at: T0, priority: 0, created_by: 'olga'})
  const cold = task({id: 'tsk-q000000002', status: 'in_progress', owner: 'olga', epoch: 1, claimed_at: T0, priority: 3, created_by: 'olga'})
  const base = snapshot([hot, cold])
  const config = {...base.config, operator: 'opal', escalate_after_digests: 2, remind_every_seconds: 3600, escalate_after_seconds: 365 * 86400}
  const snap = {...base, config}
  const registry = new Map([['olga', {id: 'olga', last_seen: at(100)}]])

  function latchesOf(plan: Plan<unknown>, into = new Map<string, ReminderLatch>()): Map<string, ReminderLatch> {
    for (const c of plan.changes) {
      if (c.kind !== 'put-file' || !c.path.startsWith('reminders/')) continue
      const l = parseLatch(c.content)
      if (l.ok) into.set(c.path, l.value)
    }
    return into
  }
  const toOperator = (plan: Plan<unknown>) =>
    plan.changes.flatMap((c) => {
      if (c.kind !== 'put-file' || !c.path.startsWith('inbox/')) return []
      const r = parseRecord(c.content, c.path.slice(c.path.lastIndexOf('/') + 1, -3))
      return r.ok && r.value.event === 'operator-escalation' ? [{to: r.value.to, task: r.value.task}] : []
    })

  it('a priority 0-1 card still stale after N digests goes to the operator once per streak; a change starts a new streak', () => {
    let latches = new Map<string, ReminderLatch>()
    const pass = (s: typeof snap, hours: number) => {
      const plan = remind(s, ctx('cron', at(hours)), {olderThanSeconds: 3600, registry, latches})
      latches = latchesOf(plan, new Map(latches))
      return plan
    }
    expect(toOperator(pass(snap, 2))).toEqual([]) // digest 1
    expect(toOperator(pass(snap, 4))).toEqual([]) // digest 2 (counted after this pass)
    const third = pass(snap, 6)
    expect(toOperator(third)).toEqual([{to: 'opal', task: hot.id}])
    expect(third.result.operator_escalations).toEqual([{to: 'opal', task: hot.id, priority: 0, digests: 2, stale_since: T0}])
    expect(toOperator(pass(snap, 8))).toEqual([]) // latched for this streak
    // The card moves (a heartbeat, an edit): a new streak, counted from scratch.
    const moved = {...snap, ...withChanges(snap, [{kind: 'put-task', meta: {...hot, updated_at: at(9), revision: 2}}]), config}
    expect(toOperator(pass(moved, 11))).toEqual([])
    expect(toOperator(pass(moved, 13))).toEqual([])
    expect(toOperator(pass(moved, 15))).toEqual([{to: 'opal', task: hot.id}])
  })

  it('no operator, or a parked card: no escalation', () => {
    const none = {...snap, config: {...config, operator: ''}}
    const latches = new Map<string, ReminderLatch>([[`reminders/cards/${hot.id}.yaml`, {task: hot.id, digests: [at(1), at(2), at(3)]}]])
    expect(remind(none, ctx('cron', at(6)), {olderThanSeconds: 3600, registry, latches}).result.operator_escalations).toEqual([])
    const parked = {...snapshot([{...hot, status: 'blocked', block_note: 'x', blocked_on: 'carol'}]), config}
    expect(remind(parked, ctx('cron', at(6)), {olderThanSeconds: 3600, registry, latches}).result).toMatchObject({digests: [], operator_escalations: []})
  })

  it('the settings: operator is an actor, escalate_after_digests a whole number from 1, emit_events all or off', () => {
    expect(parseConfigValue('operator', 'opal')).toBe('opal')
    expect(() => parseConfigValue('operator', 'a<b>')).toThrow(/operator expects an actor/)
    expect(parseConfigValue('escalate_after_digests', '5')).toBe(5)
    expect(() => parseConfigValue('escalate_after_digests', '0')).toThrow(/from 1/)
    expect(parseConfigValue('emit_events', 'OFF')).toBe('off')
    expect(() => parseConfigValue('emit_events', 'scenario')).toThrow(/one of all, off/)
    const plan = changeConfig(base, ctx(), {kind: 'set', key: 'operator', value: 'opal'})
    expect(plan.trailers).toEqual([['Tasks-Config', 'operator=opal']])
  })
})

describe('the blocks edge', () => {
  const a = task({id: 'tsk-b000000001'})
  const x = task({id: 'tsk-b000000002', depends_on: []})
  const held = task({id: 'tsk-b000000003', status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: at(10)})
  const snap = snapshot([a, x, held])

  it("makes the named item depend on this one, leaving this one's own dependencies alone", () => {
    const plan = setDependenciesAndBlocks(snap, ctx('alice', at(1)), {id: a.id, deps: [], blocks: [x.id]})
    const after = withChanges(snap, plan.changes)
    expect(after.tasks.get(x.id)!.meta!.depends_on).toEqual([a.id])
    expect(after.tasks.get(a.id)!.meta!).toEqual(a)
    expect(plan.trailers).toContainEqual(['Tasks-Blocks', x.id])
  })

  it("refuses a cycle, itself, another list and someone else's live claim (assertMayRevise), unless forced", () => {
    const chained = withChanges(snap, setDependenciesAndBlocks(snap, ctx(), {id: a.id, deps: [], blocks: [x.id]}).changes)
    expect(() => inverseEdges(chained, ctx(), {id: x.id, blocks: [a.id]})).toThrow(/cycle/)
    expect(() => inverseEdges(snap, ctx(), {id: a.id, blocks: [a.id]})).toThrow(/itself/)
    expect(() => inverseEdges(snap, ctx(), {id: a.id, blocks: [`other:${x.id}`]})).toThrow(/another list/)
    expect(() => inverseEdges(snap, ctx('alice', at(1)), {id: a.id, blocks: [held.id]})).toThrow(/held by bob/)
    const forced = inverseEdges(snap, ctx('alice', at(1), {force: {reason: 'bob is away'}}), {id: a.id, blocks: [held.id]})
    expect(forced.trailers).toContainEqual(['Tasks-Override', 'bob is away'])
  })
})
