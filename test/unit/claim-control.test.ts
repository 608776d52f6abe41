/**
 * Issue 32, items 3, 5 and 6 on the pure core: one live claim per actor
 * (max_claims_per_actor) in the ops and, by the same predicate, in the
 * guard; leases renewed by a holder's activity and never shortened; the
 * fencing token on every owner mutation and require_epoch for agents; the
 * safe takeover. The command line, refs and inbox records are in
 * test/integration/claim-control.test.ts.
 */
import {describe, expect, it} from 'vitest'
import type {Check} from '../../src/core/check'
import {runBatchFile} from '../../src/core/ops/batch-file'
import {addCheck, recordCheck} from '../../src/core/ops/checks'
import {checkpointTask} from '../../src/core/ops/checkpoint'
import {claimNext, claimTask, heartbeat, takeoverTask} from '../../src/core/ops/claim'
import {addComment} from '../../src/core/ops/comment'
import {editTask, setDependencies} from '../../src/core/ops/edit'
import {blockTask, cancelTask, finishTask} from '../../src/core/ops/lifecycle'
import {renderRecordBody} from '../../src/core/notify'
import type {Plan} from '../../src/core/plan'
import type {Snapshot} from '../../src/core/snapshot'
import {claimLimitAllows} from '../../src/core/state-machine'
import {taskFilePath} from '../../src/core/store-layout'
import type {TaskMeta} from '../../src/core/task'
import {type CommitView, judgeTaskFile} from '../../src/hooks/judges'
import type {CommitFacts} from '../../src/hooks/rules'
import {batchOperations} from '../../src/operations/table'
import {T0, after, ctx, snapshot, task} from '../helpers/snapshot'

const later = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString()
const limited = (s: Snapshot, n: number): Snapshot => ({...s, config: {...s.config, max_claims_per_actor: n}})
const code = (f: () => unknown): string | undefined => {
  try {
    f()
  } catch (e) {
    return (e as {code?: string}).code
  }
  return undefined
}
const putTask = (plan: Plan<unknown>, id: string): TaskMeta | undefined => {
  for (const c of plan.changes) if (c.kind === 'put-task' && c.meta.id === id) return c.meta
  return undefined
}

describe('max_claims_per_actor', () => {
  const held = () => task({status: 'in_progress', owner: 'alice', epoch: 1, lease_expires: later(3600)})

  it('the predicate: 0 is no limit; otherwise one more claim while fewer are held', () => {
    expect(claimLimitAllows(50, {max_claims_per_actor: 0})).toBe(true)
    expect(claimLimitAllows(0, {max_claims_per_actor: 1})).toBe(true)
    expect(claimLimitAllows(1, {max_claims_per_actor: 1})).toBe(false)
    expect(claimLimitAllows(1, {max_claims_per_actor: 2})).toBe(true)
  })

  it('claim, next --another, block of a todo card and a takeover are refused at the limit, naming what is held; next resumes', () => {
    const mine = held()
    const free = task()
    const bobs = task({status: 'in_progress', owner: 'bob', epoch: 3, lease_expires: later(3600)})
    const s = limited(snapshot([mine, free, bobs]), 1)
    let error: any
    try {
      claimTask(s, ctx('alice'), {id: free.id})
    } catch (e) {
      error = e
    }
    expect(error).toMatchObject({code: 'claim_limit', exitCode: 4, data: {actor: 'alice', limit: 1, held: [expect.objectContaining({id: mine.id, status: 'in_progress'})]}})
    expect(error.message).toContain(mine.id)
    expect(code(() => claimNext(s, ctx('alice'), {another: true}))).toBe('claim_limit')
    expect(code(() => blockTask(s, ctx('alice'), {id: free.id, note: 'waiting'}))).toBe('claim_limit')
    expect(code(() => takeoverTask(s, ctx('alice'), {id: bobs.id, reason: 'bob is gone', confirm: bobs.id}))).toBe('claim_limit')
    // Plain next hands back the claim alice holds (no second claim).
    const resumed = claimNext(s, ctx('alice'), {})
    expect(resumed.result).toMatchObject({resumed: true, task: {id: mine.id, owner: 'alice'}})
    // done of a todo card claims and finishes it at once: no live claim results, so it is not counted.
    expect(putTask(finishTask(s, ctx('alice'), {id: free.id}), free.id)?.status).toBe('done')
    // The default (0) leaves everything as it was; a limit of 2 allows a second one.
    expect(claimTask({...s, config: {...s.config, max_claims_per_actor: 0}}, ctx('alice'), {id: free.id}).result.task.owner).toBe('alice')
    expect(claimTask(limited(s, 2), ctx('alice'), {id: free.id}).result.task.owner).toBe('alice')
  })

  it('counts live claims only: an expired or blocked-and-expired claim does not hold a place; a live blocked one does', () => {
    const expired = task({status: 'in_progress', owner: 'alice', epoch: 1, lease_expires: later(-7200)})
    const free = task()
    expect(claimTask(limited(snapshot([expired, free]), 1), ctx('alice'), {id: free.id}).result.task.owner).toBe('alice')
    const blocked = task({status: 'blocked', owner: 'alice', epoch: 1, lease_expires: later(3600), block_note: 'api'})
    expect(code(() => claimTask(limited(snapshot([blocked, free]), 1), ctx('alice'), {id: free.id}))).toBe('claim_limit')
  })

  it('a batch cannot claim a second card for one actor', () => {
    const [a, b] = [task(), task()]
    const s = limited(snapshot([a, b]), 1)
    const ops = [{op: 'claim', id: a.id}, {op: 'claim', id: b.id}]
    expect(code(() => runBatchFile(s, ctx('alice'), ops, 'atomic', batchOperations()))).toBe('claim_limit')
    const each = runBatchFile(s, ctx('alice'), ops, 'each', batchOperations())
    expect(each.result.results.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'claim_limit'])
  })
})

/** The guard's refusals of one card's change (judgeTaskFile), `before` → `afterSnap`, by `facts`. */
function guard(before: Snapshot, afterSnap: Snapshot, id: string, facts: Partial<CommitFacts> & {actor: string}): string[] {
  const f: CommitFacts = {op: 'claim', time: T0, override: null, ...facts}
  const view: CommitView = {facts: f, before, after: afterSnap, canonical: f.actor, removed: new Set(), undoBase: null, undoes: null, finishing: new Map()}
  return judgeTaskFile({path: taskFilePath(id), before: '', after: '', commit: view}).map((r) => r.rule)
}

describe('the guard mirrors max_claims_per_actor', () => {
  it('refuses a hand-made commit that gives an actor a second live claim, by the same predicate; allows the first', () => {
    const mine = task({status: 'in_progress', owner: 'alice', epoch: 1, lease_expires: later(3600)})
    const free = task()
    const s = limited(snapshot([mine, free]), 1)
    // The commit the ops would refuse, made by hand: free claimed by alice, epoch + 1.
    const forged = {...free, status: 'in_progress' as const, owner: 'alice', epoch: 1, claimed_at: T0, lease_expires: later(3600), revision: 2, updated_by: 'alice'}
    const afterSnap = limited(snapshot([mine, forged]), 1)
    expect(guard(s, afterSnap, free.id, {actor: 'alice'})).toContain('claim_limit')
    // Without the limit, or once alice's first claim is gone, the same change is legal.
    expect(guard({...s, config: {...s.config, max_claims_per_actor: 0}}, afterSnap, free.id, {actor: 'alice'})).toEqual([])
    const released = {...mine, status: 'todo' as const, owner: undefined, lease_expires: undefined, claimed_at: undefined}
    expect(guard(limited(snapshot([released, free]), 1), limited(snapshot([released, forged]), 1), free.id, {actor: 'alice'})).toEqual([])
    // A renewal of a claim alice already held live is not a new one.
    const renewed = {...mine, lease_expires: later(7200), revision: mine.revision + 1}
    expect(guard(s, limited(snapshot([renewed, forged]), 1), mine.id, {actor: 'alice', op: 'heartbeat'})).toEqual([])
  })

  it('a takeover of a claim that is no longer live is refused by the guard too', () => {
    const bobs = task({status: 'in_progress', owner: 'bob', epoch: 2, lease_expires: later(-7200)})
    const taken = {...bobs, owner: 'alice', epoch: 3, claimed_at: T0, lease_expires: later(3600), revision: 2, updated_by: 'alice'}
    expect(guard(snapshot([bobs]), snapshot([taken]), bobs.id, {actor: 'alice', op: 'takeover', takeover: 'bob', takeovers: ['bob'], reason: 'gone'})).toContain('takeover')
  })
})

describe('leases that activity renews', () => {
  const holding = (lease: number) => task({status: 'in_progress', owner: 'alice', epoch: 2, lease_expires: later(lease)})
  const now = later(1800)
  const hour = later(1800 + 3600)

  it('a comment, a check added, passed or failed, and a checkpoint by the holder move the lease to now + lease_seconds', () => {
    const t = holding(2400)
    const s = snapshot([t])
    expect(putTask(addComment(s, ctx('alice', now), {id: t.id, text: 'progress'}), t.id)?.lease_expires).toBe(hour)
    const add = addCheck(s, ctx('alice', now), {id: t.id, kind: 'test', text: 'npm test'})
    expect(putTask(add, t.id)?.lease_expires).toBe(hour)
    const chk = (add.changes.find((c) => c.kind === 'put-check') as {check: Check}).check
    const withCheck: Snapshot = {...s, checks: new Map([[t.id, [chk]]])}
    expect(putTask(recordCheck(withCheck, ctx('alice', now), {id: t.id, check: chk.id, outcome: 'passed', evidence: 'green'}), t.id)?.lease_expires).toBe(hour)
    expect(putTask(recordCheck(withCheck, ctx('alice', now), {id: t.id, check: chk.id, outcome: 'failed', evidence: 'red'}), t.id)?.lease_expires).toBe(hour)
    expect(putTask(checkpointTask(s, ctx('alice', now), {id: t.id, summary: 's', next: 'n'}), t.id)?.lease_expires).toBe(hour)
  })

  it('nobody else renews it, and a comment does not bring back an expired claim', () => {
    const t = holding(2400)
    expect(putTask(addComment(snapshot([t]), ctx('bob', now), {id: t.id, text: 'hi'}), t.id)).toBeUndefined()
    const gone = holding(-7200)
    expect(putTask(addComment(snapshot([gone]), ctx('alice', now), {id: gone.id, text: 'late'}), gone.id)).toBeUndefined()
  })

  it('nothing shortens a longer live lease: heartbeat --lease 1m on a two-hour lease keeps the two hours and says so', () => {
    const t = holding(7200)
    const beat = heartbeat(snapshot([t]), ctx('alice', later(60)), {id: t.id, leaseSeconds: 60})
    expect(beat.changes).toEqual([])
    expect(beat.result).toMatchObject({lease_kept: true, lease_asked: later(120), task: {lease_expires: later(7200)}})
    // A longer one is granted; a comment keeps the two hours too; so does a renewing claim.
    const longer = heartbeat(snapshot([t]), ctx('alice', later(60)), {id: t.id, leaseSeconds: 3 * 3600})
    expect(longer.result).toMatchObject({lease_kept: false, task: {lease_expires: later(60 + 3 * 3600)}})
    expect(putTask(addComment(snapshot([t]), ctx('alice', later(60)), {id: t.id, text: 'x'}), t.id)).toBeUndefined()
    expect(claimTask(snapshot([t]), ctx('alice', later(60)), {id: t.id, leaseSeconds: 60}).result.task.lease_expires).toBe(later(7200))
    expect(putTask(checkpointTask(snapshot([t]), ctx('alice', later(60)), {id: t.id, summary: 's', next: 'n', leaseSeconds: 60}), t.id)?.lease_expires).toBe(later(7200))
  })
})

describe('the fencing token on every owner mutation', () => {
  const t = task({status: 'in_progress', owner: 'alice', epoch: 4, lease_expires: later(3600)})
  const s = snapshot([t])

  it('cancel, edit, deps, comment and check add refuse a stale --epoch (exit 6) and take the current one', () => {
    const stale = {epoch: 3}
    expect(code(() => cancelTask(s, ctx('alice'), {id: t.id, reason: 'r', ...stale}))).toBe('stale_epoch')
    expect(code(() => editTask(s, ctx('alice'), {id: t.id, title: 'new', ...stale}))).toBe('stale_epoch')
    expect(code(() => setDependencies(s, ctx('alice'), {id: t.id, deps: [], ...stale}))).toBe('stale_epoch')
    expect(code(() => addComment(s, ctx('alice'), {id: t.id, text: 'x', ...stale}))).toBe('stale_epoch')
    expect(code(() => addCheck(s, ctx('alice'), {id: t.id, kind: 'test', text: 'x', ...stale}))).toBe('stale_epoch')
    expect(putTask(cancelTask(s, ctx('alice'), {id: t.id, reason: 'r', epoch: 4}), t.id)?.status).toBe('cancelled')
    expect(putTask(editTask(s, ctx('alice'), {id: t.id, title: 'new', epoch: 4}), t.id)?.title).toBe('new')
  })

  it('require_epoch: an agent (MCP, or an agent session) must give it on a card it holds; a person need not', () => {
    const strict: Snapshot = {...s, config: {...s.config, require_epoch: true}}
    const agent = ctx('alice', T0, {agent: true})
    const session = ctx('alice', T0, {session: 'run-7'})
    for (const c of [agent, session]) {
      expect(code(() => addComment(strict, c, {id: t.id, text: 'x'}))).toBe('epoch_required')
      expect(code(() => cancelTask(strict, c, {id: t.id, reason: 'r'}))).toBe('epoch_required')
      expect(code(() => editTask(strict, c, {id: t.id, title: 'new'}))).toBe('epoch_required')
      expect(code(() => heartbeat(strict, c, {id: t.id}))).toBe('epoch_required')
      expect(code(() => finishTask(strict, c, {id: t.id}))).toBe('epoch_required')
      expect(addComment(strict, c, {id: t.id, text: 'x', epoch: 4}).changes.length).toBeGreaterThan(0)
    }
    expect(addComment(strict, ctx('alice'), {id: t.id, text: 'x'}).changes.length).toBeGreaterThan(0)
    // A card the agent does not hold has no claim of its to fence.
    expect(addComment(strict, ctx('bob', T0, {agent: true}), {id: t.id, text: 'x'}).changes.length).toBe(1)
  })
})

describe('safe takeover', () => {
  const bobs = task({status: 'in_progress', owner: 'bob', epoch: 5, lease_expires: later(3600), revision: 7})
  const s = snapshot([bobs])

  it('needs the id repeated, the current revision, a live claim of someone else', () => {
    expect(code(() => takeoverTask(s, ctx('carol'), {id: bobs.id, reason: 'gone'}))).toBe('not_confirmed')
    expect(code(() => takeoverTask(s, ctx('carol'), {id: bobs.id, reason: 'gone', confirm: 'tsk-0000000000'}))).toBe('not_confirmed')
    expect(code(() => takeoverTask(s, ctx('carol'), {id: bobs.id, reason: 'gone', confirm: bobs.id, ifRevision: 6}))).toBe('revision_mismatch')
    expect(code(() => takeoverTask(s, ctx('bob'), {id: bobs.id, reason: 'gone', confirm: bobs.id}))).toBe('already_owned')
    let error: any
    try {
      takeoverTask(s, ctx('carol', later(7200)), {id: bobs.id, reason: 'gone', confirm: bobs.id})
    } catch (e) {
      error = e
    }
    expect(error).toMatchObject({code: 'claim_expired', exitCode: 4})
    expect(error.message).toContain('claim it normally')
    const plan = takeoverTask(s, ctx('carol'), {id: bobs.id, reason: 'gone', confirm: bobs.id, ifRevision: 7, leaseSeconds: 7200})
    expect(plan.result.task).toMatchObject({owner: 'carol', epoch: 6, lease_expires: later(7200)})
  })

  it("the old owner's inbox record says the claim was taken over while live, with the reason", () => {
    const plan = takeoverTask(s, ctx('carol'), {id: bobs.id, reason: 'host is gone', confirm: bobs.id})
    const body = renderRecordBody(plan, s, ctx('carol'), [bobs.id])
    expect(body).toContain('carol took over')
    expect(body).toContain("bob's claim was taken over while it was live")
    expect(body).toContain('reason: host is gone')
    expect(body).not.toContain('expired')
    expect(after(s, plan).tasks.get(bobs.id)?.meta?.owner).toBe('carol')
  })
})
