/**
 * Coordination sessions, pure (issue 32, item 1): the ops and their
 * refusals, a task joining a session, the merge of session.md changed on
 * two sides, and the guard's session rule over the same rulebook.
 */
import {describe, expect, it} from 'vitest'
import type {Plan} from '../../src/core/plan'
import type {Snapshot} from '../../src/core/snapshot'
import {type WorkSession, parseSessionCheckpoint, parseSessionFile, serialiseSession, sessionFilePath} from '../../src/core/work-session'
import {
  type SessionChange,
  checkpointSession,
  claimSession,
  completeSession,
  createSession,
  reviseSession,
  sessionForNewTask,
  takeoverSession,
} from '../../src/core/ops/work-sessions'
import {addTask} from '../../src/core/ops/add'
import {mergeSessionFile} from '../../src/merge/session-merge'
import {judgeSessionChange} from '../../src/hooks/rules'
import {DEFAULT_CONFIG} from '../../src/core/task'
import {T0, ctx, snapshot, task} from '../helpers/snapshot'

const LATER = '2026-11-29T12:10:00.000Z'

/** The snapshot with the session a plan wrote put in its sessions. */
function withSession(snap: Snapshot, plan: Plan<SessionChange>): Snapshot {
  const sessions = new Map(snap.sessions ?? [])
  sessions.set(plan.result.session.id, plan.result.session)
  return {...snap, sessions}
}

function started(tasks = [task()]): {snap: Snapshot; id: string} {
  const snap0: Snapshot = {...snapshot(tasks), sessions: new Map()}
  const created = createSession(snap0, ctx('alice'), {title: 'Sessions', description: 'the demand', strategy: 'the plan'})
  const snap1 = withSession(snap0, created)
  const id = created.result.session.id
  return {snap: withSession(snap1, claimSession(snap1, ctx('alice'), {id})), id}
}

describe('session ops', () => {
  it('create writes session.md open at revision 1; description and strategy are required', () => {
    const snap: Snapshot = {...snapshot([]), sessions: new Map()}
    const plan = createSession(snap, ctx('alice'), {title: 'S', description: 'd', strategy: 's'})
    expect(plan.result.session).toMatchObject({state: 'open', revision: 1, epoch: 0, created_by: 'alice'})
    expect(plan.changes).toEqual([{kind: 'put-file', path: sessionFilePath(plan.result.session.id), content: serialiseSession(plan.result.session)}])
    expect(parseSessionFile(serialiseSession(plan.result.session), plan.result.session.id)).toEqual({ok: true, value: plan.result.session})
    expect(() => createSession(snap, ctx('alice'), {title: 'S', description: ' ', strategy: 's'})).toThrow(expect.objectContaining({code: 'empty_body'}))
  })

  it('claim: one holder, its own epoch; others are refused; owner-only writes', () => {
    const {snap, id} = started()
    expect(snap.sessions!.get(id)).toMatchObject({state: 'in_progress', owner: 'alice', epoch: 1})
    expect(() => claimSession(snap, ctx('bob'), {id})).toThrow(expect.objectContaining({code: 'session_claimed', exitCode: 4}))
    expect(() => checkpointSession(snap, ctx('bob'), {id, summary: 'x', next: 'y'})).toThrow(expect.objectContaining({code: 'not_owner', exitCode: 6}))
    expect(() => checkpointSession(snap, ctx('alice'), {id, summary: 'x', next: 'y', epoch: 7})).toThrow(expect.objectContaining({code: 'stale_epoch'}))
    const cp = checkpointSession(snap, ctx('alice', LATER), {id, summary: 'half', next: 'rest'})
    expect(cp.result.checkpoint).toMatchObject({kind: 'checkpoint', author: 'alice', epoch: 1, summary: 'half', next: 'rest'})
    const file = cp.changes.find((c) => c.kind === 'put-file' && c.path.includes('/checkpoints/'))
    expect(file && file.kind === 'put-file' && parseSessionCheckpoint(file.content, id, cp.result.checkpoint!.id)).toEqual({ok: true, value: cp.result.checkpoint})
    // The checkpoint renewed the lease.
    expect(cp.result.session.lease_expires! > snap.sessions!.get(id)!.lease_expires!).toBe(true)
    // With --force, another actor's write goes through and is recorded as an override.
    const forced = checkpointSession(snap, ctx('bob', T0, {force: {reason: 'alice is away'}}), {id, summary: 'x', next: 'y'})
    expect(forced.trailers).toContainEqual(['Tasks-Override', 'alice is away'])
  })

  it('revise: --if-revision, a reason, revision + 1', () => {
    const {snap, id} = started()
    expect(() => reviseSession(snap, ctx('alice'), {id, strategy: 'b', ifRevision: 2, reason: 'r'})).toThrow(expect.objectContaining({code: 'revision_mismatch', exitCode: 4}))
    const r = reviseSession(snap, ctx('alice', LATER), {id, strategy: 'b', ifRevision: 1, reason: 'the user changed it'})
    expect(r.result.session).toMatchObject({revision: 2, strategy: 'b', description: 'the demand', revise_reason: 'the user changed it', revised_by: 'alice'})
    expect(r.trailers).toContainEqual(['Tasks-Reason', 'the user changed it'])
  })

  it('complete is refused while a task of the session is not finished, and allowed once all are', () => {
    const base = started()
    const open = task({work_session: base.id, status: 'in_progress', owner: 'bob'})
    const snap: Snapshot = {...snapshot([open]), sessions: base.snap.sessions}
    expect(() => completeSession(snap, ctx('alice'), {id: base.id, summary: 'done'})).toThrow(expect.objectContaining({code: 'session_tasks_open', exitCode: 4}))
    const finished: Snapshot = {...snapshot([{...open, status: 'done'}, task({work_session: base.id, status: 'cancelled'})]), sessions: base.snap.sessions}
    const done = completeSession(finished, ctx('alice'), {id: base.id, summary: 'delivered'})
    expect(done.result.session).toMatchObject({state: 'completed', summary: 'delivered'})
    expect(() => claimSession(withSession(finished, done), ctx('bob'), {id: base.id})).toThrow(expect.objectContaining({code: 'session_finished'}))
  })

  it('takeover: epoch + 1, recorded, and an inbox record for the old owner', () => {
    const {snap, id} = started()
    const t = takeoverSession(snap, ctx('bob'), {id, reason: 'alice crashed'})
    expect(t.result.session).toMatchObject({owner: 'bob', epoch: 2})
    expect(t.trailers).toEqual(expect.arrayContaining([['Tasks-Takeover', 'alice'], ['Tasks-Reason', 'alice crashed']]))
    expect(t.changes.some((c) => c.kind === 'put-file' && c.path.startsWith('inbox/alice/') && c.content.includes('session_takeover'))).toBe(true)
    expect(() => takeoverSession({...snap, config: {...snap.config, admins: ['carol']}}, ctx('bob'), {id, reason: 'x'})).toThrow(expect.objectContaining({code: 'not_admin'}))
  })

  it('a task joins by --session or a session id in TASKS_SESSION; sub-items inherit; a label is ignored; a finished session takes none', () => {
    const {snap, id} = started([])
    const parent = task({work_session: id})
    const s: Snapshot = {...snapshot([parent]), sessions: snap.sessions}
    expect(addTask(s, ctx('alice'), {title: 'x', session: id.slice(0, 8)}).result.task.work_session).toBe(id)
    expect(addTask(s, ctx('alice'), {title: 'x', sessionFromEnv: id}).result.task.work_session).toBe(id)
    expect(addTask(s, ctx('alice'), {title: 'x', sessionFromEnv: 'agent-run-7'}).result.task.work_session).toBeUndefined()
    expect(addTask(s, ctx('alice'), {title: 'x', parent: parent.id}).result.task.work_session).toBe(id)
    expect(() => addTask(s, ctx('alice'), {title: 'x', session: 'ses-zzzzzzzzzz'})).toThrow(expect.objectContaining({code: 'session_not_found', exitCode: 3}))
    const other = task()
    expect(sessionForNewTask(s, {parent: other})).toBeUndefined()
    const second = createSession(s, ctx('alice', LATER, {entropy: 'other'}), {title: 'B', description: 'd', strategy: 's'})
    const s2 = withSession(s, second)
    expect(() => addTask(s2, ctx('alice'), {title: 'x', parent: parent.id, session: second.result.session.id})).toThrow(expect.objectContaining({code: 'session_mismatch'}))
  })
})

describe('session merge', () => {
  const base: WorkSession = {id: 'ses-0123456789', title: 'S', state: 'in_progress', strategy: 'one\ntwo\nthree', owner: 'alice', epoch: 1, claimed_at: T0, lease_expires: LATER, revision: 1, created_at: T0, created_by: 'alice', updated_at: T0, updated_by: 'alice', description: 'a\nb\nc'}
  const ctxM = {now: LATER, published: 'ours' as const}

  it('a batch create joins by its session field, and its sub-items follow; an unknown session refuses the batch', async () => {
    const {runBatchFile} = await import('../../src/core/ops/batch-file')
    const {batchOperations} = await import('../../src/operations/table')
    const {snap, id} = started([])
    const plan = runBatchFile(snap, ctx('alice'), [{op: 'create', name: 'a', title: 'joined', session: id}, {op: 'create', title: 'child', parent: '$a'}], 'atomic', batchOperations())
    const metas = plan.changes.flatMap((c) => (c.kind === 'put-task' ? [c.meta] : []))
    expect(metas.map((m) => [m.title, m.work_session])).toEqual([['joined', id], ['child', id]])
    expect(() => runBatchFile(snap, ctx('alice'), [{op: 'create', title: 'x', session: 'ses-zzzzzzzz'}], 'atomic', batchOperations())).toThrow(/no coordination session/)
  })

  it('both sides revised different lines: merged, revision past both; the claim from the higher epoch', () => {
    const ours = {...base, strategy: 'ONE\ntwo\nthree', revision: 2, revised_at: '2026-11-29T12:01:00.000Z', updated_at: '2026-11-29T12:01:00.000Z'}
    const theirs = {...base, strategy: 'one\ntwo\nTHREE', revision: 2, owner: 'bob', epoch: 2, revised_at: '2026-11-29T12:02:00.000Z', updated_at: '2026-11-29T12:02:00.000Z', updated_by: 'bob'}
    const m = mergeSessionFile(base.id, serialiseSession(base), serialiseSession(ours), serialiseSession(theirs), ctxM)!
    const merged = parseSessionFile(m.text, base.id)
    expect(merged.ok && merged.value).toMatchObject({strategy: 'ONE\ntwo\nTHREE', revision: 3, owner: 'bob', epoch: 2})
    expect(m.extra).toEqual([])
  })

  it('overlapping revisions keep the later text and file the other as a merge checkpoint; a finished side wins the state', () => {
    const ours = {...base, description: 'x\nb\nc', revision: 2, revised_at: '2026-11-29T12:03:00.000Z', state: 'completed' as const, summary: 'done'}
    const theirs = {...base, description: 'y\nb\nc', revision: 2, revised_at: '2026-11-29T12:02:00.000Z'}
    for (const [o, t, pub] of [[ours, theirs, 'ours'], [theirs, ours, 'theirs']] as const) {
      const m = mergeSessionFile(base.id, serialiseSession(base), serialiseSession(o), serialiseSession(t), {now: LATER, published: pub})!
      const merged = parseSessionFile(m.text, base.id)
      expect(merged.ok && merged.value).toMatchObject({description: 'x\nb\nc', state: 'completed', revision: 3})
      expect(m.extra).toHaveLength(1)
      expect(m.extra[0]!.content).toContain('y\nb\nc')
    }
  })
})

describe('the guard on session.md', () => {
  const facts = (actor: string, op: string, more = {}) => ({actor, op, time: LATER, override: null, ...more})
  const s: WorkSession = {id: 'ses-0123456789', title: 'S', state: 'in_progress', strategy: 's', owner: 'alice', epoch: 1, claimed_at: T0, lease_expires: '2026-11-29T13:00:00.000Z', revision: 1, created_at: T0, created_by: 'alice', updated_at: T0, updated_by: 'alice', description: 'd'}
  const rules = (before: WorkSession | undefined, after: Partial<WorkSession>, actor: string, op: string, addsCheckpoint = false, more = {}) =>
    judgeSessionChange(before, {...(before ?? s), updated_by: actor, updated_at: LATER, ...after}, facts(actor, op, more), DEFAULT_CONFIG, addsCheckpoint).map((r) => r.rule)

  it('owner-only writes, legal moves, recorded takeovers', () => {
    expect(rules(s, {strategy: 't', revision: 2}, 'alice', 'session_revise')).toEqual([])
    expect(rules(s, {strategy: 't', revision: 2}, 'bob', 'session_revise')).toContain('not_owner')
    expect(rules(s, {strategy: 't', revision: 2}, 'bob', 'session_revise', false, {override: 'alice away'})).toEqual([])
    expect(rules(s, {strategy: 't', revision: 5}, 'alice', 'session_revise')).toContain('revision')
    expect(rules(s, {}, 'bob', 'session_checkpoint', true)).toContain('not_owner')
    expect(rules(s, {state: 'completed', summary: 'x'}, 'alice', 'session_complete')).toEqual([])
    expect(rules({...s, state: 'completed', summary: 'x'}, {state: 'in_progress'}, 'alice', 'session_claim')).toContain('illegal_transition')
    expect(rules(s, {owner: 'bob', epoch: 2}, 'bob', 'session_claim')).toContain('not_owner')
    expect(rules(s, {owner: 'bob', epoch: 2}, 'bob', 'session_takeover', false, {takeover: 'alice', reason: 'crashed'})).toEqual([])
    expect(rules(s, {owner: 'bob', epoch: 2}, 'bob', 'session_claim', false, {time: '2026-11-29T14:00:00.000Z'})).toEqual([])
    expect(rules(s, {}, 'alice', 'session_heartbeat', false, {})).toEqual([])
    expect(judgeSessionChange(s, undefined, facts('alice', 'x'), DEFAULT_CONFIG, false).map((r) => r.rule)).toEqual(['session_removed'])
  })
})
