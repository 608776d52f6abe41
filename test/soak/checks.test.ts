/**
 * The soak's checks can fail: a soak that never reports anything proves
 * nothing unless each check is known to fire. Each damage below is made by
 * hand on a healthy list (a lost write, a ref to a blob, a commit with a
 * missing tree, a cache that no longer matches its commit) and the check
 * that should catch it must report it.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'
import {cleanupAll, gitSync, runJson} from '../helpers/cli'
import {initRepo} from '../race/support'
import {Tally, checkRepo, fsck, verifyWrites} from './support'

afterAll(() => cleanupAll())

const env = {TASKS_ACTOR: 'solo'}

it('the soak checks report lost writes, bad refs, fsck errors and a cache that differs from a rebuild', async () => {
  const repo = await initRepo()
  const added = await runJson(repo, ['add', 'soak s1', '--key', 'key-s1'], {env})
  const id = added.task.id as string
  await runJson(repo, ['comment', id, 'soak comment s2.'], {env})

  const healthy = new Tally('healthy')
  const listing = (await checkRepo(repo, 'healthy', healthy, env, true))!
  verifyWrites(
    repo,
    'healthy',
    listing,
    [
      {kind: 'add', id, actor: 'solo', token: 'soak s1', where: 's1'},
      {kind: 'comment', id, actor: 'solo', token: 'soak comment s2.', where: 's2'},
    ],
    new Set(['soak s1']),
    healthy,
  )
  expect(healthy.failures).toEqual([])

  // Writes the list does not hold, and a task nobody added.
  const lost = new Tally('lost')
  verifyWrites(
    repo,
    'lost',
    listing,
    [
      {kind: 'comment', id, actor: 'solo', token: 'soak comment s3.', where: 's3'},
      {kind: 'done', id, actor: 'solo', token: '', where: 's4'},
      {kind: 'claim', id, actor: 'solo', token: '', where: 's5'},
      {kind: 'edit', id, actor: 'solo', token: 'es6', where: 's6'},
      {kind: 'add', id: 'tsk-0000000000', actor: 'solo', token: 'soak s7', where: 's7'},
    ],
    new Set(),
    lost,
  )
  expect(lost.failures.map((f) => f.replace(/^lost: /, '').split(' lost:')[0])).toEqual([
    'acknowledged comment by solo in s3',
    'acknowledged done by solo in s4',
    'acknowledged claim by solo in s5',
    'acknowledged edit by solo in s6',
    'acknowledged add by solo in s7',
    `task ${id} "soak s1" was never added`,
  ])

  // A cache that lists something else than its commit holds (same length, so it still parses).
  const cache = join(repo, '.git', 'git-tasks', 'index-main')
  await runJson(repo, ['list', '--all'], {env})
  // Bytes, not text: the file has a binary section (cache format 9) that a round trip through UTF-8 would break.
  const bytes = readFileSync(cache)
  const at = bytes.indexOf('soak s1')
  expect(at).toBeGreaterThan(0)
  bytes.write('soak s9', at, 'latin1')
  writeFileSync(cache, bytes)
  const stale = new Tally('stale cache')
  await checkRepo(repo, 'stale cache', stale, env, true)
  expect(stale.failures.join('\n')).toMatch(/the warm cache lists differently from a cold rebuild/)

  // A tasks ref that names a blob, and one that names a commit whose tree is missing.
  const blob = gitSync(repo, ['hash-object', '-w', '--stdin'], 'not a commit\n').trim()
  gitSync(repo, ['update-ref', 'refs/tasks/blob', blob])
  const broken = gitSync(repo, ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], `tree ${'1'.repeat(40)}\nauthor A <a@b> 0 +0000\ncommitter A <a@b> 0 +0000\n\nbroken\n`).trim()
  gitSync(repo, ['update-ref', 'refs/tasks/broken', broken])
  const bad = new Tally('bad refs')
  await checkRepo(repo, 'bad refs', bad, env, true)
  expect(bad.failures.join('\n')).toMatch(/ref is not a commit: refs\/tasks\/blob/)
  expect(bad.failures.join('\n')).toMatch(/git fsck --strict \(exit [1-9]/)
  const fsckOnly = new Tally('fsck')
  fsck(repo, 'fsck', fsckOnly)
  expect(fsckOnly.failures).toHaveLength(1)
})
