/**
 * Sharing as a person meets it: a fresh clone finds the remote's list
 * (`init` adopts it, other commands say how), reads say when the list is
 * behind the remote's last fetched state or has unpublished commits,
 * every mutation says whether it was published, and `tasks remote` /
 * `tasks lists` show where this clone stands. A bare remote and clones.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson} from '../helpers/cli'
import {cloneOf, expectSchema, shared, tipOf} from './support'

const A = {env: {TASKS_ACTOR: 'alice'}}
const B = {env: {TASKS_ACTOR: 'bob'}}
const TRACKING = 'refs/tasks-remote/origin/main'

afterAll(() => cleanupAll())

/** The JSON warnings a --json run printed on stderr. */
function warnings(stderr: string): Array<{kind: string; message: string; [k: string]: unknown}> {
  return stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).warning)
}

describe('a fresh clone finds the list', () => {
  it('reads and mutations name the remote that has it; init with no flags adopts it and says so', async () => {
    const {bare, clones} = await shared(1)
    const added = await runJson(clones[0]!, ['add', 'Already shared'], A)
    const fresh = cloneOf(bare)

    for (const args of [['list'], ['show', added.task.id], ['add', 'Too early']]) {
      const r = await run(fresh, [...args, '--json'], A)
      expect(r.code, args.join(' ')).toBe(1)
      const e = jsonError(r)
      expect(e).toMatchObject({code: 'not_initialised', remote: 'origin', remotes: ['origin']})
      expect(e.message).toContain('remote "origin" has it: run `tasks init --remote origin`')
    }
    const offline = await run(fresh, ['list', '--offline', '--json'], A)
    expect(jsonError(offline).remote).toBeUndefined() // no network with --offline, not even for a message
    const human = await run(fresh, ['list'], A)
    expect(human.stderr).toBe('error: the list "main" is not initialised here, but remote "origin" has it: run `tasks init --remote origin`\n')
    expect(tipOf(fresh)).toBeNull()

    const init = await run(fresh, ['init'], A)
    expect(init.code, init.stderr).toBe(0)
    expect(init.stdout).toMatch(/^found the list on remote "origin" and adopted it: refs\/tasks\/main at [0-9a-f]{10} \(tasks\.remote = origin\)\n$/)
    expect(tipOf(fresh)).toBe(added.commit)
    expect(gitSync(fresh, ['config', 'tasks.remote']).trim()).toBe('origin')
    const l = await runJson(fresh, ['list'], A)
    expect(l.tasks.map((t: {title: string}) => t.title)).toEqual(['Already shared'])
  })

  it('a repository whose remotes do not have the list: plain errors and a plain init', async () => {
    const repo = makeRepo()
    gitSync(repo, ['remote', 'add', 'origin', makeBareRepo()])
    const r = await run(repo, ['list', '--json'], A)
    expect(jsonError(r)).toMatchObject({code: 'not_initialised'})
    expect(jsonError(r).remote).toBeUndefined()
    const init = await runJson(repo, ['init'], A)
    expect(init).toMatchObject({created: true, remote: null, sync: null, discovered: false})
  })

  it('several remotes have it: init stops with ambiguous_remote; init --offline starts a separate local list', async () => {
    const {bare} = await shared(1)
    const fresh = cloneOf(bare)
    gitSync(fresh, ['remote', 'add', 'mirror', bare])
    const r = await run(fresh, ['init', '--json'], A)
    expect(r.code).toBe(2)
    expect(jsonError(r)).toMatchObject({code: 'ambiguous_remote', remotes: ['mirror', 'origin']})
    expect(tipOf(fresh)).toBeNull()
    const local = await runJson(fresh, ['init', '--offline'], A)
    expect(local).toMatchObject({created: true, remote: null, discovered: false})
  })
})

describe('published or committed offline', () => {
  it('every mutation result says it; the human line carries the word only when a remote is configured', async () => {
    const {clones} = await shared(1)
    const repo = clones[0]!
    const online = await runJson(repo, ['add', 'Online'], A)
    expect(online.published).toBe(true)
    expectSchema('add', online)
    const offline = await runJson(repo, ['add', 'Offline', '--offline'], A)
    expect(offline.published).toBe(false)
    // Nothing to change online: the remote already has that state.
    expect(await runJson(repo, ['assign', online.task.id, '--none'], A)).toMatchObject({commit: null, published: true})
    const claimed = await runJson(repo, ['claim', online.task.id], A)
    expect(claimed.published).toBe(true)
    expectSchema('claim', claimed)

    const word = await run(repo, ['comment', online.task.id, 'a note'], A)
    expect(word.stdout.split('\n')[0]).toMatch(/\[published to origin\]$/)
    const off = await run(repo, ['comment', online.task.id, 'a note', '--offline'], A)
    expect(off.stdout.split('\n')[0]).toMatch(/\[committed offline: `tasks sync` publishes it\]$/)
    const env = await run(repo, ['done', online.task.id], {env: {TASKS_ACTOR: 'alice', TASKS_OFFLINE: '1'}})
    expect(env.stdout).toContain('[committed offline')

    const local = makeRepo()
    await runJson(local, ['init'])
    const plain = await runJson(local, ['add', 'Local only'], A)
    expect(plain.published).toBe(false)
    const text = await run(local, ['add', 'Local only, text'], A)
    expect(text.stdout).not.toContain('[')
  })
})

describe('reads say when the list is behind or has unpublished commits', () => {
  it('unpublished, behind, diverged, then nothing once synced; never a fetch', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const quiet = await run(b, ['list', '--json'], B)
    expect(quiet.stderr).toBe('')

    await runJson(b, ['add', 'Not yet shared', '--offline'], B)
    let r = await run(b, ['list', '--json'], B)
    expect(warnings(r.stderr)).toEqual([{kind: 'unpublished', remote: 'origin', ahead: 1, behind: 0, message: expect.stringContaining('1 commit of the local list is not published to origin')}])
    const human = await run(b, ['list'], B)
    expect(human.stderr).toBe('warning: 1 commit of the local list is not published to origin; run `tasks sync` to publish\n')

    // a publishes two commits; b's failing online claim fetches them (the op fails, the local ref stays).
    const x = await runJson(a, ['add', 'From a'], A)
    await runJson(a, ['claim', x.task.id], A)
    const lost = await run(b, ['claim', x.task.id, '--json'], B)
    expect(jsonError(lost).code).toBe('already_claimed')
    const remoteTip = tipOf(bare)
    expect(tipOf(b, TRACKING)).toBe(remoteTip)
    r = await run(b, ['show', x.task.id.slice(0, 8), '--json'], B)
    expect(r.code).toBe(3) // not here yet: the local list is behind
    expect(r.stderr.trim().split('\n')).toHaveLength(1) // a failing read prints its error alone, no warning
    r = await run(b, ['list', '--json'], B)
    expect(warnings(r.stderr)).toEqual([{kind: 'diverged_from_remote', remote: 'origin', ahead: 1, behind: 2, message: expect.stringContaining('diverged')}])

    const status = await runJson(b, ['remote'], B)
    expectSchema('remote-status', status)
    expect(status).toMatchObject({remote: 'origin', url: bare, offline: false, tracking_ref: TRACKING, remote_tip: remoteTip, local_tip: tipOf(b), ahead: 1, behind: 2})
    expect(Date.parse(status.last_fetch)).toBeGreaterThan(Date.now() - 60_000)
    const text = await run(b, ['remote'], B)
    expect(text.stdout).toContain(`remote: origin (${bare})`)
    expect(text.stdout).toContain('1 commit not published, 2 commits behind: run `tasks sync`')

    await runJson(b, ['sync'], B)
    r = await run(b, ['list', '--json'], B)
    expect(r.stderr).toBe('')
    expect(await runJson(b, ['remote'], B)).toMatchObject({ahead: 0, behind: 0})

    // behind only: a plain fetch of the list into the tracking ref, as the next mutation's fetch would.
    await runJson(a, ['add', 'Later from a'], A)
    gitSync(b, ['fetch', '-q', 'origin', `+refs/tasks/main:${TRACKING}`])
    r = await run(b, ['list', '--json'], B)
    expect(warnings(r.stderr)).toEqual([{kind: 'behind_remote', remote: 'origin', ahead: 0, behind: 1, message: expect.stringContaining('1 commit behind origin')}])
  })
})

describe('tasks remote and tasks lists', () => {
  it('no remote: local only; lists with counts, the current one marked', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    await runJson(repo, ['--list', 'release', 'init'])
    await runJson(repo, ['--list', 'release', 'add', 'One'], A)
    await runJson(repo, ['--list', 'release', 'list'], A)
    const status = await runJson(repo, ['remote'])
    expectSchema('remote-status', status)
    expect(status).toMatchObject({remote: null, url: null, tracking_ref: null, ahead: null, behind: null, last_fetch: null})
    expect((await run(repo, ['remote'])).stdout).toBe('no tasks remote: the lists are local only (`tasks remote set NAME` to share them)\n')
    const lists = await runJson(repo, ['lists'])
    expectSchema('lists', lists)
    expect(lists.current).toBe('main')
    expect(lists.lists.map((l: {name: string; tasks: number | null}) => [l.name, l.tasks])).toEqual([
      ['main', null],
      ['release', 1],
    ])
    const text = (await run(repo, ['--list', 'release', 'lists'])).stdout.split('\n')
    expect(text[0]).toMatch(/LIST\s+TASKS\s+COMMIT/)
    expect(text.find((l) => l.includes('release'))).toMatch(/^\*\s+release\s+1\s+[0-9a-f]{10}/)
  })

  it('with a remote: a list the remote has that is not here shows as remote only', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    await runJson(a, ['--list', 'ops', 'init'])
    await runJson(a, ['--list', 'ops', 'sync'])
    // b asks for an item of that list online: the fetch brings the tracking ref, the op fails, no local list.
    const miss = await run(b, ['--list', 'ops', 'claim', 'tsk-zzzzzzzzzz', '--json'], B)
    expect(miss.code).toBe(3)
    const lists = await runJson(b, ['lists'])
    expectSchema('lists', lists)
    expect(lists.remote).toBe('origin')
    expect(lists.lists).toMatchObject([
      {name: 'main', ref: 'refs/tasks/main', commit: tipOf(b), remote_commit: tipOf(b)},
      {name: 'ops', ref: null, commit: null, tasks: null, remote_commit: tipOf(a, 'refs/tasks/ops')},
    ])
    expect((await run(b, ['lists'])).stdout).toMatch(/ops\s+-\s+[0-9a-f]{10} \(remote only\)/)
  })
})
