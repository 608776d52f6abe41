/**
 * Issue 33, item 3: the deferred and failed states, due and scheduled dates,
 * repeats (also across two clones that finish the same instance offline),
 * and the list's date filters, through the real CLI on real repositories.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson} from '../helpers/cli'
import {cloneOf} from '../remote/support'

afterAll(() => cleanupAll())

const NOW = '2026-03-10T12:00:00.000Z'
const at = (now: string, actor = 'alice') => ({env: {TASKS_ACTOR: actor, TASKS_NOW: now}})
const A = at(NOW)
const LATER = at('2026-03-13T00:00:00.000Z')

function commits(repo: string): number {
  return Number(gitSync(repo, ['rev-list', '--count', 'refs/tasks/main']).trim())
}

async function initRepo(): Promise<string> {
  const repo = makeRepo()
  await runJson(repo, ['init'], A)
  return repo
}

describe('defer', () => {
  it('parks an item until --until: not handed out by next, not stale, back to todo once the date has come', async () => {
    const repo = await initRepo()
    const id = (await runJson(repo, ['add', 'Migrate the billing tables'], A)).task.id
    const deferred = await runJson(repo, ['defer', id, '--until', '2026-03-12', '--reason', 'after the freeze'], A)
    expect(deferred.task).toMatchObject({status: 'deferred', state: 'deferred', defer_until: '2026-03-12', defer_reason: 'after the freeze', ready: false})
    // next skips it (nothing else is ready), stale does not list it, list shows it open.
    const r = await run(repo, ['next', '--json'], A)
    expect(r.code).toBe(3)
    expect(jsonError(r).code).toBe('nothing_ready')
    expect((await runJson(repo, ['stale', '--older-than', '1s'], at('2026-03-11T12:00:00.000Z'))).total).toBe(0)
    const listed = await runJson(repo, ['list'], A)
    expect(listed.tasks.map((t: {state: string}) => t.state)).toEqual(['deferred'])
    expect((await runJson(repo, ['list', '--status', 'deferred'], A)).total).toBe(1)
    // After the date it reads as todo (ready) without any write, and next hands it out.
    const before = commits(repo)
    const later = await runJson(repo, ['list', '--ready'], LATER)
    expect(later.tasks.map((t: {id: string; status: string; state: string}) => [t.id, t.status, t.state])).toEqual([[id, 'deferred', 'ready']])
    expect(commits(repo)).toBe(before)
    const next = await runJson(repo, ['next'], LATER)
    expect(next.task).toMatchObject({id, status: 'in_progress', owner: 'alice', defer_until: null, defer_reason: null})
  })

  it('refuses a date that has come, a date that is not one, and a finished item, writing nothing', async () => {
    const repo = await initRepo()
    const id = (await runJson(repo, ['add', 'Refusals'], A)).task.id
    const before = commits(repo)
    const past = await run(repo, ['defer', id, '--until', '2026-03-01', '--reason', 'x', '--json'], A)
    expect([past.code, jsonError(past).code]).toEqual([4, 'until_passed'])
    const bad = await run(repo, ['defer', id, '--until', 'next tuesday', '--reason', 'x', '--json'], A)
    expect([bad.code, jsonError(bad).code]).toEqual([2, 'bad_date'])
    const noReason = await run(repo, ['defer', id, '--json'], A)
    expect(noReason.code).toBe(2)
    expect(commits(repo)).toBe(before)
    await runJson(repo, ['done', id], A)
    const finished = commits(repo)
    const done = await run(repo, ['defer', id, '--reason', 'x', '--json'], A)
    expect([done.code, jsonError(done).code]).toEqual([4, 'not_open'])
    expect(commits(repo)).toBe(finished)
  })

  it('without --until stays deferred until reopened; claim and done are refused meanwhile', async () => {
    const repo = await initRepo()
    const id = (await runJson(repo, ['add', 'Someday'], A)).task.id
    await runJson(repo, ['defer', id, '-r', 'someday'], A)
    const before = commits(repo)
    const claim = await run(repo, ['claim', id, '--json'], at('2030-01-01T00:00:00.000Z'))
    expect([claim.code, jsonError(claim).code]).toEqual([4, 'not_claimable'])
    const done = await run(repo, ['done', id, '--json'], A)
    expect([done.code, jsonError(done).code]).toEqual([4, 'not_open'])
    expect(commits(repo)).toBe(before)
    const reopened = await runJson(repo, ['reopen', id], A)
    expect(reopened.task).toMatchObject({status: 'todo', state: 'ready', defer_reason: null})
  })
})

describe('fail', () => {
  it('is terminal (dependents keep waiting, a parent counts it finished) and reopen brings it back', async () => {
    const repo = await initRepo()
    const parent = (await runJson(repo, ['add', 'Parent'], A)).task.id
    const id = (await runJson(repo, ['add', 'Call the vendor API', '--parent', parent], A)).task.id
    const dependent = (await runJson(repo, ['add', 'Use the result', '--depends-on', id], A)).task.id
    const failed = await runJson(repo, ['fail', id, '--reason', 'the vendor shut the API down'], A)
    expect(failed.task).toMatchObject({status: 'failed', state: 'failed', fail_reason: 'the vendor shut the API down'})
    expect(failed.task.closed_at).toBe(NOW)
    const dep = (await runJson(repo, ['show', dependent], A)).task
    expect(dep).toMatchObject({state: 'waiting', blocked_by: [{id, status: 'failed', via: null}]})
    // The parent's only sub-item is finished (failed): the parent may be done.
    expect((await runJson(repo, ['done', parent], A)).task.status).toBe('done')
    expect((await runJson(repo, ['list'], A)).tasks.map((t: {id: string}) => t.id)).toEqual([dependent])
    expect((await runJson(repo, ['list', '--status', 'failed'], A)).tasks.map((t: {id: string}) => t.id)).toEqual([id])
    // Refusals, nothing written: fail again, done of a failed item.
    const before = commits(repo)
    const again = await run(repo, ['fail', id, '--reason', 'x', '--json'], A)
    expect([again.code, jsonError(again).code]).toEqual([4, 'not_open'])
    const done = await run(repo, ['done', id, '--json'], A)
    expect([done.code, jsonError(done).code]).toEqual([4, 'not_open'])
    expect(commits(repo)).toBe(before)
    // Its parent is finished: reopen the parent first, then the failed item.
    await runJson(repo, ['reopen', parent], A)
    const reopened = await runJson(repo, ['reopen', id], A)
    expect(reopened.task).toMatchObject({status: 'todo', fail_reason: null, closed_at: null})
  })
})

describe('scheduled and due dates', () => {
  it('a scheduled item is not handed out (nor claimed without --force) before its date; list --overdue and --due-before', async () => {
    const repo = await initRepo()
    const scheduled = (await runJson(repo, ['add', 'Quarterly review', '--scheduled', '2026-03-12', '--due', '2026-03-20'], A)).task
    expect(scheduled).toMatchObject({scheduled: '2026-03-12', due: '2026-03-20', ready: false, state: 'todo', overdue: false})
    const overdue = (await runJson(repo, ['add', 'Renew the certificate', '--due', '2026-03-09'], A)).task
    const soon = (await runJson(repo, ['add', 'Send the invoice', '--due', '+1d'], A)).task
    expect(soon.due).toBe('2026-03-11T12:00:00.000Z')
    await runJson(repo, ['add', 'No date'], A)
    expect(overdue.overdue).toBe(true)
    expect((await runJson(repo, ['list', '--overdue'], A)).tasks.map((t: {id: string}) => t.id)).toEqual([overdue.id])
    const before12 = await runJson(repo, ['list', '--due-before', '2026-03-12'], A)
    expect(before12.tasks.map((t: {id: string}) => t.id).sort()).toEqual([overdue.id, soon.id].sort())
    const bad = await run(repo, ['list', '--due-before', 'soonish', '--json'], A)
    expect([bad.code, jsonError(bad).code]).toEqual([2, 'bad_date'])
    // stale names overdue work whatever its idle time.
    const stale = await runJson(repo, ['stale'], A)
    expect(stale.groups.flatMap((g: {items: Array<{id: string; overdue: boolean}>}) => g.items.filter((i) => i.overdue).map((i) => i.id))).toEqual([overdue.id])
    const before = commits(repo)
    const claim = await run(repo, ['claim', scheduled.id, '--json'], A)
    expect([claim.code, jsonError(claim).code]).toEqual([4, 'not_scheduled'])
    expect(commits(repo)).toBe(before)
    // next takes the others first; once the date has come, the scheduled one too.
    const handed = new Set<string>()
    // Long leases: at LATER these claims are still live, so only the scheduled item is left to hand out (ids are random).
    for (let i = 0; i < 3; i++) handed.add((await runJson(repo, ['next', '--another', '--lease', '7d'], A)).task.id)
    expect(handed.has(scheduled.id)).toBe(false)
    expect((await runJson(repo, ['next', '--another'], LATER)).task.id).toBe(scheduled.id)
  })

  it('edit sets and clears dates; a bad interval or date is refused with nothing written', async () => {
    const repo = await initRepo()
    const id = (await runJson(repo, ['add', 'Water the plants', '--every', '+1w', '--due', '2026-03-11'], A)).task.id
    const before = commits(repo)
    const bad = await run(repo, ['edit', id, '--every', 'fortnightly', '--json'], A)
    expect([bad.code, jsonError(bad).code]).toEqual([2, 'bad_every'])
    const badAdd = await run(repo, ['add', 'x', '--due', '2026-02-30', '--json'], A)
    expect([badAdd.code, jsonError(badAdd).code]).toEqual([2, 'bad_date'])
    expect(commits(repo)).toBe(before)
    const edited = await runJson(repo, ['edit', id, '--due', 'none', '--scheduled', '2026-04-01T08:00:00+02:00', '--every', '2w'], A)
    expect(edited.fields.sort()).toEqual(['due', 'every', 'scheduled'])
    expect(edited.task).toMatchObject({due: null, scheduled: '2026-04-01T06:00:00.000Z', every: '2w'})
  })
})

describe('repeats', () => {
  it('done of a repeating item creates its next instance, dates moved on, in the same commit', async () => {
    const repo = await initRepo()
    const id = (await runJson(repo, ['add', 'Weekly report', '--due', '2026-03-06', '--scheduled', '2026-03-02', '--every', '1w', '--tag', 'ops', '-p', '1'], A)).task.id
    const before = commits(repo)
    const done = await runJson(repo, ['done', id], A)
    expect(commits(repo)).toBe(before + 1)
    const next = done.next_instance
    // Moved on by a week until after the day it was finished (2026-03-10).
    expect(next).toMatchObject({title: 'Weekly report', status: 'todo', due: '2026-03-13', scheduled: '2026-03-16', every: '1w', previous: id, tags: ['ops'], priority: 1})
    expect(next.id).not.toBe(id)
    const body = gitSync(repo, ['log', '-1', '--format=%B', 'refs/tasks/main'])
    expect(body).toContain(`Tasks-Repeat: ${next.id}`)
    expect((await runJson(repo, ['show', next.id], A)).body).toContain(`Repeats ${id}`)
    // Finishing it again after a reopen makes no second next instance.
    await runJson(repo, ['reopen', id], A)
    const again = await runJson(repo, ['done', id], A)
    expect(again.next_instance).toBeUndefined()
    expect((await runJson(repo, ['list', '--all'], A)).total).toBe(2)
  })

  it('two clones that finish the same repeating item offline end with one next instance after sync', async () => {
    const bare = makeBareRepo()
    const [one, two] = [cloneOf(bare), cloneOf(bare)]
    await runJson(one, ['init', '--remote', 'origin'], A)
    await runJson(two, ['init', '--remote', 'origin'], A)
    const id = (await runJson(one, ['add', 'Rotate the keys', '--due', '2026-03-10', '--every', '1m'], A)).task.id
    await runJson(one, ['sync'], A)
    await runJson(two, ['sync'], at(NOW, 'bob'))
    const offA = {env: {TASKS_ACTOR: 'alice', TASKS_OFFLINE: '1', TASKS_NOW: '2026-03-10T13:00:00.000Z'}}
    const offB = {env: {TASKS_ACTOR: 'bob', TASKS_OFFLINE: '1', TASKS_NOW: '2026-03-10T15:30:00.000Z'}}
    const a = await runJson(one, ['done', id], offA)
    const b = await runJson(two, ['done', id], offB)
    expect(a.next_instance.id).toBe(b.next_instance.id)
    await runJson(one, ['sync'], A)
    await runJson(two, ['sync'], at(NOW, 'bob'))
    await runJson(one, ['sync'], A)
    for (const repo of [one, two]) {
      const all = await runJson(repo, ['list', '--all'], A)
      expect(all.tasks.map((t: {id: string; status: string}) => [t.id, t.status]).sort()).toEqual([[a.next_instance.id, 'todo'], [id, 'done']].sort())
      expect(all.tasks.find((t: {id: string}) => t.id === a.next_instance.id)).toMatchObject({due: '2026-04-10', previous: id})
    }
  })
})

describe('batch and MCP carry the same parameters', () => {
  it('a batch adds a dated repeating item, defers one and fails another in one commit', async () => {
    const repo = await initRepo()
    const other = (await runJson(repo, ['add', 'Doomed'], A)).task.id
    const before = commits(repo)
    const ops = [
      {op: 'add', name: 'a', title: 'Backup check', due: '2026-03-15', every: '1w'},
      {op: 'add', name: 'b', title: 'Later', scheduled: '2026-04-01'},
      {op: 'defer', id: '$b', until: '2026-05-01', reason: 'not this quarter'},
      {op: 'fail', id: other, reason: 'out of budget'},
    ]
    const r = await runJson(repo, ['batch', '-'], {...A, input: JSON.stringify(ops)})
    expect(commits(repo)).toBe(before + 1)
    const all = await runJson(repo, ['list', '--all'], A)
    const by = Object.fromEntries(all.tasks.map((t: {title: string}) => [t.title, t]))
    expect(by['Backup check']).toMatchObject({due: '2026-03-15', every: '1w', status: 'todo'})
    expect(by.Later).toMatchObject({status: 'deferred', scheduled: '2026-04-01', defer_until: '2026-05-01'})
    expect(by.Doomed).toMatchObject({status: 'failed', fail_reason: 'out of budget'})
    expect(r.commit).toBeTruthy()
    // A refused step (a date that is not one) writes nothing.
    const bad = await run(repo, ['batch', '-', '--json'], {...A, input: JSON.stringify([{op: 'add', title: 'x'}, {op: 'defer', id: other, until: 'whenever', reason: 'x'}])})
    expect(bad.code).not.toBe(0)
    expect(commits(repo)).toBe(before + 1)
  })
})

describe('list --json', () => {
  it('gives each row as show views it, streamed from the cache or card by card, with dated, deferred and failed cards', async () => {
    const repo = await initRepo()
    const plain = (await runJson(repo, ['add', 'Plain'], A)).task.id
    await runJson(repo, ['add', 'Due', '--due', '2026-03-01'], A)
    const done = (await runJson(repo, ['add', 'Done'], A)).task.id
    await runJson(repo, ['done', done], A)
    const check = async (): Promise<void> => {
      for (let pass = 0; pass < 2; pass++) {
        const listed = await runJson(repo, ['list', '--all'], A)
        for (const row of listed.tasks) {
          const {depth, ...view} = row
          expect(depth).toBe(0)
          expect(view).toEqual((await runJson(repo, ['show', row.id], A)).task)
        }
      }
    }
    await check()
    const sched = (await runJson(repo, ['add', 'Scheduled', '--scheduled', '2026-04-01'], A)).task.id
    await check()
    await runJson(repo, ['defer', plain, '--until', '2026-03-11', '--reason', 'tomorrow'], A)
    await runJson(repo, ['fail', sched, '--reason', 'no'], A)
    await check()
    const states = (await runJson(repo, ['list', '--all'], LATER)).tasks.map((t: {title: string; state: string}) => `${t.title}:${t.state}`)
    expect(states.sort()).toEqual(['Done:done', 'Due:ready', 'Plain:ready', 'Scheduled:failed'])
  })
})
