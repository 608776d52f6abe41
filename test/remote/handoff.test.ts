/**
 * Agent handoff across machines: a bare remote and two clones. An edit with
 * a stale `--if-revision` is refused on the remote's tip (the snapshot the
 * push would be leased on) with nothing pushed, even when the local list
 * has not seen the other clone's change; a current one applies on top of
 * it. A checkpoint written in one clone is what an agent in the other
 * clone gets first from `next --json` after taking the expired claim over.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, jsonError, run, runJson} from '../helpers/cli'
import {shared, tipOf} from './support'

afterAll(() => cleanupAll())

describe('--if-revision and checkpoints through a shared remote', {timeout: 120_000}, () => {
  it('a stale revision is refused against the remote tip with nothing pushed; a current one applies', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const id = (await runJson(a, ['add', 'shared card', '--as', 'alice'])).task.id as string
    // b reads the card at revision 1...
    await runJson(b, ['sync'])
    const seen = await runJson(b, ['show', id, '--as', 'bob'])
    expect(seen.task.revision).toBe(1)
    // ...then alice changes it from the other clone.
    await runJson(a, ['edit', id, '--title', 'renamed by alice', '--as', 'alice'])
    const remoteBefore = tipOf(bare)

    const stale = await run(b, ['edit', id, '--priority', '0', '--if-revision', '1', '--json', '--as', 'bob'])
    expect(stale.code, stale.stderr).toBe(4)
    const e = jsonError(stale)
    expect(e).toMatchObject({code: 'revision_mismatch', revision: 2, expected: 1, updated_by: 'alice'})
    expect((e.changes_since as Array<{actor: string; op: string}>).map((c) => [c.actor, c.op])).toEqual([['alice', 'edit']])
    expect(tipOf(bare)).toBe(remoteBefore)

    const current = await runJson(b, ['edit', id, '--priority', '0', '--if-revision', '2', '--as', 'bob'])
    expect(current.published).toBe(true)
    expect(current.task).toMatchObject({title: 'renamed by alice', priority: 0, revision: 3, updated_by: 'bob'})
    expect(tipOf(bare)).toBe(current.commit)
  })

  it('a checkpoint made in one clone survives the lease expiring and is what next --json in the other clone shows first', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const id = (await runJson(a, ['add', 'long job', '--as', 'alice'])).task.id as string
    await runJson(a, ['claim', id, '--lease', '10m', '--as', 'alice'], {env: {TASKS_NOW: '2026-01-01T10:00:00.000Z'}})
    const cp = await runJson(a, ['checkpoint', id, '--summary', 'parser written', '--next', 'wire it into sync', '--session', 's-a', '--as', 'alice'], {env: {TASKS_NOW: '2026-01-01T10:05:00.000Z'}})
    expect(cp.task.lease_expires).toBe('2026-01-01T11:05:00.000Z')
    expect(cp.published).toBe(true)
    // An hour later the lease has long run out: bob's next takes the item over and gets alice's checkpoint first.
    const r = await run(b, ['next', '--json', '--as', 'bob'], {env: {TASKS_NOW: '2026-01-01T12:20:00.000Z'}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.startsWith('{"checkpoint":{')).toBe(true)
    const out = JSON.parse(r.stdout)
    expect(out.took_over_from).toBe('alice')
    expect(out.checkpoint).toMatchObject({kind: 'checkpoint', author: 'alice', body: 'parser written', next: 'wire it into sync', session: 's-a', epoch: 1})
    expect(out.task).toMatchObject({owner: 'bob', epoch: 2})
  })
})
