/**
 * `tasks config get|set|unset|list`: the list's config.yaml changed as a
 * commit like any other mutation, checked against the reader's bounds,
 * limited to admins when admins are listed, and published online.
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson, tempDir, type RunOptions} from '../helpers/cli'
import {CONFIG_KEYS, parseConfigValue} from '../../src/core/ops/config'
import {CONFIG_BOUNDS} from '../../src/core/task'

afterAll(() => cleanupAll())

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'tasks.js'))) throw new Error('dist/tasks.js is missing: run `npm run build` first')
})

const as = (actor: string, now = '2030-01-01T00:00:00.000Z'): RunOptions => ({env: {TASKS_ACTOR: actor, TASKS_NOW: now}})

async function fails(repo: string, args: string[], exit: number, code: string, options: RunOptions): Promise<any> {
  const before = gitSync(repo, ['rev-parse', 'refs/tasks/main'])
  const r = await run(repo, [...args, '--json'], options)
  expect(r.code, r.stderr).toBe(exit)
  expect(jsonError(r).code).toBe(code)
  expect(gitSync(repo, ['rev-parse', 'refs/tasks/main'])).toBe(before)
  return jsonError(r)
}

describe('config', () => {
  it('set takes durations and sizes, records one commit, and the list then uses the value; unset goes back to the default', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const listed = await runJson(repo, ['config', 'list'], as('alice'))
    expect(listed.settings.map((s: any) => s.key)).toEqual(CONFIG_KEYS)
    expect(listed.settings.every((s: any) => s.default)).toBe(true)

    const set = await runJson(repo, ['config', 'set', 'lease_seconds', '2h'], as('alice'))
    expect(set).toMatchObject({key: 'lease_seconds', value: 7200, previous: 3600, default: false, default_value: 3600})
    expect(gitSync(repo, ['log', '-1', '--format=%B', 'refs/tasks/main'])).toMatch(/^config: set lease_seconds=7200\n\nTasks-Op: config\nActor: alice\nTasks-Config: lease_seconds=7200\n/)
    expect(gitSync(repo, ['show', 'refs/tasks/main:config.yaml'])).toContain('lease_seconds: 7200')
    const id = (await runJson(repo, ['add', 'Work'], as('alice'))).task.id
    const claim = await runJson(repo, ['claim', id], as('alice'))
    expect(claim.task.lease_expires).toBe('2030-01-01T02:00:00.000Z')

    await runJson(repo, ['config', 'set', 'max_title_bytes', '1k'], as('alice'))
    expect((await runJson(repo, ['config', 'get', 'max_title_bytes'], as('alice'))).value).toBe(1024)
    const human = await run(repo, ['config', 'list'], as('alice'))
    expect(human.stdout).toMatch(/lease_seconds +7200\n/)
    expect(human.stdout).toMatch(/clock_skew_seconds +30 +\(default\)/)
    expect((await run(repo, ['config', 'get', 'lease_seconds'], as('alice'))).stdout).toBe('7200\n')

    const same = await runJson(repo, ['config', 'set', 'lease_seconds', '7200'], as('alice'))
    expect(same.commit).toBeNull()
    const unset = await runJson(repo, ['config', 'unset', 'lease_seconds'], as('alice'))
    expect(unset).toMatchObject({value: 3600, previous: 7200, default: true})
    expect(typeof unset.commit).toBe('string')
    const log = await runJson(repo, ['log', '--op', 'config'], as('alice'))
    expect(log.events.map((e: any) => e.details.config)).toEqual([['lease_seconds (default 3600)'], ['max_title_bytes=1024'], ['lease_seconds=7200']])
  })

  it('values at the bounds are accepted and read back; beyond them, or malformed, refused with nothing written', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    for (const [key, bounds] of Object.entries(CONFIG_BOUNDS).filter(([, b]) => typeof b.minimum === 'number')) {
      for (const v of [bounds.minimum, bounds.maximum]) {
        const r = await runJson(repo, ['config', 'set', key, String(v)], as('alice'))
        expect(r.value).toBe(v)
        // What set wrote, every reader reads: config get, and a mutation that loads the config.
        expect((await runJson(repo, ['config', 'get', key], as('alice'))).value).toBe(v)
      }
      await fails(repo, ['config', 'set', key, String(bounds.maximum + 1)], 5, 'bad_config_value', as('alice'))
      if (bounds.minimum > 0) await fails(repo, ['config', 'set', key, String(bounds.minimum - 1)], 5, 'bad_config_value', as('alice'))
    }
    const doctor = await runJson(repo, ['doctor'], as('alice'))
    expect(doctor.broken).toEqual([])
    await fails(repo, ['config', 'set', 'lease_seconds', 'soon'], 5, 'bad_config_value', as('alice'))
    await fails(repo, ['config', 'set', 'max_body_bytes', '-1'], 5, 'bad_config_value', as('alice'))
    await fails(repo, ['config', 'set', 'nope', '1'], 2, 'unknown_config_key', as('alice'))
    await fails(repo, ['config', 'set', 'lease_seconds'], 2, 'usage', as('alice'))
    await fails(repo, ['config', 'set', 'lease_seconds', '--add', 'x'], 2, 'usage', as('alice'))
    await fails(repo, ['config', 'set', 'admins', 'bad<actor>'], 2, 'bad_actor', as('alice'))
    expect(parseConfigValue('lease_seconds', '1h30m')).toBe(5400)
    expect(parseConfigValue('clock_skew_seconds', '0')).toBe(0)
    expect(parseConfigValue('max_body_bytes', '1m')).toBe(1_048_576)
    expect(parseConfigValue('admins', ' alice, bob,alice ')).toEqual(['alice', 'bob'])
  })

  it('require_signed (a boolean) and allowed_signers (a path) for the server guard: set, read back, refused when malformed, unset', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const file = () => gitSync(repo, ['show', 'refs/tasks/main:config.yaml'])
    expect(file()).not.toContain('require_signed')
    expect((await runJson(repo, ['config', 'get', 'require_signed'], as('alice'))).value).toBe(false)
    expect((await runJson(repo, ['config', 'set', 'require_signed', 'yes'], as('alice'))).value).toBe(true)
    expect((await runJson(repo, ['config', 'get', 'require_signed'], as('alice'))).value).toBe(true)
    expect(file()).toContain('require_signed: true')
    await fails(repo, ['config', 'set', 'require_signed', 'maybe'], 5, 'bad_config_value', as('alice'))
    const set = await runJson(repo, ['config', 'set', 'allowed_signers', 'allowed_signers'], as('alice'))
    expect(set).toMatchObject({value: 'allowed_signers', previous: '', default: false})
    expect(file()).toContain('allowed_signers: "allowed_signers"')
    await fails(repo, ['config', 'set', 'allowed_signers', 'a\nb'], 5, 'bad_config_value', as('alice'))
    await fails(repo, ['config', 'set', 'allowed_signers', 'x'.repeat(4097)], 5, 'bad_config_value', as('alice'))
    const listed = await runJson(repo, ['config', 'list'], as('alice'))
    expect(listed.settings.find((s: any) => s.key === 'allowed_signers').value).toBe('allowed_signers')
    expect(listed.other).toEqual({})
    expect((await runJson(repo, ['config', 'unset', 'require_signed'], as('alice'))).value).toBe(false)
    expect((await runJson(repo, ['config', 'unset', 'allowed_signers'], as('alice'))).value).toBe('')
    expect(file()).not.toMatch(/require_signed|allowed_signers/)
    expect(parseConfigValue('require_signed', 'OFF')).toBe(false)
    expect((await runJson(repo, ['doctor'], as('alice'))).broken).toEqual([])
  })

  it('admins: a comma list, --add and --remove; once listed, only admins may change settings', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    expect((await runJson(repo, ['config', 'set', 'admins', 'alice,bob'], as('alice'))).value).toEqual(['alice', 'bob'])
    expect((await runJson(repo, ['config', 'set', 'admins', '--add', 'carol,alice'], as('bob'))).value).toEqual(['alice', 'bob', 'carol'])
    const refused = await fails(repo, ['config', 'set', 'lease_seconds', '2h'], 6, 'not_admin', as('dave'))
    expect(refused.admins).toEqual(['alice', 'bob', 'carol'])
    await fails(repo, ['config', 'set', 'admins', '--add', 'dave'], 6, 'not_admin', as('dave'))
    await fails(repo, ['config', 'unset', 'admins'], 6, 'not_admin', as('dave'))
    expect((await runJson(repo, ['config', 'get', 'admins'], as('dave'))).value).toEqual(['alice', 'bob', 'carol'])
    expect((await runJson(repo, ['config', 'set', 'admins', '--remove', 'bob'], as('carol'))).value).toEqual(['alice', 'carol'])
    expect((await runJson(repo, ['config', 'unset', 'admins'], as('alice'))).value).toEqual([])
    // Nobody listed: anyone may change settings again.
    expect((await runJson(repo, ['config', 'set', 'lease_seconds', '45m'], as('dave'))).value).toBe(2700)
  })

  it('online: set fetches, runs on the remote list and pushes; other clones see the value after sync', async () => {
    const bare = makeBareRepo()
    const clone = (): string => {
      const dir = tempDir('clone-')
      gitSync(dir, ['clone', '-q', bare, '.'])
      return dir
    }
    const c1 = clone()
    await runJson(c1, ['init', '--remote', 'origin'], as('alice'))
    const c2 = clone()
    await runJson(c2, ['init', '--remote', 'origin'], as('bob'))
    const r = await runJson(c1, ['config', 'set', 'clock_skew_seconds', '2m'], as('alice'))
    expect(gitSync(bare, ['rev-parse', 'refs/tasks/main']).trim()).toBe(r.commit)
    await runJson(c2, ['sync'], as('bob'))
    expect((await runJson(c2, ['config', 'get', 'clock_skew_seconds'], as('bob'))).value).toBe(120)
  })
})

describe('config read back from an older cache', () => {
  it('a setting the cache file does not hold yet (written by an older build) reads as its default', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], as('alice'))
    await runJson(repo, ['add', 'One'], as('alice'))
    await runJson(repo, ['list'], as('alice'))
    // The cache file's and the delta file's second line is a header with the list's config: drop two settings from
    // both, as files written before the settings existed lack them.
    const {existsSync: exists, readFileSync, writeFileSync} = await import('node:fs')
    let edited = 0
    for (const name of ['index-main', 'delta-main']) {
      const file = join(repo, '.git', 'git-tasks', name)
      if (!exists(file)) continue
      const text = readFileSync(file)
      const nl1 = text.indexOf(10)
      const nl2 = text.indexOf(10, nl1 + 1)
      const header = JSON.parse(text.subarray(nl1 + 1, nl2).toString('utf8'))
      delete header.config.max_file_bytes
      delete header.config.allowed_paths
      writeFileSync(file, Buffer.concat([text.subarray(0, nl1 + 1), Buffer.from(JSON.stringify(header)), text.subarray(nl2)]))
      edited++
    }
    expect(edited).toBeGreaterThan(0)
    expect((await runJson(repo, ['config', 'get', 'max_file_bytes'], as('alice'))).value).toBe(2 * 1024 * 1024)
    expect((await runJson(repo, ['config', 'get', 'allowed_paths'], as('alice'))).value).toEqual([])
  })
})
