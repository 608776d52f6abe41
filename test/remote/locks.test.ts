/**
 * Ref lock files left behind by a killed git process (issue 7, point 2),
 * made by hand the way a dead `git update-ref` leaves them:
 *
 * - a held `refs/tasks/main.lock` is not a lost race: a mutation fails at
 *   once (old lock) or after ~2 s (fresh lock) with exit 1 `ref_locked`
 *   naming the file and its age, never 12–15 s of retries and cas_exhausted;
 * - `tasks doctor` reports locks on the list refs, the tracking refs and
 *   packed-refs.lock; `doctor --fix` removes those 10 minutes old or older
 *   and leaves younger ones;
 * - online, a push that succeeded while the local ref was locked is a
 *   success with a warning, and the next command brings the local ref up
 *   to date and says so;
 * - a lock on the tracking ref is `ref_locked`, not `remote_unreachable`.
 */
import {existsSync, mkdirSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, jsonError, run, runJson} from '../helpers/cli'
import {describeRun, initRepo} from '../race/support'
import {expectSchema, shared, tipOf} from './support'

const ME = {env: {TASKS_ACTOR: 'alice'}}
const TRACKING = 'refs/tasks-remote/origin/main'

afterAll(() => cleanupAll())

/** A lock file for `ref` as a killed git process leaves it, `ageS` seconds old. */
function lock(repo: string, ref: string, ageS: number): string {
  const path = join(repo, '.git', `${ref}.lock`)
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, '')
  const t = Date.now() / 1000 - ageS
  utimesSync(path, t, t)
  return path
}

function warnings(stderr: string): Array<{kind: string; message: string}> {
  return stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((o) => o.warning)
    .map((o) => o.warning)
}

describe('a held lock on the list ref', {timeout: 60_000}, () => {
  it('an old lock: the mutation fails at once with ref_locked (path, age, how to fix); nothing moves', async () => {
    const repo = await initRepo()
    const before = tipOf(repo)
    const path = lock(repo, 'refs/tasks/main', 3600)
    const started = Date.now()
    const r = await run(repo, ['add', 'blocked by a lock', '--json'], ME)
    const took = Date.now() - started
    const label = describeRun('add with a stale lock', r)
    expect(r.code, label).toBe(1)
    expect(r.stdout, label).toBe('')
    const err = jsonError(r)
    expect(err, label).toMatchObject({code: 'ref_locked', exit: 1, ref: 'refs/tasks/main', path})
    expect(err.age_seconds as number, label).toBeGreaterThanOrEqual(3599)
    expect(err.message, label).toContain(path)
    expect(err.message, label).toContain('tasks doctor --fix')
    expect(took, label).toBeLessThan(3000)
    expect(tipOf(repo)).toBe(before)
    expect(existsSync(path), 'the lock is not removed behind the user\'s back').toBe(true)
  })

  it('a fresh lock that stays: ref_locked after about 2 s, not retries until cas_exhausted', async () => {
    const repo = await initRepo()
    const before = tipOf(repo)
    lock(repo, 'refs/tasks/main', 0)
    const started = Date.now()
    const r = await run(repo, ['add', 'blocked by a fresh lock', '--json'], ME)
    const took = Date.now() - started
    const label = describeRun('add with a fresh lock', r)
    expect(r.code, label).toBe(1)
    expect(jsonError(r).code, label).toBe('ref_locked')
    expect(took, label).toBeGreaterThanOrEqual(1500)
    expect(took, label).toBeLessThan(6000)
    expect(tipOf(repo)).toBe(before)
  })

  it('doctor reports list, tracking and packed-refs locks (exit 5); --fix removes the stale ones only; then writes work', async () => {
    const {clones} = await shared(1)
    const repo = clones[0]!
    const old = lock(repo, 'refs/tasks/main', 3600)
    const tracking = lock(repo, TRACKING, 1200)
    const packed = join(repo, '.git', 'packed-refs.lock')
    writeFileSync(packed, '')
    utimesSync(packed, Date.now() / 1000 - 60, Date.now() / 1000 - 60)
    const r = await run(repo, ['doctor', '--json'], ME)
    expect(r.code, describeRun('doctor', r)).toBe(5)
    const d = JSON.parse(r.stdout)
    expectSchema('doctor', d)
    expect(d.locks.map((l: any) => [l.ref, l.stale, l.removed])).toEqual([
      ['packed-refs', false, false],
      ['refs/tasks-remote/origin/main', true, false],
      ['refs/tasks/main', true, false],
    ])
    expect(d.locks.find((l: any) => l.ref === 'refs/tasks/main').age_seconds).toBeGreaterThanOrEqual(3599)
    const text = await run(repo, ['doctor'], ME)
    expect(text.stdout).toContain(old)
    expect(text.stdout).toContain('tasks doctor --fix')
    expect(text.stdout).not.toContain('no problems found')

    const f = await run(repo, ['doctor', '--fix', '--json'], ME)
    const fixed = JSON.parse(f.stdout)
    expectSchema('doctor', fixed)
    expect(fixed.locks.map((l: any) => [l.ref, l.removed])).toEqual([
      ['packed-refs', false],
      ['refs/tasks-remote/origin/main', true],
      ['refs/tasks/main', true],
    ])
    expect(f.code, 'the young packed-refs.lock is still there').toBe(5)
    expect(existsSync(old)).toBe(false)
    expect(existsSync(tracking)).toBe(false)
    expect(existsSync(packed)).toBe(true)

    // A write works again (packed-refs.lock does not block updating a loose ref).
    const added = await runJson(repo, ['add', 'after the fix'], ME)
    expect(tipOf(repo)).toBe(added.commit)
  })
})

describe('online: locks on this clone', {timeout: 60_000}, () => {
  it('the local ref is locked: the push succeeds, a warning says the local ref is behind; the next command catches up and says so', async () => {
    const {bare, clones} = await shared(1)
    const repo = clones[0]!
    const before = tipOf(repo)
    const path = lock(repo, 'refs/tasks/main', 3600)
    const r = await run(repo, ['add', 'published under a lock', '--json'], ME)
    expect(r.code, describeRun('online add, local ref locked', r)).toBe(0)
    const added = JSON.parse(r.stdout)
    expect(tipOf(bare)).toBe(added.commit)
    expect(tipOf(repo), 'the local ref could not move').toBe(before)
    const w = warnings(r.stderr)
    expect(w.map((x) => x.kind)).toEqual(['local_ref_behind'])
    expect(w[0]!.message).toContain(path)

    // While the lock stays, a read says the ref is still behind (and still works).
    const still = await run(repo, ['list', '--json'], ME)
    expect(still.code).toBe(0)
    expect(warnings(still.stderr).map((x) => x.kind)).toEqual(['local_ref_behind'])

    // The lock goes away; the next command (a read) fast-forwards the local ref and says so, once.
    rmSync(path)
    const next = await run(repo, ['list', '--json'], ME)
    expect(next.code).toBe(0)
    expect(warnings(next.stderr).map((x) => x.kind)).toEqual(['local_ref_caught_up'])
    expect(tipOf(repo)).toBe(added.commit)
    expect(JSON.parse(next.stdout).tasks.map((t: any) => t.id)).toContain(added.task.id)
    const again = await run(repo, ['list', '--json'], ME)
    expect(again.stderr).toBe('')
  })

  it('the tracking ref is locked and the remote moved: ref_locked naming it, not remote_unreachable; nothing published', async () => {
    const {bare, clones} = await shared(2)
    const [repo, other] = clones as [string, string]
    // The remote moves, so the fetch has to update the tracking ref (an unchanged one needs no lock).
    await runJson(other, ['add', 'from the other clone'], ME)
    const remoteBefore = tipOf(bare)
    const path = lock(repo, TRACKING, 3600)
    const r = await run(repo, ['add', 'x', '--json'], ME)
    const label = describeRun('online add, tracking ref locked', r)
    expect(r.code, label).toBe(1)
    expect(jsonError(r), label).toMatchObject({code: 'ref_locked', ref: TRACKING, path})
    expect(tipOf(bare)).toBe(remoteBefore)
    const s = await run(repo, ['sync', '--json'], ME)
    expect(jsonError(s).code, describeRun('sync, tracking ref locked', s)).toBe('ref_locked')
  })

  it('sync with the local ref locked and the remote ahead: ref_locked at once, not sync_exhausted', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    await runJson(b, ['add', 'from b'], ME)
    lock(a, 'refs/tasks/main', 3600)
    const started = Date.now()
    const s = await run(a, ['sync', '--json'], ME)
    expect(jsonError(s).code, describeRun('sync, local ref locked', s)).toBe('ref_locked')
    expect(Date.now() - started).toBeLessThan(4000)
  })
})
