/**
 * Issue 11, deliverables 1-4, on real repositories through the built CLI:
 * done refused with a pending check and accepted with evidence; a title
 * edit resets checks in the same commit; a flagged item cannot be finished;
 * a batch with one invalid item writes nothing and a valid 200-item batch
 * is one commit; an expired lease is swept (lazily by claim, and by
 * `tasks sweep`) and the old owner's `done --epoch` is refused; takeover;
 * `release --session` frees exactly that session's items; prune; offline
 * check changes from two clones merged by `tasks sync` without loss.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'
import {cloneOf} from '../remote/support'
import {makeBareRepo} from '../helpers/cli'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const A = {env: {TASKS_ACTOR: 'alice'}}
const B = {env: {TASKS_ACTOR: 'bob'}}
const tip = (repo: string) => gitSync(repo, ['rev-parse', REF]).trim()
const commits = (repo: string) => Number(gitSync(repo, ['rev-list', '--count', REF]).trim())

async function fresh(): Promise<string> {
  const repo = makeRepo()
  await runJson(repo, ['init'])
  return repo
}

async function add(repo: string, title: string, extra: string[] = []): Promise<string> {
  return (await runJson(repo, ['add', title, ...extra], A)).task.id
}

describe('checks with evidence', () => {
  it('done is refused (exit 4, naming the pending check) and accepted once it passed with evidence; a title edit resets it', async () => {
    const repo = await fresh()
    const id = await add(repo, 'Ship login')
    const added = await runJson(repo, ['check', 'add', id, '--acceptance', 'SSO login works'], A)
    const chk = added.check.id
    expect(added.check).toMatchObject({kind: 'acceptance', status: 'pending'})
    const before = tip(repo)
    const refused = await run(repo, ['done', id, '--json'], A)
    expect(refused.code).toBe(4)
    expect(jsonError(refused)).toMatchObject({code: 'checks_pending', checks: [expect.objectContaining({id: chk, status: 'pending'})]})
    expect(jsonError(refused).message).toContain(chk)
    expect(tip(repo)).toBe(before)
    // Evidence is required.
    const noEvidence = await run(repo, ['check', 'pass', id, chk, '--evidence', ' ', '--json'], A)
    expect(noEvidence.code).toBe(5)
    expect(jsonError(noEvidence).code).toBe('empty_evidence')
    await runJson(repo, ['check', 'pass', id, chk.slice(0, 8), '--evidence', 'CI run 42 green'], A)
    // A new spec revision puts it back to pending, in the edit's own commit.
    const beforeEdit = commits(repo)
    const edited = await runJson(repo, ['edit', id, '--title', 'Ship login with SSO'], A)
    expect(edited.checks_reset).toEqual([chk])
    expect(commits(repo)).toBe(beforeEdit + 1)
    const list = await runJson(repo, ['check', 'list', id], A)
    expect(list.checks[0]).toMatchObject({id: chk, status: 'pending', evidence: 'CI run 42 green', spec_revision: edited.task.revision})
    expect(list.unmet).toEqual([chk])
    expect((await run(repo, ['done', id], A)).code).toBe(4)
    await runJson(repo, ['check', 'pass', id, chk, '--evidence', 'CI run 43 green'], A)
    const done = await runJson(repo, ['done', id], A)
    expect(done.task.status).toBe('done')
    // The check is its own file on the ref.
    const files = gitSync(repo, ['ls-tree', '-r', '--name-only', REF]).split('\n')
    expect(files.some((f) => f.endsWith(`/${id}/checks/${chk}.md`))).toBe(true)
  })

  it('a failed check keeps its evidence; a superseded one stops blocking and keeps its history', async () => {
    const repo = await fresh()
    const id = await add(repo, 'Fix parser')
    const chk = (await runJson(repo, ['check', 'add', id, '--test', 'npm test -- parser'], A)).check.id
    const failed = await runJson(repo, ['check', 'fail', id, chk, '--evidence', 'test_unicode red'], A)
    expect(failed.check).toMatchObject({status: 'failed', evidence: 'test_unicode red', failed_by: 'alice'})
    const sup = await runJson(repo, ['check', 'supersede', id, chk, '--reason', 'covered by the new fuzz test'], A)
    expect(sup.check).toMatchObject({status: 'superseded', evidence: 'test_unicode red'})
    expect((await runJson(repo, ['done', id], A)).task.status).toBe('done')
    const log = gitSync(repo, ['log', '--format=%B', REF, '--', `tasks/*/${id}/checks/*`])
    expect(log).toContain(`Tasks-Check: ${chk} failed`)
    expect(log).toContain(`Tasks-Check: ${chk} superseded`)
    const usage = await run(repo, ['check', 'add', id, '--json'], A)
    expect(usage.code).toBe(2)
  })
})

describe('flags', () => {
  it('a flagged item cannot be finished; anyone may take it over, which clears the flag', async () => {
    const repo = await fresh()
    const id = await add(repo, 'Migrate db')
    await runJson(repo, ['claim', id], A)
    const flagged = await runJson(repo, ['flag', id, 'agent is looping'], B)
    expect(flagged.task.flag).toMatchObject({reason: 'agent is looping', by: 'bob'})
    const before = tip(repo)
    const refused = await run(repo, ['done', id, '--json'], A)
    expect(refused.code).toBe(4)
    expect(jsonError(refused).code).toBe('flagged')
    expect(tip(repo)).toBe(before)
    const taken = await runJson(repo, ['claim', id], B)
    expect(taken).toMatchObject({took_over_from: 'alice', task: {owner: 'bob', flag: null}})
    expect(gitSync(repo, ['log', '-1', '--format=%B', REF])).toContain('Tasks-Unflagged: agent is looping')
  })
})

describe('sessions and lease recovery', () => {
  it('release --session frees exactly that session’s items', async () => {
    const repo = await fresh()
    const [a, b, c, d] = [await add(repo, 'a'), await add(repo, 'b'), await add(repo, 'c'), await add(repo, 'd')]
    await runJson(repo, ['claim', a, '--session', 'run-1'], A)
    await runJson(repo, ['claim', b], {env: {...A.env, TASKS_SESSION: 'run-1'}})
    await runJson(repo, ['claim', c, '--session', 'run-2'], A)
    await runJson(repo, ['claim', d], B)
    const shown = await runJson(repo, ['show', a], A)
    expect(shown.task.session).toBe('run-1')
    // Another actor's runner frees the label's claims only with an override (issue 32); without, none of alice's go back.
    expect((await runJson(repo, ['release', '--session', 'run-1'], B)).released).toEqual([])
    const released = await runJson(repo, ['release', '--session', 'run-1', '--force', '--reason', 'run-1 stopped'], B)
    expect(released.released.map((t: {id: string}) => t.id).sort()).toEqual([a, b].sort())
    const list = await runJson(repo, ['list', '--all'], A)
    const status = Object.fromEntries(list.tasks.map((t: {id: string; status: string}) => [t.id, t.status]))
    expect(status).toEqual({[a]: 'todo', [b]: 'todo', [c]: 'in_progress', [d]: 'in_progress'})
    expect((await run(repo, ['release', '--session', 'run-1', '--all'], A)).code).toBe(2)
  })

  it('an expired lease is swept by the next claim (same commit) and the old owner’s done --epoch is refused; tasks sweep does it alone', async () => {
    const repo = await fresh()
    const [x, y, z] = [await add(repo, 'x'), await add(repo, 'y'), await add(repo, 'z')]
    const held = await runJson(repo, ['claim', x, '--lease', '60s'], A)
    await runJson(repo, ['claim', z, '--lease', '60s'], A)
    const laterEnv = (actor: string) => ({env: {TASKS_ACTOR: actor, TASKS_NOW: new Date(Date.now() + 10 * 60_000).toISOString()}})
    const before = commits(repo)
    await runJson(repo, ['claim', y], laterEnv('bob'))
    expect(commits(repo)).toBe(before + 1)
    const msg = gitSync(repo, ['log', '-1', '--format=%B', REF])
    expect(msg).toContain(`Tasks-Swept: ${x} alice epoch 1`)
    const swept = await runJson(repo, ['show', x], B)
    expect(swept.task).toMatchObject({status: 'todo', owner: null, epoch: 2})
    const stale = await run(repo, ['done', x, '--epoch', String(held.task.epoch), '--json'], laterEnv('alice'))
    expect(stale.code).toBe(6)
    expect(jsonError(stale).code).toBe('stale_epoch')
    // z was swept in the same commit; an explicit sweep now has nothing left.
    expect((await runJson(repo, ['show', z], B)).task.status).toBe('todo')
    expect((await runJson(repo, ['sweep'], laterEnv('bob'))).swept).toEqual([])
  })

  it('takeover of a live claim: epoch + 1, recorded; the old owner is fenced', async () => {
    const repo = await fresh()
    const id = await add(repo, 'long job')
    const mine = await runJson(repo, ['claim', id], A)
    const t = await runJson(repo, ['takeover', id, '--reason', 'host is gone', '--confirm', id], B)
    expect(t).toMatchObject({took_over_from: 'alice', task: {owner: 'bob', epoch: mine.task.epoch + 1}})
    const msg = gitSync(repo, ['log', '-1', '--format=%B', REF])
    expect(msg).toContain('Tasks-Op: takeover')
    expect(msg).toContain('Tasks-Takeover: alice')
    expect(msg).toContain('Tasks-Reason: host is gone')
    const fenced = await run(repo, ['done', id, '--epoch', String(mine.task.epoch), '--json'], A)
    expect(jsonError(fenced).code).toBe('stale_epoch')
    const displaced = await run(repo, ['done', id, '--json'], A)
    expect(jsonError(displaced).code).toBe('claim_taken_over')
  })

  it('prune removes old finished items (retention from config), keeping what live items depend on', async () => {
    const repo = await fresh()
    const [old, dep, recent] = [await add(repo, 'old'), await add(repo, 'dep'), await add(repo, 'recent')]
    const chk = (await runJson(repo, ['check', 'add', old, '--test', 'kept through prune and restore'], A)).check.id
    await runJson(repo, ['check', 'pass', old, chk, '--evidence', 'green'], A)
    const live = await add(repo, 'live', ['--depends-on', dep])
    const past = {env: {TASKS_ACTOR: 'alice', TASKS_NOW: new Date(Date.now() - 30 * 86400_000).toISOString()}}
    await runJson(repo, ['done', old, dep], past)
    await runJson(repo, ['done', recent], A)
    const r = await runJson(repo, ['prune'], A)
    expect(r.removed.map((t: {id: string}) => t.id)).toEqual([old])
    expect(r.kept).toEqual([{id: dep, reason: 'dependency', by: live}])
    await runJson(repo, ['config', 'set', 'retention_seconds', '60d'], A)
    expect((await runJson(repo, ['prune'], A)).removed).toEqual([])
    expect((await runJson(repo, ['restore', old], A)).restored[0].id).toBe(old)
    expect((await runJson(repo, ['check', 'list', old], A)).checks).toEqual([expect.objectContaining({id: chk, status: 'passed', evidence: 'green'})])
  })
})

describe('tasks batch', () => {
  it('a batch with one invalid item writes nothing; --each reports it and writes the rest', async () => {
    const repo = await fresh()
    const before = tip(repo)
    const ops = [
      {op: 'create', name: 'a', title: 'first'},
      {op: 'create', title: 'second', depends_on: ['$a']},
      {op: 'create', title: 'x'.repeat(600)},
      {op: 'comment', id: '$a', text: 'hello'},
    ]
    const r = await run(repo, ['batch', '-', '--json'], {...A, input: JSON.stringify(ops)})
    expect(r.code).toBe(5)
    expect(jsonError(r)).toMatchObject({code: 'title_too_long', index: 2, op: 'create'})
    expect(tip(repo)).toBe(before)
    const each = await runJson(repo, ['batch', '-', '--each'], {...A, input: JSON.stringify(ops)})
    expect(each.results.map((i: {ok: boolean}) => i.ok)).toEqual([true, true, false, true])
    expect(each.results[2].error.code).toBe('title_too_long')
    expect(commits(repo)).toBe(2)
    const bad = await run(repo, ['batch', '-', '--json'], {...A, input: '{not json'})
    expect(jsonError(bad).code).toBe('bad_batch')
  })

  it('a valid 200-item batch is one commit', async () => {
    const repo = await fresh()
    const ops: unknown[] = []
    for (let i = 0; i < 50; i++) {
      ops.push({op: 'create', name: `t${i}`, title: `item ${i}`, ...(i > 0 ? {depends_on: [`$t${i - 1}`]} : {})})
      ops.push({op: 'check', action: 'add', id: `$t${i}`, acceptance: `item ${i} works`, name: `c${i}`})
    }
    for (let i = 0; i < 50; i++) ops.push({op: 'comment', id: `$t${i}`, text: `note ${i}`})
    for (let i = 0; i < 50; i++) ops.push({op: 'check', action: 'pass', id: `$t${i}`, check: `$c${i}`, evidence: `ok ${i}`})
    const before = commits(repo)
    const r = await runJson(repo, ['batch', '-'], {...A, input: JSON.stringify(ops)})
    expect(r).toMatchObject({applied: 200, failed: 0})
    expect(commits(repo)).toBe(before + 1)
    expect(gitSync(repo, ['log', '-1', '--format=%B', REF])).toContain('Tasks-Op: batch')
    const first = r.results[0].id
    const list = await runJson(repo, ['check', 'list', first], A)
    expect(list.checks[0]).toMatchObject({status: 'passed', evidence: 'ok 0'})
    // The items work afterwards: the first can be done (its check passed), the second waits on it.
    expect((await runJson(repo, ['done', first], A)).task.status).toBe('done')
    // next --json and show carry the item's checks: an agent starts without another call.
    const next = await runJson(repo, ['next'], B)
    expect(next.task.id).toBe(r.results[2].id)
    expect(next.checks).toEqual([expect.objectContaining({kind: 'acceptance', text: 'item 1 works', status: 'passed', evidence: 'ok 1'})])
    expect((await runJson(repo, ['show', first], A)).checks).toHaveLength(1)
    expect((await run(repo, ['show', first], A)).stdout).toContain('Checks (1)')
  })
})

describe('concurrent processes', () => {
  it('batches and check passes from concurrent processes all land, each batch one commit', async () => {
    const repo = await fresh()
    const id = await add(repo, 'Many checks')
    const checks: string[] = []
    for (let i = 0; i < 4; i++) checks.push((await runJson(repo, ['check', 'add', id, '--test', `test ${i}`], A)).check.id)
    const before = commits(repo)
    const batches = Array.from({length: 4}, (_, b) =>
      run(repo, ['batch', '-', '--json'], {env: {TASKS_ACTOR: `agent-${b}`}, input: JSON.stringify(Array.from({length: 10}, (_, i) => ({op: 'create', title: `b${b} item ${i}`})))}),
    )
    const passes = checks.map((c, i) => run(repo, ['check', 'pass', id, c, '--evidence', `run ${i}`, '--json'], {env: {TASKS_ACTOR: `agent-${i}`}}))
    const results = await Promise.all([...batches, ...passes])
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    expect(commits(repo)).toBe(before + 8)
    const list = await runJson(repo, ['list', '--all'], A)
    expect(list.tasks).toHaveLength(41)
    const listed = await runJson(repo, ['check', 'list', id], A)
    expect(listed.unmet).toEqual([])
    expect(listed.checks.map((c: {evidence: string}) => c.evidence).sort()).toEqual(['run 0', 'run 1', 'run 2', 'run 3'])
  })
})

describe('offline check changes from two clones', () => {
  it('merge with tasks sync without loss', async () => {
    const bare = makeBareRepo()
    const [one, two] = [cloneOf(bare), cloneOf(bare)]
    await runJson(one, ['init', '--remote', 'origin'])
    await runJson(two, ['init', '--remote', 'origin'])
    const id = (await runJson(one, ['add', 'Shared'], A)).task.id
    const c1 = (await runJson(one, ['check', 'add', id, '--acceptance', 'first'], A)).check.id
    const c2 = (await runJson(one, ['check', 'add', id, '--test', 'second'], A)).check.id
    await runJson(two, ['sync'], B)
    const offA = {env: {TASKS_ACTOR: 'alice', TASKS_OFFLINE: '1'}}
    const offB = {env: {TASKS_ACTOR: 'bob', TASKS_OFFLINE: '1'}}
    // Different checks on each side, and the same check passed on one side and failed on the other.
    await runJson(one, ['check', 'pass', id, c1, '--evidence', 'green on one'], offA)
    await runJson(two, ['check', 'fail', id, c1, '--evidence', 'red on two'], offB)
    await runJson(two, ['check', 'pass', id, c2, '--evidence', 'second ok on two'], offB)
    const c3 = (await runJson(one, ['check', 'add', id, '--acceptance', 'third, from one'], offA)).check.id
    await runJson(one, ['sync'], A)
    const synced = await runJson(two, ['sync'], B)
    expect(synced.notes.map((n: {kind: string}) => n.kind)).toContain('check_merged')
    await runJson(one, ['sync'], A)
    expect(tip(one)).toBe(tip(two))
    const list = await runJson(one, ['check', 'list', id], A)
    const by = Object.fromEntries(list.checks.map((c: {id: string}) => [c.id, c]))
    expect(by[c1].status).toBe('failed')
    expect(by[c1].evidence).toContain('green on one')
    expect(by[c1].evidence).toContain('red on two')
    expect(by[c2]).toMatchObject({status: 'passed', evidence: 'second ok on two'})
    expect(by[c3]).toMatchObject({status: 'pending', text: 'third, from one'})
  })
})
