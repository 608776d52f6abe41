/**
 * bin/early-git.js starts `git cat-file --batch` and `git update-ref
 * --stdin` before the bundles load; the engine adopts them. Whatever
 * happens to them, a command's output, exit code and ref update are those
 * of a command that started its own processes (TASKS_NO_EARLY_GIT=1).
 */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {gitSync, makeRepo, run, tempDir} from '../helpers/cli'

const env = {TASKS_ACTOR: 'alice', TASKS_NOW: '2026-03-01T10:00:00.000Z'}
const plain = {...env, TASKS_NO_EARLY_GIT: '1', TASKS_NO_FAST_EXIT: '1'}

async function listWith(n: number): Promise<{dir: string; ids: string[]}> {
  const dir = makeRepo()
  expect((await run(dir, ['init'], {env})).code).toBe(0)
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const r = await run(dir, ['add', `item ${i}`, '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    ids.push(JSON.parse(r.stdout).task.id)
  }
  return {dir, ids}
}

describe('early git processes', () => {
  it('give the same output, exit codes and refs as processes started by the engine', async () => {
    const {dir, ids} = await listWith(4)
    mkdirSync(join(dir, 'sub', 'deeper'), {recursive: true})
    for (const cwd of [dir, join(dir, 'sub', 'deeper')]) {
      for (const args of [['show', ids[0]!, '--json'], ['list', '--json'], ['show', 'tsk-zzzzzz'], ['claim', 'tsk-zzzzzz', '--json'], ['show', ids[1]!]]) {
        const early = await run(cwd, args, {env})
        const own = await run(cwd, args, {env: plain})
        expect(early, args.join(' ')).toEqual(own)
      }
    }
    // A claim through the early update-ref moves the ref exactly once, like one through its own process.
    const before = gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()
    const claimed = await run(dir, ['claim', ids[2]!, '--json'], {env})
    expect(claimed.code, claimed.stderr).toBe(0)
    expect(gitSync(dir, ['rev-parse', 'refs/tasks/main^']).trim()).toBe(before)
    expect(gitSync(dir, ['log', '-1', '--format=%s', 'refs/tasks/main'])).toMatch(/^claim /)
    // A second claimer of the same item loses, as before.
    const again = await run(dir, ['claim', ids[2]!, '--json'], {env: {...env, TASKS_ACTOR: 'bob'}})
    expect(again.code).toBe(4)
  }, 60_000)

  it('leave the swap to its own process when git keeps a reflog for the list (the message names the change)', async () => {
    const {dir, ids} = await listWith(2)
    gitSync(dir, ['config', 'core.logAllRefUpdates', 'always'])
    expect((await run(dir, ['claim', ids[0]!], {env})).code).toBe(0)
    expect((await run(dir, ['done', ids[0]!], {env})).code).toBe(0)
    const reflog = gitSync(dir, ['reflog', 'show', '--format=%gs', 'refs/tasks/main']).trim().split('\n')
    expect(reflog.slice(0, 2)).toEqual([`done ${ids[0]}`, `claim ${ids[0]}`])
  }, 60_000)

  it('outside a repository: the same error as without them, and nothing left running keeps the command alive', async () => {
    const dir = tempDir('not-a-repo-')
    for (const args of [['show', 'tsk-abcd', '--json'], ['claim', 'tsk-abcd', '--json'], ['next', '--json']]) {
      const early = await run(dir, args, {env})
      expect(early.code).toBe(1)
      expect(early).toEqual(await run(dir, args, {env: plain}))
    }
  }, 60_000)
})
