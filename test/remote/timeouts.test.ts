/**
 * A remote that accepts the connection and never answers (issue 7, point 1):
 * a real TCP listener on a loopback port, used as git:// and http://. Every
 * network git call has a hard deadline (the whole git process group is
 * killed) and, over http(s) and ssh, an idle limit, so an online mutation or
 * a sync fails with exit 1 `remote_timeout` naming the remote and the time
 * it waited, and nothing is written locally.
 *
 * The tests configure a 2 s deadline; the default (30 s for a mutation) is
 * measured only with TASKS_SLOW_TESTS=1.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {networkLimits} from '../../src/refstore/remote'
import {cleanupAll, gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'
import {describeRun} from '../race/support'
import {type HungServer, figure, hungServer, shared, tipOf} from './support'

const ME = {TASKS_ACTOR: 'alice'}
const TRACKING = 'refs/tasks-remote/origin/main'

let server: HungServer

beforeAll(async () => {
  server = await hungServer()
})

afterAll(async () => {
  await server.close()
  cleanupAll()
})

/** A clone in online mode with one published task, its origin then pointed at `url`. */
async function cloneFacing(url: string): Promise<{clone: string; id: string}> {
  const {clones} = await shared(1)
  const clone = clones[0]!
  const id = (await runJson(clone, ['add', 'Timeout target'], {env: ME})).task.id as string
  gitSync(clone, ['remote', 'set-url', 'origin', url])
  return {clone, id}
}

/** Wait until the hung server has no open connection left (git and its helpers were killed), up to 5 s. */
async function connectionsClosed(): Promise<number> {
  for (let i = 0; i < 100 && server.open() > 0; i++) await new Promise((r) => setTimeout(r, 50))
  return server.open()
}

describe('a remote that accepts the connection and never answers', {timeout: 60_000}, () => {
  for (const scheme of ['git', 'http', 'ssh'] as const) {
    it(`${scheme}://: an online mutation fails with remote_timeout within the configured 2 s; nothing written locally`, async () => {
      const {clone, id} = await cloneFacing(`${scheme}://127.0.0.1:${server.port}/x`)
      gitSync(clone, ['config', 'tasks.remoteTimeout', '2s'])
      // ssh: a fresh HOME with no known_hosts and no keys; the hung server never sends a banner, so that is never reached.
      const local = tipOf(clone)
      const tracking = tipOf(clone, TRACKING)
      const objects = gitSync(clone, ['count-objects']).trim()
      const acceptedBefore = server.accepted()
      const started = Date.now()
      const r = await run(clone, ['comment', id, 'typed while the remote hangs', '--json'], {env: ME})
      const took = Date.now() - started
      const label = describeRun(`${scheme}:// comment`, r)
      figure(`${scheme}:// hung remote, tasks.remoteTimeout=2s, fails after`, `${took} ms`)
      expect(server.accepted(), 'the command did reach the hung server').toBeGreaterThan(acceptedBefore)
      expect(r.code, label).toBe(1)
      expect(r.stdout, label).toBe('')
      const err = jsonError(r)
      expect(err, label).toMatchObject({code: 'remote_timeout', exit: 1, remote: 'origin', operation: 'fetch', timeout_seconds: 2})
      expect(err.message, label).toContain('"origin"')
      expect(err.message, label).toContain('2s')
      expect(err.message, label).toContain('--offline')
      expect(took, label).toBeLessThan(8000)
      expect(tipOf(clone), 'local ref').toBe(local)
      expect(tipOf(clone, TRACKING), 'tracking ref').toBe(tracking)
      // The task's comment was never written (the op did not even run): same loose objects as before.
      expect(gitSync(clone, ['count-objects']).trim()).toBe(objects)
      // git and the helper it started (git-remote-http) were killed: no connection is left open.
      expect(await connectionsClosed()).toBe(0)
      // Offline still works.
      const off = await runJson(clone, ['comment', id, 'typed offline', '--offline'], {env: ME})
      expect(tipOf(clone)).toBe(off.commit)
    })
  }

  it('the fetch answers but the push hangs: remote_timeout for the push, which says it may have landed; the local ref stays', async () => {
    const {clones, bare} = await shared(1)
    const clone = clones[0]!
    const id = (await runJson(clone, ['add', 'Push timeout target'], {env: ME})).task.id as string
    gitSync(clone, ['remote', 'set-url', '--push', 'origin', `git://127.0.0.1:${server.port}/x`])
    const local = tipOf(clone)
    const r = await run(clone, ['comment', id, 'pushed into the void', '--json'], {env: {...ME, TASKS_REMOTE_TIMEOUT: '2s'}})
    const label = describeRun('push to a hung remote', r)
    expect(r.code, label).toBe(1)
    const err = jsonError(r)
    expect(err, label).toMatchObject({code: 'remote_timeout', remote: 'origin', operation: 'push', timeout_seconds: 2})
    expect(err.message, label).toMatch(/may or may not have reached/)
    expect(tipOf(clone)).toBe(local)
    expect(tipOf(bare)).toBe(local)
    expect(await connectionsClosed()).toBe(0)
  })

  it('TASKS_REMOTE_TIMEOUT overrides git config; `tasks sync` is bounded too', async () => {
    const {clone} = await cloneFacing(`git://127.0.0.1:${server.port}/x`)
    gitSync(clone, ['config', 'tasks.remoteTimeout', '10m'])
    const local = tipOf(clone)
    const started = Date.now()
    const r = await run(clone, ['sync', '--json'], {env: {...ME, TASKS_REMOTE_TIMEOUT: '1500ms'}})
    const took = Date.now() - started
    const label = describeRun('sync against a hung git:// remote', r)
    expect(r.code, label).toBe(1)
    expect(jsonError(r), label).toMatchObject({code: 'remote_timeout', remote: 'origin', timeout_seconds: 1.5})
    expect(jsonError(r).message, label).toContain('TASKS_REMOTE_TIMEOUT')
    expect(took, label).toBeLessThan(7000)
    expect(tipOf(clone)).toBe(local)
    expect(await connectionsClosed()).toBe(0)
  })

  it('a setting that is not a duration is a usage error (exit 2 bad_remote_timeout), before anything is sent', async () => {
    const {clone, id} = await cloneFacing(`git://127.0.0.1:${server.port}/x`)
    const acceptedBefore = server.accepted()
    const r = await run(clone, ['comment', id, 'x', '--json'], {env: {...ME, TASKS_REMOTE_TIMEOUT: 'soon'}})
    expect(r.code, describeRun('bad timeout', r)).toBe(2)
    expect(jsonError(r)).toMatchObject({code: 'bad_remote_timeout', exit: 2})
    expect(server.accepted()).toBe(acceptedBefore)
  })

  it.runIf(process.env.TASKS_SLOW_TESTS === '1')(
    'with the default deadline (30 s for a mutation) a hung git:// remote fails in about 30 s',
    async () => {
      const {clone, id} = await cloneFacing(`git://127.0.0.1:${server.port}/x`)
      const started = Date.now()
      const r = await run(clone, ['comment', id, 'x', '--json'], {env: ME})
      const took = Date.now() - started
      figure('git:// hung remote, default timeout, fails after', `${took} ms`)
      expect(jsonError(r)).toMatchObject({code: 'remote_timeout', timeout_seconds: 30})
      expect(took).toBeGreaterThanOrEqual(30_000)
      expect(took).toBeLessThan(40_000)
    },
    60_000,
  )

  it('ssh options are added only when the user has no ssh command of their own', async () => {
    const repo = makeRepo()
    const saved = {cmd: process.env.GIT_SSH_COMMAND, ssh: process.env.GIT_SSH, t: process.env.TASKS_REMOTE_TIMEOUT}
    delete process.env.GIT_SSH_COMMAND
    delete process.env.GIT_SSH
    delete process.env.TASKS_REMOTE_TIMEOUT
    try {
      const plain = await networkLimits(repo, 30_000)
      expect(plain.deadlineMs).toBe(30_000)
      expect(plain.env.GIT_SSH_COMMAND).toBe('ssh -o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=3')
      expect(plain.config).toEqual(['-c', 'http.lowSpeedLimit=1', '-c', 'http.lowSpeedTime=15'])
      gitSync(repo, ['config', 'core.sshCommand', 'ssh -i my-key'])
      expect((await networkLimits(repo, 30_000)).env).toEqual({})
      gitSync(repo, ['config', '--unset', 'core.sshCommand'])
      process.env.GIT_SSH = '/usr/bin/my-ssh'
      expect((await networkLimits(repo, 30_000)).env).toEqual({})
      delete process.env.GIT_SSH
      process.env.GIT_SSH_COMMAND = 'ssh -v'
      expect((await networkLimits(repo, 30_000)).env).toEqual({})
      delete process.env.GIT_SSH_COMMAND
      gitSync(repo, ['config', 'tasks.remoteTimeout', '0'])
      const off = await networkLimits(repo, 30_000)
      expect(off.deadlineMs).toBe(0)
      expect(off.config).toContain('http.lowSpeedTime=15')
    } finally {
      for (const [k, v] of [['GIT_SSH_COMMAND', saved.cmd], ['GIT_SSH', saved.ssh], ['TASKS_REMOTE_TIMEOUT', saved.t]] as const) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    }
  })
})
