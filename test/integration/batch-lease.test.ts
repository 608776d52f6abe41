/**
 * `tasks batch` with a document object (issue 33, item 11): the top-level
 * `lease` is honoured by the claims that give none; an unknown top-level key
 * is refused with exit 2, nothing written. Real git, the real CLI.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'

afterAll(() => cleanupAll())

const A = {env: {TASKS_ACTOR: 'alice', TASKS_NOW: '2030-01-01T10:00:00.000Z'}}

const leaseOf = (t: {claimed_at: string; lease_expires: string}) => (Date.parse(t.lease_expires) - Date.parse(t.claimed_at)) / 1000

describe('tasks batch: the document object', {timeout: 60_000}, () => {
  it('honours a top-level lease for claims lacking their own, and refuses any other key with nothing written', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], A)
    const doc = {
      lease: '45m',
      operations: [
        {op: 'add', title: 'one', name: 'a'},
        {op: 'add', title: 'two', name: 'b'},
        {op: 'claim', id: '$a'},
        {op: 'claim', id: '$b', lease: '10m'},
      ],
    }
    const r = await runJson(repo, ['batch', '-'], {...A, input: JSON.stringify(doc)})
    expect(r.applied).toBe(4)
    const [a, b] = [r.results[0].id, r.results[1].id]
    expect(leaseOf((await runJson(repo, ['show', a], A)).task)).toBe(45 * 60)
    expect(leaseOf((await runJson(repo, ['show', b], A)).task)).toBe(10 * 60)

    const tip = gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
    const bad = await run(repo, ['batch', '-', '--json'], {...A, input: JSON.stringify({mode: 'each', operations: [{op: 'add', title: 'three'}]})})
    expect(bad.code).toBe(2)
    expect(jsonError(bad)).toMatchObject({code: 'bad_batch'})
    expect(jsonError(bad).message).toMatch(/"mode".*operations, lease/)
    const badLease = await run(repo, ['batch', '-', '--json'], {...A, input: JSON.stringify({lease: 'later', operations: [{op: 'add', title: 'three'}]})})
    expect(badLease.code).toBe(2)
    expect(jsonError(badLease).message).toContain('lease')
    expect(gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()).toBe(tip)
  })
})
