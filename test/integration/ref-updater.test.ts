/**
 * StdinRefUpdater: the kept `git update-ref --stdin` of long-lived servers
 * answers like `git update-ref`: a lost race is incorrect_old_value (and
 * the next update works, in a new process), a lock left behind is
 * ref_locked, and creating a ref that exists is a lost race.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {StdinRefUpdater} from '../../src/refstore/ref-transaction'
import {TEST_ENV, cleanupAll, gitSync, makeRepo} from '../helpers/cli'

afterAll(() => cleanupAll())

const ZERO = '0'.repeat(40)

describe('StdinRefUpdater', () => {
  it('moves a ref by compare-and-swap, reports lost races and held locks, and recovers', async () => {
    for (const [k, v] of Object.entries(TEST_ENV)) process.env[k] = v
    const repo = makeRepo()
    const tree = gitSync(repo, ['mktree'], '').trim()
    const c1 = gitSync(repo, ['commit-tree', tree, '-m', 'one']).trim()
    const c2 = gitSync(repo, ['commit-tree', tree, '-p', c1, '-m', 'two']).trim()
    const c3 = gitSync(repo, ['commit-tree', tree, '-p', c2, '-m', 'three']).trim()
    const read = async (ref: string) => {
      try {
        return gitSync(repo, ['rev-parse', '--verify', '-q', ref]).trim()
      } catch {
        return null
      }
    }
    const u = new StdinRefUpdater(repo, read)
    const ref = 'refs/tasks/main'
    try {
      expect(await u.update({ref, newOid: c1, oldOid: ZERO, message: 'm'})).toEqual({ok: true})
      expect(await u.update({ref, newOid: c2, oldOid: c1, message: 'm'})).toEqual({ok: true})
      expect(await read(ref)).toBe(c2)
      // Someone else moved it: a lost race, nothing written.
      gitSync(repo, ['update-ref', ref, c3, c2])
      const lost = await u.update({ref, newOid: c1, oldOid: c2, message: 'm'})
      expect(lost.ok).toBe(false)
      expect(await read(ref)).toBe(c3)
      // Creating what exists is a lost race too.
      expect((await u.update({ref, newOid: c1, oldOid: ZERO, message: 'm'})).ok).toBe(false)
      // And the next update goes through (a new process).
      expect(await u.update({ref, newOid: c2, oldOid: c3, message: 'm'})).toEqual({ok: true})
      // A lock left by a dead process: ref_locked, at once.
      const lock = join(repo, '.git', 'refs', 'tasks', 'main.lock')
      writeFileSync(lock, '')
      const old = new Date(Date.now() - 60_000)
      require('node:fs').utimesSync(lock, old, old)
      await expect(u.update({ref, newOid: c3, oldOid: c2, message: 'm'})).rejects.toMatchObject({code: 'ref_locked'})
      require('node:fs').rmSync(lock)
      expect(await u.update({ref, newOid: c3, oldOid: c2, message: 'm'})).toEqual({ok: true})
      // Several updates sent at once are answered in order.
      const many = await Promise.all([u.update({ref, newOid: c1, oldOid: c3, message: 'm'}), u.update({ref, newOid: c2, oldOid: c1, message: 'm'})])
      expect(many).toEqual([{ok: true}, {ok: true}])
      expect(await read(ref)).toBe(c2)
    } finally {
      u.close()
    }
  })
})
