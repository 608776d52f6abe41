/**
 * The online retry loop has no fixed try count (many agents may lose many
 * races in a row while the list moves), so a remote that is genuinely stuck
 * must still end it: here the shared ref's lock file on the bare remote is
 * left behind, every push is refused as a lost race, and the remote never
 * moves. The command ends with exit 4 `cas_exhausted` saying so, well within
 * a minute, with nothing published or moved.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, run, runJson} from '../helpers/cli'
import {describeRun} from './support'
import {figure, shared, tipOf} from '../remote/support'

afterAll(() => cleanupAll())

describe('a stuck remote', () => {
  it('a push refused again and again while the remote does not move ends with cas_exhausted, in well under a minute', async () => {
    const {bare, clones} = await shared(1)
    const clone = clones[0]!
    const id = (await runJson(clone, ['add', 'stuck', '--as', 'lead'])).task.id
    const before = tipOf(bare)
    writeFileSync(join(bare, 'refs', 'tasks', 'main.lock'), `${before}\n`)
    const t0 = Date.now()
    const r = await run(clone, ['claim', id, '--json', '--as', 'bob'])
    const seconds = (Date.now() - t0) / 1000
    figure('online claim against a remote whose ref stays locked, until exit 4', `${seconds.toFixed(1)} s`)
    const label = describeRun('claim', r)
    expect(r.code, label).toBe(4)
    const err = jsonError(r)
    expect(err.code, label).toBe('cas_exhausted')
    expect(err.message, label).toMatch(/did not change/)
    expect(seconds).toBeLessThan(60)
    expect(tipOf(bare)).toBe(before)
    // The change it left pending on the way (the list's ref was contended) was taken back.
    expect(gitSync(bare, ['for-each-ref', 'refs/tasks-claims/'])).toBe('')
  }, 120_000)
})
