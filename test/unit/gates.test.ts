/**
 * Issue 32, items 4, 7 and 13 as pure functions: the creation gates
 * (require_checks; a finished parent takes no open sub-item), confirmed
 * removal (--confirm, --reason, --with-subitems) and the reconciler's
 * repair of done items that break done's own rules (flag, checks,
 * sub-items). Each rule is run through the op and through the guard's
 * judge, which must agree. The CLI, batch and MCP surfaces are in
 * test/integration/gates.test.ts.
 */
import {describe, expect, it} from 'vitest'
import {type Check, checkPath, serialiseCheck} from '../../src/core/check'
import {addTaskWithChecks} from '../../src/core/ops/add-with-checks'
import {addCheck, supersedeCheck} from '../../src/core/ops/checks'
import {finishTask, reopenTask} from '../../src/core/ops/lifecycle'
import {removeTask} from '../../src/core/ops/remove'
import {runBatchFile} from '../../src/core/ops/batch-file'
import {assertRemovalConfirmed} from '../../src/core/removal'
import type {Plan} from '../../src/core/plan'
import type {Snapshot} from '../../src/core/snapshot'
import {taskFilePath} from '../../src/core/store-layout'
import type {TaskMeta} from '../../src/core/task'
import {type CommitView, judgeCheckFile, judgeTaskFile} from '../../src/hooks/judges'
import {checkInvariants, reconcile} from '../../src/merge/reconcile'
import {batchOperations} from '../../src/operations/table'
import {T0, after, ctx, snapshot, task} from '../helpers/snapshot'

const LATER = '2026-11-29T13:00:00.000Z'
const gated = (s: Snapshot): Snapshot => ({...s, config: {...s.config, require_checks: true}})
const withChecks = (s: Snapshot, checks: Record<string, Check[]>): Snapshot => ({...s, checks: new Map(Object.entries(checks))})

function check(taskId: string, id: string, partial: Partial<Check> = {}): Check {
  return {id, task: taskId, kind: 'acceptance', text: `criterion ${id}`, status: 'pending', spec_revision: 1, added_by: 'alice', added_at: T0, updated_by: 'alice', updated_at: T0, ...partial}
}

/** The guard's view of a one-parent commit made of `plan` on `before` by `actor` (checks as the plan leaves them). */
function commitOf(before: Snapshot, plan: Plan<unknown>, actor = 'alice'): {view: CommitView; afterSnap: Snapshot} {
  const afterSnap = after(before, plan)
  const touched = new Set<string>()
  for (const c of plan.changes) {
    if (c.kind === 'put-task') touched.add(c.meta.id)
    if (c.kind === 'put-check') touched.add(c.check.task)
  }
  const checksAfter = new Map([...touched].map((id) => [id, [...(afterSnap.checks?.get(id) ?? [])]]))
  const view: CommitView = {
    facts: {actor, op: plan.op, time: T0, override: null},
    before,
    after: afterSnap,
    canonical: actor,
    removed: new Set(),
    undoBase: null,
    undoes: null,
    finishing: new Map([...touched].filter((id) => afterSnap.tasks.get(id)?.status === 'done' && before.tasks.get(id)?.status !== 'done').map((id) => [id, checksAfter.get(id)!])),
    gated: before.config.require_checks ? checksAfter : new Map(),
  }
  return {view, afterSnap}
}

/** Every refusal the guard gives the commit's task and check files. */
function guard(before: Snapshot, plan: Plan<unknown>, actor = 'alice'): string[] {
  const {view} = commitOf(before, plan, actor)
  const out: string[] = []
  for (const c of plan.changes) {
    if (c.kind === 'put-task') out.push(...judgeTaskFile({path: taskFilePath(c.meta.id), before: '', after: '', commit: view}).map((r) => r.rule))
    if (c.kind === 'put-check') {
      const was = before.checks?.get(c.check.task)?.find((x) => x.id === c.check.id)
      out.push(...judgeCheckFile({path: checkPath(c.check.task, c.check.id), before: was ? serialiseCheck(was) : null, after: serialiseCheck(c.check), commit: view}).map((r) => r.rule))
    }
  }
  return out
}

describe('creation gates (require_checks)', () => {
  it('add needs an acceptance and a test check when the list requires them; off, nothing changes', () => {
    const off = withChecks(snapshot([]), {})
    expect(addTaskWithChecks(off, ctx(), {title: 'free'}).result.created).toBe(true)
    const on = gated(off)
    expect(() => addTaskWithChecks(on, ctx(), {title: 'bare'})).toThrowError(expect.objectContaining({code: 'checks_required', exitCode: 4, data: {missing: ['acceptance', 'test']}}))
    expect(() => addTaskWithChecks(on, ctx(), {title: 'half', acceptance: ['works']})).toThrowError(expect.objectContaining({code: 'checks_required', data: {missing: ['test']}}))
    const ok = addTaskWithChecks(on, ctx(), {title: 'whole', acceptance: ['works'], test: ['npm test']})
    expect(ok.result.checks.map((c) => c.kind)).toEqual(['acceptance', 'test'])
    expect(guard(on, ok)).toEqual([])
    // A retry of a keyed add returns the item (created before the gate, or with its checks): nothing to refuse.
    const keyed = addTaskWithChecks(off, ctx(), {title: 'keyed', key: 'k'})
    expect(addTaskWithChecks(gated(after(off, keyed)), ctx(), {title: 'keyed', key: 'k'}).result.created).toBe(false)
    // The guard refuses a card added without them (a hand-made commit: the op's plan without its checks).
    const forged = addTaskWithChecks(off, ctx(), {title: 'forged', acceptance: ['only this']})
    expect(guard(on, forged)).toEqual(['checks_required'])
    expect(guard(off, forged)).toEqual([])
  })

  it('a batch add carries its checks in the same item; without them the whole batch is refused', () => {
    const on = gated(withChecks(snapshot([]), {}))
    expect(() => runBatchFile(on, ctx(), [{op: 'add', title: 'bare'}], 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'checks_required'}))
    // A check added by a later item does not satisfy the gate of the add: the item itself must carry both.
    expect(() => runBatchFile(on, ctx(), [{op: 'add', name: 'a', title: 'later', acceptance: ['x']}, {op: 'check_add', id: '$a', test: 't'}], 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'checks_required'}))
    const plan = runBatchFile(on, ctx(), [{op: 'add', name: 'a', title: 'whole', acceptance: ['works'], test: ['npm test']}, {op: 'claim', id: '$a'}], 'atomic', batchOperations())
    expect(plan.changes.filter((c) => c.kind === 'put-check')).toHaveLength(2)
    expect(guard(on, plan)).toEqual([])
    // --each: the refused add is reported, the rest is written.
    const each = runBatchFile(on, ctx(), [{op: 'add', title: 'bare'}, {op: 'add', title: 'whole', acceptance: ['a'], test: ['t']}], 'each', batchOperations())
    expect(each.result.results.map((r) => r.error?.code ?? 'ok')).toEqual(['checks_required', 'ok'])
  })

  it('the last active check of a kind cannot be superseded; with a replacement it can; done needs one of each', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: LATER})
    const acc = check(t.id, 'chk-aaaaaaaa', {status: 'passed', evidence: 'seen', passed_by: 'bob', passed_at: T0})
    const tst = check(t.id, 'chk-bbbbbbbb', {kind: 'test', status: 'passed', evidence: 'green', passed_by: 'bob', passed_at: T0})
    const off = withChecks(snapshot([t]), {[t.id]: [acc, tst]})
    const on = gated(off)
    expect(() => supersedeCheck(on, ctx('bob'), {id: t.id, check: acc.id, reason: 'obsolete'})).toThrowError(expect.objectContaining({code: 'checks_required', exitCode: 4, data: expect.objectContaining({kind: 'acceptance'})}))
    // The guard refuses the same change made by hand.
    const forged = supersedeCheck(off, ctx('bob'), {id: t.id, check: acc.id, reason: 'obsolete'})
    expect(guard(on, forged, 'bob')).toEqual(['checks_required'])
    expect(guard(off, forged, 'bob')).toEqual([])
    // A replacement first, then the old one goes.
    const added = addCheck(on, ctx('bob'), {id: t.id, kind: 'acceptance', text: 'the new criterion'})
    const s1 = after(on, added)
    const sup = supersedeCheck(s1, ctx('bob'), {id: t.id, check: acc.id, reason: 'replaced'})
    expect(sup.result.check.status).toBe('superseded')
    expect(guard(s1, sup, 'bob')).toEqual([])
    // Off: superseding both checks leaves a card done goes through (checks are optional there), as before.
    const both = after(after(off, forged), supersedeCheck(after(off, forged), ctx('bob'), {id: t.id, check: tst.id, reason: 'obsolete'}))
    expect(finishTask(both, ctx('bob'), {id: t.id}).result.task.status).toBe('done')
    // On: a card without an active check of each kind (made before the gate was set) is not done.
    const bare = gated(both)
    expect(() => finishTask(bare, ctx('bob'), {id: t.id})).toThrowError(expect.objectContaining({code: 'checks_required', exitCode: 4, data: {id: t.id, missing: ['acceptance', 'test']}}))
    expect(guard(bare, finishTask(both, ctx('bob'), {id: t.id}), 'bob')).toEqual(['checks_required'])
  })

  it('a finished parent takes no open sub-item: add --parent and reopen of a sub-item are refused', () => {
    const parent = task({status: 'done', closed_at: T0})
    const kid = task({parent: parent.id, status: 'done', closed_at: T0})
    const s = withChecks(snapshot([parent, kid]), {})
    expect(() => addTaskWithChecks(s, ctx(), {title: 'late', parent: parent.id})).toThrowError(expect.objectContaining({code: 'parent_finished', exitCode: 4}))
    expect(() => reopenTask(s, ctx(), {id: kid.id})).toThrowError(expect.objectContaining({code: 'parent_finished', exitCode: 4, data: expect.objectContaining({parent: parent.id})}))
    // The guard refuses the same: a sub-item reopened (or added) under a done parent.
    const open = {...parent, status: 'in_progress' as const, owner: 'alice', epoch: 1, lease_expires: LATER}
    const forgedReopen = reopenTask(snapshot([open, kid]), ctx(), {id: kid.id})
    expect(guard(s, forgedReopen)).toEqual(['parent_finished'])
    const forgedAdd = addTaskWithChecks(snapshot([open]), ctx(), {title: 'late', parent: parent.id})
    expect(guard(s, forgedAdd)).toEqual(['parent_finished'])
    // Reopening the parent first lets both through.
    const reopened = after(s, reopenTask(s, ctx(), {id: parent.id}))
    expect(guard(reopened, reopenTask(reopened, ctx(), {id: kid.id}))).toEqual([])
    // And a parent finished while a sub-item is open: the op refuses it, the guard too.
    const busy = snapshot([{...open}, {...kid, status: 'todo', closed_at: undefined}])
    expect(() => finishTask(busy, ctx(), {id: parent.id})).toThrowError(expect.objectContaining({code: 'open_subitems'}))
    const forgedDone = {op: 'done', subject: {id: parent.id, title: parent.title}, changes: [{kind: 'put-task' as const, meta: {...open, status: 'done' as const, revision: 5, updated_by: 'alice', closed_at: T0}}], trailers: [], result: null}
    expect(guard(busy, forgedDone)).toEqual(['open_subitems'])
  })
})

describe('confirmed removal', () => {
  it('without a terminal: the ids repeated and a reason, else exit 2 before anything is read', () => {
    expect(() => assertRemovalConfirmed(['tsk-abcd'], undefined, 'r')).toThrowError(expect.objectContaining({code: 'confirm_required', exitCode: 2}))
    expect(() => assertRemovalConfirmed(['tsk-abcd'], [], 'r')).toThrowError(expect.objectContaining({code: 'confirm_required'}))
    expect(() => assertRemovalConfirmed(['tsk-abcd', 'tsk-efgh'], ['tsk-abcd'], 'r')).toThrowError(expect.objectContaining({code: 'confirm_mismatch', exitCode: 2}))
    expect(() => assertRemovalConfirmed(['tsk-abcd'], ['tsk-abcd', 'tsk-efgh'], 'r')).toThrowError(expect.objectContaining({code: 'confirm_mismatch'}))
    expect(() => assertRemovalConfirmed(['tsk-abcd'], ['tsk-abce'], 'r')).toThrowError(expect.objectContaining({code: 'confirm_mismatch'}))
    expect(() => assertRemovalConfirmed(['tsk-abcd'], ['tsk-abcd'], undefined)).toThrowError(expect.objectContaining({code: 'reason_required', exitCode: 2}))
    expect(() => assertRemovalConfirmed(['tsk-abcd'], ['tsk-abcd'], '  ')).toThrowError(expect.objectContaining({code: 'reason_required'}))
    // Any order, any case, with or without tsk-.
    expect(() => assertRemovalConfirmed(['tsk-abcd', 'efgh'], ['TSK-EFGH', 'abcd'], 'dup')).not.toThrow()
    // The refusal names the soft path.
    expect(() => assertRemovalConfirmed(['tsk-abcd'], undefined, undefined)).toThrowError(/tasks cancel/)
  })

  it('a parent with sub-items needs withSubitems; the reason is a trailer', () => {
    const parent = task()
    const kid = task({parent: parent.id})
    const s = snapshot([parent, kid])
    expect(() => removeTask(s, ctx(), {id: parent.id, reason: 'dup'})).toThrowError(expect.objectContaining({code: 'has_subitems', exitCode: 4, data: {id: parent.id, subitems: [{id: kid.id, status: 'todo'}]}}))
    const plan = removeTask(s, ctx(), {id: parent.id, reason: '  dup of another  ', withSubitems: true})
    expect(plan.changes).toEqual([{kind: 'delete-task', id: parent.id}, {kind: 'delete-task', id: kid.id}])
    expect(plan.trailers).toContainEqual(['Tasks-Reason', 'dup of another'])
    // A sub-item alone is removed without the flag.
    expect(removeTask(s, ctx(), {id: kid.id, reason: 'x'}).changes).toEqual([{kind: 'delete-task', id: kid.id}])
  })

  it('a batch rm has no terminal: it confirms and gives a reason in the item ($names resolve)', () => {
    const s = withChecks(snapshot([]), {})
    const ops = (rm: Record<string, unknown>) => [{op: 'add', name: 'a', title: 'A'}, {op: 'rm', id: '$a', ...rm}]
    expect(() => runBatchFile(s, ctx(), ops({}), 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'confirm_required'}))
    expect(() => runBatchFile(s, ctx(), ops({confirm: ['$a']}), 'atomic', batchOperations())).toThrowError(expect.objectContaining({code: 'reason_required'}))
    const plan = runBatchFile(s, ctx(), ops({confirm: ['$a'], reason: 'made by mistake'}), 'atomic', batchOperations())
    expect(plan.trailers).toContainEqual(['Tasks-Reason', 'made by mistake'])
  })
})

describe('the reconciler: done items that break done\'s rules', () => {
  const parent = task({status: 'done', owner: 'bob', epoch: 1, closed_at: T0})
  const openKid = task({parent: parent.id, status: 'todo'})
  const flagged = task({status: 'done', owner: 'bob', epoch: 1, closed_at: T0, flag_reason: 'spec is wrong', flagged_by: 'carol', flagged_at: T0})
  const checked = task({status: 'done', owner: 'bob', epoch: 1, closed_at: T0})
  const pending = check(checked.id, 'chk-cccccccc')
  const fine = task({status: 'done', owner: 'bob', epoch: 1, closed_at: T0})
  const merged = withChecks(snapshot([parent, openKid, flagged, checked, fine]), {[checked.id]: [pending], [fine.id]: [check(fine.id, 'chk-dddddddd', {status: 'passed', evidence: 'ok'})]})

  it('doctor (no sides): every such item is reported and reopened, the reason on the card and in the repair', () => {
    const found = checkInvariants(merged)
    expect(found.map((v) => [v.kind, v.task]).sort()).toEqual([
      ['done_while_flagged', flagged.id],
      ['done_with_open_subitems', parent.id],
      ['done_with_unmet_checks', checked.id],
    ].sort())
    const rec = reconcile(merged, {now: LATER})
    expect(rec.repairs.map((r) => r.task).sort()).toEqual([parent.id, flagged.id, checked.id].sort())
    const puts = rec.changes.filter((c) => c.kind === 'put-task') as Array<{meta: TaskMeta}>
    for (const p of puts) {
      expect(p.meta).toMatchObject({status: 'todo', updated_by: 'git-tasks', revision: 2})
      expect([p.meta.owner, p.meta.closed_at, p.meta.lease_expires]).toEqual([undefined, undefined, undefined])
    }
    // The flag stays: it is why the item was reopened.
    expect(puts.find((p) => p.meta.id === flagged.id)!.meta.flag_reason).toBe('spec is wrong')
    const comments = rec.changes.filter((c) => c.kind === 'add-comment').map((c) => (c as {comment: {body: string}}).comment.body)
    expect(comments.some((b) => b.includes('flagged by carol') && b.includes('reopened'))).toBe(true)
    expect(comments.some((b) => b.includes(pending.id))).toBe(true)
    expect(comments.some((b) => b.includes(openKid.id))).toBe(true)
    // Idempotent: the repaired list has nothing left to repair.
    const fixed = {...merged, tasks: new Map([...merged.tasks].map(([id, e]) => {
      const put = puts.find((p) => p.meta.id === id)
      return [id, put ? {...e, meta: put.meta, status: put.meta.status} : e]
    }))}
    expect(reconcile(fixed, {now: LATER}).repairs).toEqual([])
  })

  it('a merge reopens only what it made: a fault one side already had is left as it was', () => {
    const ours = snapshot([{...parent}, {...openKid, status: 'done'}, {...flagged}, {...checked, status: 'in_progress'}, fine])
    const theirs = withChecks(snapshot([{...parent, status: 'in_progress'}, openKid, {...flagged, flag_reason: undefined}, {...checked}, fine]), {})
    const ids = [parent.id, openKid.id, flagged.id, checked.id]
    const rec = reconcile(merged, {now: LATER, before: [ours, theirs], changed: ids})
    // ours already had the flagged item done and flagged: not the merge's doing.
    expect(rec.repairs.map((r) => [r.kind, r.task]).sort()).toEqual([
      ['done_with_open_subitems', parent.id],
      ['done_with_unmet_checks', checked.id],
    ].sort())
    expect(rec.repairs.every((r) => r.message.includes('on one clone'))).toBe(true)
  })
})
