/**
 * The pure rules of issue 11, deliverables 1-4: checks with evidence,
 * flags, sessions and lease recovery (sweep, takeover, release --session),
 * retention (prune), the check merge rule, and atomic batches.
 */
import {describe, expect, it} from 'vitest'
import {type Check, parseCheckFile, serialiseCheck, unmetChecks} from '../../src/core/check'
import {addTask} from '../../src/core/ops/add'
import {runBatchFile} from '../../src/core/ops/batch-file'
import {batchOperations} from '../../src/operations/table'
import {addCheck, recordCheck, supersedeCheck} from '../../src/core/ops/checks'
import {claimNext, claimTask, releaseSession, sweepExpired, takeoverTask} from '../../src/core/ops/claim'
import {editTask} from '../../src/core/ops/edit'
import {flagTask, unflagTask} from '../../src/core/ops/flag'
import {finishTask} from '../../src/core/ops/lifecycle'
import {pruneFinished} from '../../src/core/ops/prune'
import {mergeCheck} from '../../src/merge/check-merge'
import {collapseChanges} from '../../src/core/apply'
import {mergeFiles} from '../../src/merge/tree-merge'
import {checkPath} from '../../src/core/check'
import {taskFilePath} from '../../src/core/store-layout'
import {serialiseTask} from '../../src/core/task-file'
import {T0, after, ctx, snapshot, task} from '../helpers/snapshot'

const later = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString()

/** A task with its checks known to the snapshot (as the app layer reads them). */
function withChecks(snap: ReturnType<typeof snapshot>, id: string, checks: Check[]) {
  return {...snap, checks: new Map([[id, checks]])}
}

function check(taskId: string, partial: Partial<Check> = {}): Check {
  return {id: 'chk-aaaaaaaa', task: taskId, kind: 'acceptance', text: 'it works', status: 'pending', spec_revision: 1, added_by: 'alice', added_at: T0, updated_by: 'alice', updated_at: T0, ...partial}
}

describe('checks', () => {
  it('done is refused while an active check has not passed with evidence, and allowed once it has', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: later(3600)})
    const s0 = withChecks(snapshot([t]), t.id, [])
    // Someone else may not change the spec of bob's live claim; bob may.
    expect(() => addCheck(s0, ctx('alice'), {id: t.id, kind: 'test', text: 'npm test passes'})).toThrowError(expect.objectContaining({code: 'not_owner', exitCode: 6}))
    const added = addCheck(s0, ctx('bob'), {id: t.id, kind: 'test', text: 'npm test passes'})
    expect(added.changes[0]).toMatchObject({kind: 'put-check', check: {status: 'pending', kind: 'test', spec_revision: 1}})
    const s1 = after(s0, added)
    const c = added.result.check
    expect(() => finishTask(s1, ctx('bob'), {id: t.id})).toThrowError(expect.objectContaining({code: 'checks_pending', exitCode: 4, data: expect.objectContaining({checks: [expect.objectContaining({id: c.id, status: 'pending'})]})}))
    // Evidence is required; a failure keeps its evidence and still blocks.
    expect(() => recordCheck(s1, ctx('bob'), {id: t.id, check: c.id, outcome: 'passed', evidence: '  '})).toThrowError(expect.objectContaining({code: 'empty_evidence', exitCode: 5}))
    const failed = recordCheck(s1, ctx('bob'), {id: t.id, check: c.id.slice(0, 7), outcome: 'failed', evidence: '2 tests red'})
    expect(failed.result.check).toMatchObject({status: 'failed', evidence: '2 tests red', failed_by: 'bob'})
    const s2 = after(s1, failed)
    expect(() => finishTask(s2, ctx('bob'), {id: t.id})).toThrowError(expect.objectContaining({code: 'checks_pending'}))
    const passed = recordCheck(s2, ctx('bob'), {id: t.id, check: c.id, outcome: 'passed', evidence: 'CI run 7 green'})
    expect(passed.result.check).toMatchObject({status: 'passed', evidence: 'CI run 7 green', passed_by: 'bob', failed_by: 'bob'})
    expect(finishTask(after(s2, passed), ctx('bob'), {id: t.id}).result.task.status).toBe('done')
    // A passed check read back without evidence (edited by hand) does not count.
    expect(unmetChecks([check(t.id, {status: 'passed'})])).toHaveLength(1)
  })

  it('a superseded check no longer blocks done, keeps its history, and cannot be passed', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: later(3600)})
    const c = check(t.id, {status: 'failed', evidence: 'red'})
    const s = withChecks(snapshot([t]), t.id, [c])
    expect(() => supersedeCheck(s, ctx('carol'), {id: t.id, check: c.id, reason: 'replaced'})).toThrowError(expect.objectContaining({code: 'not_owner', exitCode: 6}))
    const sup = supersedeCheck(s, {...ctx('carol'), force: {reason: 'replaced'}}, {id: t.id, check: c.id, reason: 'replaced'})
    expect(sup.result.check).toMatchObject({status: 'superseded', evidence: 'red', supersede_reason: 'replaced', superseded_by: 'carol'})
    expect(sup.trailers).toEqual(expect.arrayContaining([['Tasks-Reason', 'replaced'], ['Tasks-Override', 'replaced']]))
    const s2 = after(s, sup)
    expect(finishTask(s2, ctx('bob'), {id: t.id}).result.task.status).toBe('done')
    expect(() => recordCheck(s2, ctx('bob'), {id: t.id, check: c.id, outcome: 'passed', evidence: 'x'})).toThrowError(expect.objectContaining({code: 'check_superseded'}))
    expect(() => recordCheck(s2, ctx('bob'), {id: t.id, check: 'chk-zzz', outcome: 'passed', evidence: 'x'})).toThrowError(expect.objectContaining({code: 'check_not_found', exitCode: 3}))
  })

  it('a title or description edit resets passed and failed checks to pending in the same plan; other edits do not', () => {
    const t = task()
    const passed = check(t.id, {id: 'chk-aaaaaaaa', status: 'passed', evidence: 'ok'})
    const failed = check(t.id, {id: 'chk-bbbbbbbb', status: 'failed', evidence: 'no'})
    const gone = check(t.id, {id: 'chk-cccccccc', status: 'superseded', evidence: 'old'})
    const s = withChecks(snapshot([t]), t.id, [passed, failed, gone])
    const edit = editTask(s, ctx('bob'), {id: t.id, title: 'A new spec'})
    expect(edit.result.checks_reset).toEqual(['chk-aaaaaaaa', 'chk-bbbbbbbb'])
    const puts = edit.changes.filter((c) => c.kind === 'put-check')
    expect(puts).toHaveLength(2)
    expect(puts.map((c) => c.kind === 'put-check' && c.check)).toEqual([
      expect.objectContaining({status: 'pending', evidence: 'ok', spec_revision: 2, reset_by: 'bob'}),
      expect.objectContaining({status: 'pending', evidence: 'no', spec_revision: 2}),
    ])
    expect(edit.trailers).toContainEqual(['Tasks-Checks-Reset', 'chk-aaaaaaaa chk-bbbbbbbb'])
    expect(editTask(s, ctx('bob'), {id: t.id, body: 'new text'}).result.checks_reset).toHaveLength(2)
    expect(editTask(s, ctx('bob'), {id: t.id, priority: 0}).result.checks_reset).toEqual([])
  })

  it('check files serialise deterministically and read back', () => {
    const c = check('tsk-0000000001', {evidence: 'line 1\nline "2"', extra: {zeta: 1}})
    const text = serialiseCheck(c)
    const back = parseCheckFile(text, 'tsk-0000000001', c.id)
    expect(back).toEqual({ok: true, value: c})
    expect(serialiseCheck((back as {value: Check}).value)).toBe(text)
    expect(parseCheckFile(text, 'tsk-0000000001', 'chk-bbbbbbbb').ok).toBe(false)
    expect(parseCheckFile(text.replace('"pending"', '"maybe"'), 'tsk-0000000001', c.id).ok).toBe(false)
  })
})

describe('check merge', () => {
  const base = check('tsk-0000000001')
  it('the more cautious status wins and no evidence is dropped, whichever side is which', () => {
    const pass = {...base, status: 'passed' as const, evidence: 'green on A', passed_by: 'a', passed_at: later(10), updated_at: later(10), updated_by: 'a'}
    const fail = {...base, status: 'failed' as const, evidence: 'red on B', failed_by: 'b', failed_at: later(5), updated_at: later(5), updated_by: 'b'}
    const one = mergeCheck(pass, fail).check
    const two = mergeCheck(fail, pass).check
    expect(one).toEqual(two)
    expect(one.status).toBe('failed')
    expect(one.evidence).toContain('red on B')
    expect(one.evidence).toContain('green on A')
    expect(one).toMatchObject({passed_by: 'a', failed_by: 'b', updated_at: later(10)})
    const sup = {...base, status: 'superseded' as const, supersede_reason: 'dup', updated_at: later(1)}
    expect(mergeCheck(pass, sup).check).toMatchObject({status: 'superseded', evidence: 'green on A'})
    const pass2 = {...pass, evidence: 'green on C', updated_at: later(20)}
    const both = mergeCheck(pass, pass2).check
    expect(both).toEqual(mergeCheck(pass2, pass).check)
    expect(both.evidence).toMatch(/^green on C\n\n\[merged: passed by a at .*\] green on A$/)
  })

  it('mergeFiles: different checks changed on two sides both land; the same check merges by the rule', () => {
    const t = task({id: 'tsk-0000000001'})
    const p1 = checkPath(t.id, 'chk-aaaaaaaa')
    const p2 = checkPath(t.id, 'chk-bbbbbbbb')
    const c1 = check(t.id, {id: 'chk-aaaaaaaa'})
    const c2 = check(t.id, {id: 'chk-bbbbbbbb'})
    const r = mergeFiles(
      [
        {path: p1, base: serialiseCheck(c1), ours: serialiseCheck({...c1, status: 'passed', evidence: 'A'}), theirs: serialiseCheck({...c1, status: 'passed', evidence: 'B', updated_at: later(1)})},
        {path: p2, base: serialiseCheck(c2), ours: serialiseCheck(c2), theirs: serialiseCheck({...c2, status: 'failed', evidence: 'F'})},
      ],
      {published: 'theirs', now: later(100)},
    )
    const out = new Map(r.files.map((f) => [f.path, f.content]))
    const m1 = parseCheckFile(out.get(p1)!, t.id, 'chk-aaaaaaaa')
    expect(m1.ok && m1.value).toMatchObject({status: 'passed'})
    expect(m1.ok && m1.value.evidence).toMatch(/B[\s\S]*A/)
    const m2 = parseCheckFile(out.get(p2)!, t.id, 'chk-bbbbbbbb')
    expect(m2.ok && m2.value).toMatchObject({status: 'failed', evidence: 'F'})
    expect(r.notes.map((n) => n.kind)).toEqual(['check_merged'])
  })

  it('a pending check merged onto an item finished on the other side is noted and commented on', () => {
    const t = task({id: 'tsk-0000000002', status: 'in_progress', owner: 'a', epoch: 1})
    const done = {...t, status: 'done' as const, closed_at: later(5), revision: 2}
    const c = check(t.id)
    const r = mergeFiles(
      [
        {path: taskFilePath(t.id), base: serialiseTask(t, ''), ours: serialiseTask(done, ''), theirs: serialiseTask(t, '')},
        {path: checkPath(t.id, c.id), base: null, ours: null, theirs: serialiseCheck(c)},
      ],
      {published: 'ours', now: later(100)},
    )
    expect(r.notes).toContainEqual(expect.objectContaining({kind: 'done_with_unmet_check', task: t.id, check: c.id}))
    expect(r.files.some((f) => f.path.includes('/comments/'))).toBe(true)
  })
})

describe('flags', () => {
  it('a flagged item cannot be finished; anyone may take it over from its owner, which clears the flag', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 2, lease_expires: later(3600)})
    const flagged = flagTask(snapshot([t]), ctx('carol'), {id: t.id, reason: 'looping'})
    expect(flagged.result.task).toMatchObject({flag_reason: 'looping', flagged_by: 'carol', flagged_at: T0})
    const s = after(snapshot([t]), flagged)
    expect(() => finishTask(s, ctx('bob'), {id: t.id})).toThrowError(expect.objectContaining({code: 'flagged', exitCode: 4}))
    const taken = claimTask(s, ctx('dave'), {id: t.id})
    expect(taken.result).toMatchObject({took_over_from: 'bob', task: {owner: 'dave', epoch: 3}})
    expect(taken.result.task.flag_reason).toBeUndefined()
    expect(taken.trailers).toContainEqual(['Tasks-Unflagged', 'looping'])
    // Without a flag the same live claim is not taken.
    expect(() => claimTask(snapshot([t]), ctx('dave'), {id: t.id})).toThrowError(expect.objectContaining({code: 'already_claimed'}))
    const un = unflagTask(s, ctx('bob'), {id: t.id})
    expect(un.result.task.flag_reason).toBeUndefined()
    expect(unflagTask(snapshot([t]), ctx('bob'), {id: t.id}).changes).toHaveLength(0)
    expect(() => flagTask(snapshot([task({status: 'done'})]), ctx(), {id: 'tsk-', reason: 'x'})).toThrow()
  })
})

describe('sessions and lease recovery', () => {
  it('a claim records the session; release --session frees exactly that session’s items', () => {
    const a = task()
    const b = task()
    const c = task()
    let s = snapshot([a, b, c])
    s = after(s, claimTask(s, ctx('bot', T0, {session: 'run-1'}), {id: a.id}))
    s = after(s, claimTask(s, ctx('bot', T0, {session: 'run-2'}), {id: b.id}))
    s = after(s, claimTask(s, ctx('other', T0, {session: 'run-1'}), {id: c.id}))
    expect(s.tasks.get(a.id)!.meta!.session).toBe('run-1')
    // The label is free text: without --force only the acting actor's own claims with it go back (issue 32).
    expect(releaseSession(s, ctx('runner'), 'run-1').result.tasks).toEqual([])
    const own = releaseSession(s, ctx('bot'), 'run-1')
    expect(own.result.tasks.map((t) => t.id)).toEqual([a.id])
    const rel = releaseSession(s, ctx('runner', T0, {force: {reason: 'run-1 stopped'}}), 'run-1')
    expect(rel.result.tasks.map((t) => t.id).sort()).toEqual([a.id, c.id].sort())
    expect(rel.result.tasks.every((t) => t.status === 'todo' && t.owner === undefined && t.session === undefined)).toBe(true)
    expect(rel.trailers).toContainEqual(['Tasks-Session', 'run-1'])
    expect(rel.trailers).toContainEqual(['Tasks-Override', 'run-1 stopped'])
  })

  it('sweep reopens expired in-progress items (assignment kept, epoch + 1), not blocked or live ones', () => {
    const expired = task({status: 'in_progress', owner: 'bob', epoch: 3, assignee: 'bob', lease_expires: later(-100), session: 's'})
    const live = task({status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: later(3600)})
    const blocked = task({status: 'blocked', owner: 'bob', epoch: 1, lease_expires: later(-100), block_note: 'waiting'})
    const plan = sweepExpired(snapshot([expired, live, blocked]), ctx('carol'))
    expect(plan.result.tasks).toHaveLength(1)
    expect(plan.result.tasks[0]).toMatchObject({id: expired.id, status: 'todo', epoch: 4, assignee: 'bob'})
    expect(plan.result.tasks[0]!.owner).toBeUndefined()
    expect(plan.result.tasks[0]!.session).toBeUndefined()
    // Within clock skew (30 s) the lease still counts.
    expect(sweepExpired(snapshot([task({status: 'in_progress', owner: 'b', epoch: 1, lease_expires: later(-10)})]), ctx()).changes).toHaveLength(0)
  })

  it('claim and next apply the sweep in the same plan; the old owner’s done --epoch is refused', () => {
    const old = task({status: 'in_progress', owner: 'bob', epoch: 3, lease_expires: later(-100)})
    const fresh = task()
    const s = snapshot([old, fresh])
    const plan = claimTask(s, ctx('carol'), {id: fresh.id})
    expect(plan.changes.filter((c) => c.kind === 'put-task').map((c) => c.kind === 'put-task' && c.meta.id).sort()).toEqual([old.id, fresh.id].sort())
    expect(plan.trailers.some(([k, v]) => k === 'Tasks-Swept' && v.startsWith(old.id))).toBe(true)
    const s2 = after(s, plan)
    expect(() => finishTask(s2, ctx('bob'), {id: old.id, epoch: 3})).toThrowError(expect.objectContaining({code: 'stale_epoch', exitCode: 6}))
    // next takes an expired item over as before (epoch + 1, took_over_from).
    const n = claimNext(snapshot([old]), ctx('carol'), {})
    expect(n.result).toMatchObject({took_over_from: 'bob', task: {owner: 'carol', epoch: 4}})
  })

  it('takeover: epoch + 1 and recorded, even with a live lease; needs a reason; old owner fenced', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 5, lease_expires: later(3600)})
    const s = snapshot([t])
    expect(() => takeoverTask(s, ctx('carol'), {id: t.id, reason: ' ', confirm: t.id})).toThrowError(expect.objectContaining({code: 'empty_reason'}))
    const plan = takeoverTask(s, ctx('carol'), {id: t.id, reason: 'host is gone', confirm: t.id})
    expect(plan.result).toMatchObject({took_over_from: 'bob', task: {owner: 'carol', epoch: 6}})
    expect(plan.trailers).toEqual(expect.arrayContaining([['Tasks-Takeover', 'bob'], ['Tasks-Reason', 'host is gone'], ['Tasks-Epoch', '6']]))
    expect(() => finishTask(after(s, plan), ctx('bob'), {id: t.id, epoch: 5})).toThrowError(expect.objectContaining({code: 'stale_epoch'}))
    expect(() => takeoverTask(snapshot([task()]), ctx('carol'), {id: 'tsk-', reason: 'x'})).toThrow()
    const admins = {...s, config: {...s.config, admins: ['root']}}
    expect(() => takeoverTask(admins, ctx('carol'), {id: t.id, reason: 'x', confirm: t.id})).toThrowError(expect.objectContaining({code: 'not_admin'}))
  })
})

describe('prune', () => {
  it('removes finished items older than the retention, keeping what staying items need', () => {
    const old = (p: Partial<Parameters<typeof task>[0]> = {}) => task({status: 'done', closed_at: later(-30 * 86400), ...p})
    const gone = old()
    const neededByLive = old()
    const live = task({depends_on: [neededByLive.id]})
    const neededByKeptDone = old()
    const recentDone = task({status: 'done', closed_at: later(-60), depends_on: [neededByKeptDone.id]})
    const parent = old()
    const openChild = task({parent: parent.id})
    const oldParent = old()
    const oldChild = old({parent: oldParent.id})
    const s = snapshot([gone, neededByLive, live, neededByKeptDone, recentDone, parent, openChild, oldParent, oldChild])
    const plan = pruneFinished(s, ctx(), {})
    expect(plan.result.removed.map((r) => r.id).sort()).toEqual([gone.id, oldParent.id, oldChild.id].sort())
    expect(plan.result.kept).toEqual(expect.arrayContaining([{id: neededByLive.id, reason: 'dependency', by: live.id}, {id: neededByKeptDone.id, reason: 'dependency', by: recentDone.id}, {id: parent.id, reason: 'parent', by: openChild.id}]))
    expect(pruneFinished(s, ctx(), {olderThanSeconds: 365 * 86400}).result.removed).toEqual([])
    // The config's retention decides without --older-than.
    expect(pruneFinished({...s, config: {...s.config, retention_seconds: 3153600000}}, ctx(), {}).result.removed).toEqual([])
  })
})

describe('batch', () => {
  it('local names, heterogeneous ops, each on the state the previous left, one plan', () => {
    const s = snapshot([])
    const plan = runBatchFile(s, ctx('alice'), [
      {op: 'create', name: 'a', title: 'Parse'},
      {op: 'create', name: 'b', title: 'Emit', depends_on: ['$a'], tags: ['x']},
      {op: 'create', name: 's', title: 'Sub', parent: '$a'},
      {op: 'check', action: 'add', id: '$b', test: 'emits', name: 'c'},
      {op: 'done', id: '$s'},
      {op: 'done', id: '$a'},
      {op: 'claim', id: '$b', lease: '10m'},
      {op: 'check', action: 'pass', id: '$b', check: '$c', evidence: 'ran it'},
      {op: 'comment', id: '$b', text: 'finished', kind: 'lesson'},
      {op: 'done', id: '$b'},
    ], 'atomic', batchOperations())
    const r = plan.result
    expect(r.failed).toBe(0)
    expect(r.applied).toBe(10)
    expect(r.results.map((i) => i.ok)).toEqual(Array(10).fill(true))
    const [a, b, sub] = [r.results[0]!.id!, r.results[1]!.id!, r.results[2]!.id!]
    const end = after(s, plan)
    expect(end.tasks.get(b)!.meta).toMatchObject({status: 'done', depends_on: [a]})
    expect(end.tasks.get(sub)!.meta!.parent).toBe(a)
    expect(r.results[6]).toMatchObject({op: 'claim', id: b, status: 'in_progress', epoch: 1})
    expect(r.results[3]!.check).toMatch(/^chk-/)
    expect(plan.op).toBe('batch')
  })

  it('atomic: one invalid item throws its own error with index and results; each: reported and skipped', () => {
    const t = task()
    const s = snapshot([t])
    const ops = [
      {op: 'create', name: 'a', title: 'one'},
      {op: 'edit', id: t.id, priority: 9},
      {op: 'create', title: 'two', depends_on: ['$a']},
      {op: 'create', title: 'three', depends_on: ['$nope']},
    ]
    expect(() => runBatchFile(s, ctx(), ops, 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'bad_priority', exitCode: 5, data: expect.objectContaining({index: 1, op: 'edit'})}))
    const each = runBatchFile(s, ctx(), ops, 'each', batchOperations())
    expect(each.result.results.map((i) => [i.ok, i.error?.code ?? null])).toEqual([[true, null], [false, 'bad_priority'], [true, null], [false, 'unknown_batch_name']])
    expect(each.result).toMatchObject({applied: 2, failed: 2})
    expect(each.changes.filter((c) => c.kind === 'put-task')).toHaveLength(2)
    // Shape errors are usage errors naming the operation.
    expect(() => runBatchFile(s, ctx(), [{op: 'explode'}], 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'bad_batch_op', exitCode: 2}))
    expect(() => runBatchFile(s, ctx(), [{op: 'create', title: 'x', colour: 'red'}], 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'bad_batch_op'}))
    expect(() => runBatchFile(s, ctx(), [{op: 'create', title: 'x', name: 'a'}, {op: 'create', title: 'y', name: 'a'}], 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'duplicate_batch_name'}))
  })

  it('a batch writes each path once: last task version with the last description given, nothing under a removed task', () => {
    const s = snapshot([])
    const plan = runBatchFile(s, ctx(), [
      {op: 'create', name: 'a', title: 'A', body: 'the description'},
      {op: 'claim', id: '$a'},
      {op: 'comment', id: '$a', text: 'one'},
      {op: 'done', id: '$a'},
      {op: 'create', name: 'b', title: 'B'},
      {op: 'check', action: 'add', id: '$b', test: 't'},
      {op: 'comment', id: '$b', text: 'gone with b'},
      {op: 'rm', id: '$b', confirm: ['$b'], reason: 'made by mistake'},
    ], 'atomic', batchOperations())
    const a = plan.result.results[0]!.id!
    const b = plan.result.results[4]!.id!
    const kinds = plan.changes.map((c) => (c.kind === 'put-task' ? `put ${c.meta.id === a ? 'a' : 'b'} ${c.meta.status} ${c.body ?? '-'}` : c.kind === 'delete-task' ? `delete ${c.id === b ? 'b' : 'a'}` : c.kind))
    expect(kinds.sort()).toEqual(['add-comment', 'delete b', 'put a done the description'])
    // The same state as applying every change in order.
    const full = [...plan.changes]
    expect(collapseChanges(full)).toEqual(full)
  })

  it('an item of a multi-id operation acts on one task: its revision is checked, several ids are a usage error', () => {
    const t = task({revision: 3})
    const s = snapshot([t])
    // assign's id is a list on the command line: the batch checks if_revision on its one task (was an internal error).
    expect(() => runBatchFile(s, ctx(), [{op: 'assign', id: t.id, assignee: 'bob', if_revision: 2}], 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'revision_mismatch'}))
    expect(runBatchFile(s, ctx(), [{op: 'assign', id: t.id, assignee: 'bob', if_revision: 3}], 'atomic', batchOperations()).result.applied).toBe(1)
    for (const op of ['done', 'reopen', 'cancel', 'rm', 'assign', 'release']) {
      expect(() => runBatchFile(s, ctx(), [{op, id: [t.id, t.id], reason: 'r', assignee: 'bob'}].map(({reason, assignee, ...rest}) => ({...rest, ...(op === 'cancel' ? {reason} : {}), ...(op === 'assign' ? {assignee} : {})})), 'atomic', batchOperations()), op).toThrowError(expect.objectContaining({code: 'bad_batch_op', data: expect.objectContaining({field: 'id'})}))
    }
    expect(() => runBatchFile(s, ctx(), [{op: 'release'}], 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'usage'}))
  })

  it('is linear: 10,000 chained creates cost about ten times 1,000, not a hundred', () => {
    const n = 10_000
    const ops: unknown[] = []
    for (let i = 0; i < n; i++) ops.push({op: 'create', name: `t${i}`, title: `item ${i}`, ...(i > 0 ? {depends_on: [`$t${i - 1}`]} : {})})
    const small = ops.slice(0, n / 10)
    const t0 = performance.now()
    runBatchFile(snapshot([]), ctx(), small, 'atomic', batchOperations())
    const t1 = performance.now()
    const plan = runBatchFile(snapshot([]), ctx(), ops, 'atomic', batchOperations())
    const t2 = performance.now()
    expect(plan.result.applied).toBe(n)
    // Ten times the operations: linear work is ~10x; quadratic would be ~100x. Ratio in one run, not a timing.
    expect((t2 - t1) / Math.max(t1 - t0, 1)).toBeLessThan(40)
  })
})
