/**
 * Faults of the shared remote, with real git:
 *
 * - the remote is unreachable (its directory moved away, its URL pointing
 *   nowhere, or only pushes failing after a good fetch): an online mutation
 *   fails with exit 1, code remote_unreachable and a message that says what
 *   git said, and the local ref does not move; the same mutation with
 *   --offline (or TASKS_OFFLINE=1) commits locally, and `tasks sync`
 *   publishes it once the remote is back;
 * - a remote that rejects every push (a pre-receive hook that always exits
 *   1): the retry loop is bounded, so the command ends with exit 4
 *   (cas_exhausted for a mutation, sync_exhausted for sync) in seconds, not
 *   a hang, and publishes nothing.
 */
import {chmodSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, run, runJson} from '../helpers/cli'
import {describeRun, history, opCommits, trailer} from '../race/support'
import {figure, shared, tipOf} from './support'

const ME = {env: {TASKS_ACTOR: 'alice'}}

afterAll(() => cleanupAll())

/** A clone in online mode with one task, published. */
async function online(): Promise<{bare: string; clone: string; id: string}> {
  const {bare, clones} = await shared(1)
  const clone = clones[0]!
  const id = (await runJson(clone, ['add', 'Fault target'], ME)).task.id as string
  expect(tipOf(bare)).toBe(tipOf(clone))
  return {bare, clone, id}
}

/** Online `comment` fails remote_unreachable, nothing moves; offline it commits; sync publishes once the remote is back. */
async function unreachableThenBack(break_: () => void, repair: () => void, clone: string, bare: string, id: string): Promise<void> {
  const localBefore = tipOf(clone)
  const trackingBefore = tipOf(clone, 'refs/tasks-remote/origin/main')
  break_()
  const r = await run(clone, ['comment', id, 'typed while the remote was away', '--json'], ME)
  const label = describeRun('online comment, remote away', r)
  expect(r.code, label).toBe(1)
  expect(r.stdout, label).toBe('')
  const err = jsonError(r)
  expect(err.code, label).toBe('remote_unreachable')
  expect(err.exit, label).toBe(1)
  expect(err.remote, label).toBe('origin')
  // Names the remote and how to go on (what git said is checked in its own test below).
  expect(err.message, label).toContain('origin')
  expect(err.message, label).toContain('--offline')
  expect(err.detail, label).toMatch(/does not appear to be a git repository/)
  expect(tipOf(clone), 'local ref moved after a failed online mutation').toBe(localBefore)
  expect(tipOf(clone, 'refs/tasks-remote/origin/main')).toBe(trackingBefore)

  // Offline: commits locally.
  const off = await runJson(clone, ['comment', id, 'typed offline while the remote was away', '--offline'], ME)
  expect(off.commit).toMatch(/^[0-9a-f]{40}$/)
  expect(tipOf(clone)).toBe(off.commit)
  const env = await runJson(clone, ['comment', id, 'typed with TASKS_OFFLINE=1'], {env: {...ME.env, TASKS_OFFLINE: '1'}})
  expect(tipOf(clone)).toBe(env.commit)

  // Sync cannot publish while the remote is away: exit 1, remote_unreachable, nothing lost.
  const s = await run(clone, ['sync', '--json'], ME)
  expect(s.code, describeRun('sync, remote away', s)).toBe(1)
  expect(jsonError(s).code).toBe('remote_unreachable')
  expect(tipOf(clone)).toBe(env.commit)

  repair()
  expect(tipOf(bare)).toBe(localBefore)
  const back = await runJson(clone, ['sync'], ME)
  expect(back.action).toBe('pushed')
  expect(tipOf(bare)).toBe(env.commit)
  const comments = (await runJson(clone, ['show', id], ME)).comments.map((c: any) => c.body)
  expect(comments).toEqual(['typed offline while the remote was away', 'typed with TASKS_OFFLINE=1'])
  expect(comments).not.toContain('typed while the remote was away')
}

describe('the remote is unreachable', {timeout: 60_000}, () => {
  it('the remote directory is moved away, then back', async () => {
    const {bare, clone, id} = await online()
    await unreachableThenBack(
      () => renameSync(bare, `${bare}.away`),
      () => renameSync(`${bare}.away`, bare),
      clone,
      bare,
      id,
    )
  })

  it('the remote URL points to a missing path, then is set right', async () => {
    const {bare, clone, id} = await online()
    await unreachableThenBack(
      () => gitSync(clone, ['remote', 'set-url', 'origin', join(bare, '..', 'no-such-remote.git')]),
      () => gitSync(clone, ['remote', 'set-url', 'origin', bare]),
      clone,
      bare,
      id,
    )
  })

  it('fetch works but the push cannot reach the remote (push URL missing): mid-operation', async () => {
    const {bare, clone, id} = await online()
    await unreachableThenBack(
      () => gitSync(clone, ['config', 'remote.origin.pushurl', join(bare, '..', 'no-such-push-remote.git')]),
      () => gitSync(clone, ['config', '--unset', 'remote.origin.pushurl']),
      clone,
      bare,
      id,
    )
  })

  it('the remote_unreachable message says what git said (not just its last line of advice)', async () => {
    const {bare, clone, id} = await online()
    const messages: string[] = []
    const attempt = async (break_: () => void, repair: () => void) => {
      break_()
      const r = await run(clone, ['comment', id, 'x', '--json'], ME)
      repair()
      expect(r.code, describeRun('comment', r)).toBe(1)
      messages.push(jsonError(r).message)
    }
    await attempt(() => renameSync(bare, `${bare}.away`), () => renameSync(`${bare}.away`, bare))
    await attempt(
      () => gitSync(clone, ['config', 'remote.origin.pushurl', join(bare, '..', 'no-such-push-remote.git')]),
      () => gitSync(clone, ['config', '--unset', 'remote.origin.pushurl']),
    )
    for (const m of messages) {
      // git's reason ("'<path>' does not appear to be a git repository"), not "and the repository exists."
      expect(m).toMatch(/does not appear to be a git repository/)
      expect(m).not.toMatch(/\.\./)
    }
  })

  it('a claim with the remote away fails and claims nothing anywhere', async () => {
    const {bare, clone, id} = await online()
    const before = tipOf(clone)
    renameSync(bare, `${bare}.away`)
    const r = await run(clone, ['claim', id, '--json'], ME)
    expect(r.code, describeRun('claim', r)).toBe(1)
    expect(jsonError(r).code).toBe('remote_unreachable')
    expect(tipOf(clone)).toBe(before)
    renameSync(`${bare}.away`, bare)
    expect((await runJson(clone, ['show', id], ME)).task).toMatchObject({status: 'todo', owner: null, epoch: 0})
    expect(tipOf(bare)).toBe(before)
  })
})

describe('a remote that rejects every push', {timeout: 120_000}, () => {
  function rejectAll(bare: string): void {
    const hook = join(bare, 'hooks', 'pre-receive')
    writeFileSync(hook, '#!/bin/sh\necho "rejected by test hook" >&2\nexit 1\n')
    chmodSync(hook, 0o755)
  }

  it('an online mutation ends with exit 4 (push_declined) after the retry bound, well within 60 s; nothing published or moved', async () => {
    const {bare, clone, id} = await online()
    rejectAll(bare)
    const remoteBefore = tipOf(bare)
    const localBefore = tipOf(clone)
    const t0 = Date.now()
    const r = await run(clone, ['comment', id, 'never accepted', '--json'], ME)
    const seconds = (Date.now() - t0) / 1000
    figure('online mutation against a remote rejecting every push, until exit 4', `${seconds.toFixed(1)} s`)
    const label = describeRun('comment', r)
    expect(r.code, label).toBe(4)
    const err = jsonError(r)
    expect(['cas_exhausted', 'sync_exhausted', 'push_declined'], label).toContain(err.code)
    expect(err.exit).toBe(4)
    expect(typeof err.tries).toBe('number')
    expect(seconds).toBeLessThan(60)
    expect(tipOf(bare)).toBe(remoteBefore)
    expect(tipOf(clone)).toBe(localBefore)
  })

  it('sync of offline work ends with exit 4 (push_declined) well within 60 s; the local work is kept and published once the hook is gone', async () => {
    const {bare, clone, id} = await online()
    const off = await runJson(clone, ['comment', id, 'offline, to be published', '--offline'], ME)
    rejectAll(bare)
    const remoteBefore = tipOf(bare)
    const t0 = Date.now()
    const r = await run(clone, ['sync', '--json'], ME)
    const seconds = (Date.now() - t0) / 1000
    figure('sync against a remote rejecting every push, until exit 4', `${seconds.toFixed(1)} s`)
    const label = describeRun('sync', r)
    expect(r.code, label).toBe(4)
    expect(['sync_exhausted', 'cas_exhausted', 'push_declined'], label).toContain(jsonError(r).code)
    expect(seconds).toBeLessThan(60)
    expect(tipOf(bare)).toBe(remoteBefore)
    expect(tipOf(clone)).toBe(off.commit)

    rmSync(join(bare, 'hooks', 'pre-receive'))
    expect((await runJson(clone, ['sync'], ME)).action).toBe('pushed')
    const commented = opCommits(history(bare), 'comment', id)
    expect(commented).toHaveLength(1)
    expect(trailer(commented[0]!, 'Actor')).toBe('alice')
  })
})
