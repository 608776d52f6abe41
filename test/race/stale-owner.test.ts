/**
 * A stale owner is fenced off. Agent A claims with a 60 s lease and goes
 * quiet; once the lease has expired by more than the 30 s clock-skew margin
 * (judged on the acting machine's clock, pinned here with TASKS_NOW), agent
 * B may take the item over (epoch 2, took_over_from A). From then on A's
 * writes are refused with exit 6 — with or without its old fencing token,
 * and whatever A's own clock says — and nothing is written.
 *
 * The last test races A's late `done` against 16 would-be takers: however
 * the processes interleave, exactly one of the 17 writes lands.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type RunResult, cleanupAll, jsonError, run, runJson} from '../helpers/cli'
import {addTasks, copyRepo, describeRun, expectLinearHistory, history, initRepo, opCommits, tip, trailer} from './support'

const T0 = Date.parse('2030-01-01T00:00:00Z')
const LEASE = 60
const SKEW = 30 // clock_skew_seconds in the default config.yaml

/** Environment whose clock reads T0 + `seconds`. */
function at(seconds: number): {env: Record<string, string>} {
  return {env: {TASKS_NOW: new Date(T0 + seconds * 1000).toISOString()}}
}

function tasks(repo: string, args: string[], seconds: number): Promise<RunResult> {
  return run(repo, [...args, '--json'], at(seconds))
}

/** Exit 6 with one of the fencing codes, naming the current owner; and the ref did not move. */
async function expectRefused(repo: string, args: string[], seconds: number, owner: string, epoch: number, code?: string): Promise<void> {
  const before = tip(repo)
  const r = await tasks(repo, args, seconds)
  const label = describeRun(`tasks ${args.join(' ')} @+${seconds}s`, r)
  expect(r.code, label).toBe(6)
  expect(r.stdout, label).toBe('')
  const err = jsonError(r)
  if (code) expect(err.code, label).toBe(code)
  // A displaced owner is told its claim was taken over; with --epoch the fencing code stays stale_epoch.
  else expect(['not_owner', 'stale_epoch', 'claim_taken_over'], label).toContain(err.code)
  expect(err.exit, label).toBe(6)
  expect(err.owner, label).toBe(owner)
  expect(err.epoch, label).toBe(epoch)
  expect(tip(repo), `${label}\n  (the refused command moved the ref)`).toBe(before)
}

let seed: string
let id: string

beforeAll(async () => {
  seed = await initRepo()
  id = (await addTasks(seed, 1, {prefix: 'leased'}))[0]!
})

afterAll(() => {
  if (!process.env.KEEP_RACE_REPOS) cleanupAll()
})

// Sequential CLI runs: ~5 s alone, up to ~20 s measured while the drain test loads both cores.
describe('a stale owner is refused after a takeover', {timeout: 120_000}, () => {
  it('B takes over only after lease + skew margin; then A is refused (exit 6), with or without --epoch 1', async () => {
    const repo = copyRepo(seed)
    const a = await runJson(repo, ['claim', id, '--as', 'agent-a', '--lease', String(LEASE)], at(0))
    expect(a.task).toMatchObject({owner: 'agent-a', epoch: 1, lease_expires: new Date(T0 + LEASE * 1000).toISOString()})

    // Past the lease but inside the skew margin, and exactly at its edge: still A's.
    for (const s of [LEASE + 1, LEASE + SKEW]) {
      const r = await tasks(repo, ['claim', id, '--as', 'agent-b'], s)
      const label = describeRun(`B claims @+${s}s`, r)
      expect(r.code, label).toBe(4)
      expect(jsonError(r)).toMatchObject({code: 'already_claimed', owner: 'agent-a', epoch: 1})
    }

    // Past lease + margin: B takes over.
    const b = await runJson(repo, ['claim', id, '--as', 'agent-b'], at(LEASE + SKEW + 1))
    expect(b.took_over_from).toBe('agent-a')
    expect(b.already_owned).toBe(false)
    expect(b.task).toMatchObject({owner: 'agent-b', epoch: 2, status: 'in_progress', claim_live: true})

    // A wakes up. Whatever A's clock says, A no longer owns the item.
    const later = LEASE + SKEW + 5
    await expectRefused(repo, ['done', id, '--as', 'agent-a'], later, 'agent-b', 2, 'claim_taken_over')
    await expectRefused(repo, ['done', id, '--as', 'agent-a', '--epoch', '1'], later, 'agent-b', 2, 'stale_epoch')
    await expectRefused(repo, ['done', id, '--as', 'agent-a'], 10, 'agent-b', 2) // A's clock still inside A's lease
    await expectRefused(repo, ['heartbeat', id, '--as', 'agent-a', '--epoch', '1'], later, 'agent-b', 2)
    await expectRefused(repo, ['block', id, 'stuck', '--as', 'agent-a'], later, 'agent-b', 2)
    await expectRefused(repo, ['release', id, '--as', 'agent-a', '--epoch', '1'], later, 'agent-b', 2)

    // B's own token is epoch 2: an old token is refused even for B, the right one works.
    await expectRefused(repo, ['done', id, '--as', 'agent-b', '--epoch', '1'], later, 'agent-b', 2)
    const done = await runJson(repo, ['done', id, '--as', 'agent-b', '--epoch', '2'], at(later + 1))
    expect(done.task).toMatchObject({status: 'done', owner: 'agent-b', epoch: 2})

    const shown = await runJson(repo, ['show', id], at(later + 2))
    expect(shown.task).toMatchObject({status: 'done', owner: 'agent-b', epoch: 2})

    // History: A's claim, B's takeover, B's done; none of A's refused writes.
    const commits = history(repo)
    expectLinearHistory(commits)
    const mine = commits.filter((c) => trailer(c, 'Task') === id)
    expect(mine.map((c) => [trailer(c, 'Tasks-Op'), trailer(c, 'Actor'), trailer(c, 'Tasks-Epoch'), trailer(c, 'Tasks-Takeover')])).toEqual([
      ['done', 'agent-b', '2', undefined],
      ['claim', 'agent-b', '2', 'agent-a'],
      ['claim', 'agent-a', '1', undefined],
      ['add', expect.any(String), undefined, undefined],
    ])
  })

  it('without a takeover an expired owner may still finish (nothing to fence against yet)', async () => {
    const repo = copyRepo(seed)
    await runJson(repo, ['claim', id, '--as', 'agent-a', '--lease', String(LEASE)], at(0))
    const done = await runJson(repo, ['done', id, '--as', 'agent-a', '--epoch', '1'], at(LEASE + SKEW + 60))
    expect(done.task).toMatchObject({status: 'done', owner: 'agent-a', epoch: 1})
  })

  it("A's late done races 16 takers: exactly one of the 17 writes lands", async () => {
    const repo = copyRepo(seed)
    await runJson(repo, ['claim', id, '--as', 'agent-a', '--lease', String(LEASE)], at(0))
    const s = LEASE + SKEW + 1
    const takers = Array.from({length: 16}, (_, i) => `taker-${i + 1}`)
    const [aDone, ...claims] = await Promise.all([
      tasks(repo, ['done', id, '--as', 'agent-a', '--epoch', '1'], s),
      ...takers.map((t) => tasks(repo, ['claim', id, '--as', t], s)),
    ])
    const all = [aDone!, ...claims]
    const landed = all.filter((r) => r.code === 0)
    expect(landed.length, all.map((r, i) => describeRun(i === 0 ? 'agent-a done' : takers[i - 1]!, r)).join('\n')).toBe(1)

    const shown = (await runJson(repo, ['show', id], at(s + 1))).task
    const commits = history(repo)
    expectLinearHistory(commits)
    const after = commits.filter((c) => trailer(c, 'Task') === id && ['claim', 'done'].includes(trailer(c, 'Tasks-Op')!))
    expect(after.length).toBe(2) // A's original claim and the one write that landed

    if (aDone!.code === 0) {
      // A finished first: the item is done by A; every taker was told so (exit 4).
      expect(shown).toMatchObject({status: 'done', owner: 'agent-a', epoch: 1})
      for (const [i, r] of claims.entries()) {
        const label = describeRun(takers[i]!, r)
        expect(r.code, label).toBe(4)
        expect(jsonError(r).code, label).toBe('not_claimable')
      }
      expect(trailer(after[0]!, 'Tasks-Op')).toBe('done')
    } else {
      // A taker won: A is fenced off (exit 6); the other takers are told who holds it (exit 4).
      const w = claims.findIndex((r) => r.code === 0)
      const winner = takers[w]!
      expect(JSON.parse(claims[w]!.stdout)).toMatchObject({took_over_from: 'agent-a', task: {owner: winner, epoch: 2}})
      const aLabel = describeRun('agent-a done', aDone!)
      expect(aDone!.code, aLabel).toBe(6)
      // A passed --epoch 1: the fencing check speaks first (stale_epoch, docs/model.md), naming the new holder.
      expect(jsonError(aDone!), aLabel).toMatchObject({code: 'stale_epoch', your_epoch: 1, owner: winner, epoch: 2})
      for (const [i, r] of claims.entries()) {
        if (i === w) continue
        const label = describeRun(takers[i]!, r)
        expect(r.code, label).toBe(4)
        expect(jsonError(r), label).toMatchObject({code: 'already_claimed', owner: winner, epoch: 2})
      }
      expect(shown).toMatchObject({status: 'in_progress', owner: winner, epoch: 2})
      expect([trailer(after[0]!, 'Tasks-Op'), trailer(after[0]!, 'Actor'), trailer(after[0]!, 'Tasks-Takeover')]).toEqual(['claim', winner, 'agent-a'])
    }
  })
})
