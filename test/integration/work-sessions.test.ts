/**
 * Coordination sessions end to end (issue 32, item 1): two clones through a
 * shared bare remote that runs the server guard. Create, join a task,
 * checkpoint, complete refused while a task is open and then allowed;
 * concurrent checkpoints from two clones merged with both kept; refusals
 * with nothing written; the guard refusing forged session writes.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, makeBareRepo, run, runJson, tempDir} from '../helpers/cli'
import {cloneOf, expectForgeriesRefused, putFileOnRef, tipOf} from '../remote/support'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const ALICE = {TASKS_ACTOR: 'alice'}
const BOB = {TASKS_ACTOR: 'bob'}
const OFF_A = {...ALICE, TASKS_OFFLINE: '1'}

const files = (clone: string, under: string): string[] => gitSync(clone, ['ls-tree', '-r', '--name-only', REF, '--', under]).split('\n').filter(Boolean)
const show = (clone: string, path: string): string => gitSync(clone, ['cat-file', '-p', `${REF}:${path}`])
const field = (text: string, key: string, value: string) => text.replace(new RegExp(`^${key}: .*$`, 'm'), `${key}: ${value}`)
const err = (r: {stderr: string}) => (JSON.parse(r.stderr) as {error: {code: string; exit: number}}).error

describe('coordination sessions across two clones', {timeout: 120_000}, () => {
  it('create, join, checkpoint, complete refused then allowed; concurrent checkpoints both kept; refusals write nothing; the guard refuses forgeries', async () => {
    const bare = makeBareRepo()
    await runJson(tempDir(), ['server', 'install-hook', bare])
    const a = cloneOf(bare)
    const b = cloneOf(bare)
    await runJson(a, ['init', '--remote', 'origin'], {env: ALICE})
    await runJson(b, ['init', '--remote', 'origin'], {env: BOB})

    // Alice creates and claims the session; a task joins it by --session, a sub-item by its parent, one by TASKS_SESSION.
    const created = await runJson(a, ['session', 'create', 'Sessions as records', '--description', 'the user wants sessions', '--strategy', 'model first'], {env: ALICE})
    const sid = created.session.id as string
    expect(created.session).toMatchObject({state: 'open', revision: 1, epoch: 0, owner: null})
    const claimed = await runJson(a, ['session', 'claim', sid], {env: ALICE})
    expect(claimed.session).toMatchObject({state: 'in_progress', owner: 'alice', epoch: 1})
    const task = (await runJson(a, ['add', 'Write the model', '--session', sid.slice(0, 9)], {env: ALICE})).task
    expect(task.work_session).toBe(sid)
    const sub = (await runJson(a, ['add', 'A sub-item', '--parent', task.id], {env: ALICE})).task
    expect(sub.work_session).toBe(sid)
    const viaEnv = (await runJson(a, ['add', 'Joined by env'], {env: {...ALICE, TASKS_SESSION: sid}})).task
    expect(viaEnv.work_session).toBe(sid)
    // An agent-run label in TASKS_SESSION is not a session: the task joins none.
    expect((await runJson(a, ['add', 'Label only'], {env: {...ALICE, TASKS_SESSION: 'agent-7-run-42'}})).task.work_session).toBe(null)
    // A task never moves between sessions.
    const other = (await runJson(a, ['session', 'create', 'Another', '--description', 'd', '--strategy', 's'], {env: ALICE})).session.id as string
    const moved = await run(a, ['edit', task.id, '--session', other, '--json'], {env: ALICE})
    expect(moved.code).toBe(4)
    expect(err(moved).code).toBe('session_fixed')
    const cp = await runJson(a, ['session', 'checkpoint', sid, '--summary', 'model drafted', '--next', 'write the ops'], {env: ALICE})
    expect(cp.checkpoint).toMatchObject({kind: 'checkpoint', author: 'alice', epoch: 1, next: 'write the ops'})
    const listed = await runJson(a, ['list', '--session', sid], {env: ALICE})
    expect(listed.tasks.map((t: {id: string}) => t.id).sort()).toEqual([task.id, sub.id, viaEnv.id].sort())

    // Bob, on the other clone, sees the session and its tasks.
    await runJson(b, ['sync'], {env: BOB})
    const seen = await runJson(b, ['session', 'show', sid], {env: BOB})
    expect(seen.session).toMatchObject({owner: 'alice', state: 'in_progress', description: 'the user wants sessions', strategy: 'model first'})
    expect(seen.counts).toMatchObject({total: 3, open: 3, todo: 3})
    expect(seen.checkpoints.map((c: {summary: string}) => c.summary)).toEqual(['model drafted'])
    expect((await runJson(b, ['session', 'list'], {env: BOB})).sessions.map((s: {id: string}) => s.id)).toContain(sid)
    expect((await runJson(b, ['session', 'search', 'records'], {env: BOB})).results[0].session.id).toBe(sid)

    // Refusals, nothing written: bob's checkpoint (not the owner, exit 6), alice's revise at a stale revision and complete with open tasks (exit 4).
    const tip = tipOf(bare)
    const bobCp = await run(b, ['session', 'checkpoint', sid, '--summary', 'x', '--next', 'y', '--json'], {env: BOB})
    expect(bobCp.code).toBe(6)
    expect(err(bobCp).code).toBe('not_owner')
    const stale = await run(a, ['session', 'revise', sid, '--strategy', 'ops first', '--if-revision', '7', '--reason', 'changed plan', '--json'], {env: ALICE})
    expect(stale.code).toBe(4)
    expect(err(stale).code).toBe('revision_mismatch')
    const early = await run(a, ['session', 'complete', sid, '--summary', 'all done', '--json'], {env: ALICE})
    expect(early.code).toBe(4)
    expect(err(early).code).toBe('session_tasks_open')
    expect(tipOf(bare)).toBe(tip)
    const bobClaim = await run(b, ['session', 'claim', sid, '--json'], {env: BOB})
    expect(bobClaim.code).toBe(4)
    expect(err(bobClaim).code).toBe('session_claimed')

    const revised = await runJson(a, ['session', 'revise', sid, '--strategy', 'ops first', '--if-revision', '1', '--reason', 'the user changed the order'], {env: ALICE})
    expect(revised.session).toMatchObject({revision: 2, strategy: 'ops first', revise_reason: 'the user changed the order'})

    // Concurrent checkpoints: alice on both clones, offline, then both sync: both checkpoints are kept.
    await runJson(b, ['sync'], {env: ALICE})
    await runJson(a, ['session', 'checkpoint', sid, '--summary', 'from clone a', '--next', 'a next'], {env: OFF_A})
    await runJson(b, ['session', 'checkpoint', sid, '--summary', 'from clone b', '--next', 'b next'], {env: {...ALICE, TASKS_OFFLINE: '1'}})
    expect((await runJson(a, ['sync'], {env: ALICE})).action).toBe('pushed')
    expect((await runJson(b, ['sync'], {env: ALICE})).action).toBe('merged')
    await runJson(a, ['sync'], {env: ALICE})
    const both = await runJson(a, ['session', 'show', sid], {env: ALICE})
    expect(both.checkpoints.map((c: {summary: string}) => c.summary).slice(0, 2).sort()).toEqual(['from clone a', 'from clone b'])
    expect(both.checkpoints.length).toBe(3)
    expect(both.session).toMatchObject({revision: 2, strategy: 'ops first', owner: 'alice'})

    // Finish the tasks, then complete.
    await runJson(a, ['done', sub.id], {env: ALICE})
    await runJson(a, ['done', task.id], {env: ALICE})
    await runJson(a, ['cancel', viaEnv.id, '--reason', 'out of scope'], {env: ALICE})
    const completed = await runJson(a, ['session', 'complete', sid, '--summary', 'delivered'], {env: ALICE})
    expect(completed.session).toMatchObject({state: 'completed', summary: 'delivered'})
    expect(completed.checkpoint).toMatchObject({kind: 'complete'})
    const late = await run(a, ['add', 'Too late', '--session', sid, '--json'], {env: ALICE})
    expect(late.code).toBe(4)
    expect(err(late).code).toBe('session_finished')

    // Takeover of the other session tells the old owner; cancel is final.
    await runJson(b, ['sync'], {env: BOB})
    await runJson(b, ['session', 'claim', other], {env: BOB})
    const took = await runJson(a, ['session', 'takeover', other, '--reason', 'bob is away'], {env: ALICE})
    expect(took.session).toMatchObject({owner: 'alice', epoch: 2})
    expect(took.took_over_from).toBe('bob')
    await runJson(b, ['sync'], {env: BOB})
    const inbox = await runJson(b, ['inbox'], {env: BOB})
    expect(inbox.records.some((r: {event: string}) => r.event === 'session_takeover')).toBe(true)
    const staleBob = await run(b, ['session', 'heartbeat', other, '--epoch', '1', '--json'], {env: BOB})
    expect(staleBob.code).toBe(6)
    await runJson(a, ['session', 'cancel', other, '--reason', 'merged into the first'], {env: ALICE})

    // Everything the CLI wrote passes the guard.
    const all = await runJson(bare, ['verify', '0'.repeat(40), tipOf(bare)!])
    expect(all.refusals).toEqual([])
    expect(all.unjudged).toEqual([])

    // Forgeries by bob: a revised strategy on alice's session, a checkpoint without its session, a completed session reopened.
    const good = tipOf(bare)!
    gitSync(a, ['update-ref', REF, good])
    const third = (await runJson(a, ['session', 'create', 'Third', '--description', 'd', '--strategy', 's'], {env: ALICE})).session.id as string
    await runJson(a, ['session', 'claim', third], {env: ALICE})
    const base = tipOf(bare)!
    const sessionPath = files(a, 'sessions').find((p) => p.includes(third) && p.endsWith('session.md'))!
    const cases: Array<{name: string; path: string; forge: () => string; rule: string}> = [
      {
        name: "bob revises alice's session",
        path: sessionPath,
        forge: () => putFileOnRef(a, sessionPath, field(field(field(show(a, sessionPath), 'strategy', '"bob\'s way"'), 'revision', '2'), 'updated_by', '"bob"'), `session_revise ${third}: Third\n\nTasks-Op: session_revise\nActor: bob`),
        rule: 'not_owner',
      },
      {
        name: 'bob adds a checkpoint alone',
        path: sessionPath.replace('session.md', 'checkpoints/20300101T000000.000Z-0123abcd.md'),
        forge: () => putFileOnRef(a, sessionPath.replace('session.md', 'checkpoints/20300101T000000.000Z-0123abcd.md'), '---\nkind: "checkpoint"\nauthor: "bob"\ncreated_at: "2030-01-01T00:00:00.000Z"\nepoch: 1\n---\nforged\n', `session_checkpoint ${third}: Third\n\nTasks-Op: session_checkpoint\nActor: bob`),
        rule: 'not_owner',
      },
    ]
    const donePath = files(a, 'sessions').find((p) => p.includes(sid) && p.endsWith('session.md'))!
    cases.push({
      name: 'a completed session reopened',
      path: donePath,
      forge: () => putFileOnRef(a, donePath, field(show(a, donePath), 'state', '"in_progress"'), `session_claim ${sid}: x\n\nTasks-Op: session_claim\nActor: alice`),
      rule: 'illegal_transition',
    })
    expectForgeriesRefused(a, bare, base, cases)
  })

  it('release --session frees only the acting actor\'s claims with that label unless forced', async () => {
    const bare = makeBareRepo()
    const a = cloneOf(bare)
    await runJson(a, ['init'], {env: ALICE})
    const x = (await runJson(a, ['add', 'Alice item'], {env: ALICE})).task.id
    const y = (await runJson(a, ['add', 'Bob item'], {env: ALICE})).task.id
    await runJson(a, ['claim', x, '--session', 'run-1'], {env: ALICE})
    await runJson(a, ['claim', y, '--session', 'run-1'], {env: BOB})
    const mine = await runJson(a, ['release', '--session', 'run-1'], {env: ALICE})
    expect(mine.released.map((t: {id: string}) => t.id)).toEqual([x])
    expect((await runJson(a, ['show', y], {env: ALICE})).task.owner).toBe('bob')
    const forced = await runJson(a, ['release', '--session', 'run-1', '--force', '--reason', 'run-1 stopped'], {env: ALICE})
    expect(forced.released.map((t: {id: string}) => t.id)).toEqual([y])
  })
})
