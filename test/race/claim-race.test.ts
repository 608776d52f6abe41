/**
 * Many real processes claim the same item at the same moment. The claim is
 * snapshot → op → commit → `git update-ref <ref> <new> <old>`; a lost swap
 * re-runs the op on a fresh snapshot, where the item is now held, so every
 * loser is told who holds it (exit 4, already_claimed) and nobody silently
 * overwrites the winner.
 *
 * The outcome is checked, never the timing: whichever process wins, exactly
 * one does, and the store, the losers' errors and the git history agree on
 * who it was.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type RunResult, cleanupAll, jsonError, run, runJson} from '../helpers/cli'
import {addTasks, copyRepo, describeRun, expectLinearHistory, history, initRepo, opCommits, tip, trailer} from './support'

const CLAIMERS = 16

/** Start every process before awaiting any of them. */
function claimAll(repo: string, id: string, actors: string[], env?: Record<string, string>): Promise<RunResult[]> {
  return Promise.all(actors.map((actor) => run(repo, ['claim', id, '--json', '--as', actor], {env})))
}

/** Exactly one process won; returns its index. */
function theWinner(results: RunResult[]): number {
  const winners = results.map((r, i) => (r.code === 0 ? i : -1)).filter((i) => i >= 0)
  expect(winners.length, results.map((r, i) => describeRun(`#${i}`, r)).join('\n')).toBe(1)
  return winners[0]!
}

let seed: string
let seedIds: string[]

beforeAll(async () => {
  seed = await initRepo()
  seedIds = await addTasks(seed, 2, {prefix: 'contended'})
})

afterAll(() => {
  if (!process.env.KEEP_RACE_REPOS) cleanupAll()
})

describe(`${CLAIMERS} processes claim the same item at once`, {timeout: 120_000}, () => {
  it('exactly one wins; the others exit 4 already_claimed naming the winner; one claim commit', async () => {
    const repo = copyRepo(seed)
    const id = seedIds[0]!
    const before = history(repo)
    const actors = Array.from({length: CLAIMERS}, (_, i) => `agent-${i + 1}`)

    const results = await claimAll(repo, id, actors)

    const w = theWinner(results)
    const winner = actors[w]!
    const won = JSON.parse(results[w]!.stdout)
    expect(won.task).toMatchObject({id, owner: winner, status: 'in_progress', epoch: 1, claim_live: true})
    expect(won.took_over_from).toBeNull()
    expect(won.already_owned).toBe(false)
    expect(won.commit).toMatch(/^[0-9a-f]{40,64}$/)

    for (const [i, r] of results.entries()) {
      if (i === w) continue
      const label = describeRun(`${actors[i]}`, r)
      expect(r.code, label).toBe(4)
      expect(r.stdout, label).toBe('')
      const err = jsonError(r)
      expect(err.code, label).toBe('already_claimed')
      expect(err.exit, label).toBe(4)
      expect(err.id, label).toBe(id)
      expect(err.owner, label).toBe(winner)
      expect(err.epoch, label).toBe(1)
      expect(err.message, label).toContain(winner)
    }

    const shown = await runJson(repo, ['show', id])
    expect(shown.task).toMatchObject({id, owner: winner, epoch: 1, status: 'in_progress'})

    // The audit log: exactly one new commit, the winner's claim.
    const after = history(repo)
    expectLinearHistory(after)
    expect(after.length).toBe(before.length + 1)
    expect(after[0]!.oid).toBe(won.commit)
    expect(tip(repo)).toBe(won.commit)
    const claims = opCommits(after, 'claim', id)
    expect(claims.length).toBe(1)
    expect(trailer(claims[0]!, 'Actor')).toBe(winner)
    expect(trailer(claims[0]!, 'Tasks-Epoch')).toBe('1')
    expect(trailer(claims[0]!, 'Tasks-Takeover')).toBeUndefined()
    expect(claims[0]!.author).toBe(winner)
    expect(opCommits(after, 'claim').length).toBe(1)

    // The other item was not touched by the race.
    const other = await runJson(repo, ['show', seedIds[1]!])
    expect(other.task).toMatchObject({status: 'todo', owner: null, epoch: 0})
  })

  it('exactly one takes over an expired claim (epoch 2, took_over_from the old owner)', async () => {
    const repo = copyRepo(seed)
    const id = seedIds[0]!
    const t0 = Date.parse('2031-03-01T12:00:00Z')
    const at = (seconds: number) => ({TASKS_NOW: new Date(t0 + seconds * 1000).toISOString()})

    await runJson(repo, ['claim', id, '--as', 'sleeper', '--lease', '60'], {env: at(0)})
    const actors = Array.from({length: CLAIMERS}, (_, i) => `taker-${i + 1}`)
    // Lease 60 s + 30 s skew margin: at +91 s the claim is dead.
    const results = await claimAll(repo, id, actors, at(91))

    const w = theWinner(results)
    const winner = actors[w]!
    const won = JSON.parse(results[w]!.stdout)
    expect(won.took_over_from).toBe('sleeper')
    expect(won.task).toMatchObject({owner: winner, epoch: 2, status: 'in_progress'})
    for (const [i, r] of results.entries()) {
      if (i === w) continue
      const label = describeRun(actors[i]!, r)
      expect(r.code, label).toBe(4)
      const err = jsonError(r)
      expect(err.code, label).toBe('already_claimed')
      expect(err.owner, label).toBe(winner)
      expect(err.epoch, label).toBe(2)
    }

    const shown = await runJson(repo, ['show', id], {env: at(92)})
    expect(shown.task).toMatchObject({owner: winner, epoch: 2})
    const after = history(repo)
    expectLinearHistory(after)
    const claims = opCommits(after, 'claim', id)
    expect(claims.map((c) => [trailer(c, 'Actor'), trailer(c, 'Tasks-Epoch'), trailer(c, 'Tasks-Takeover')])).toEqual([
      [winner, '2', 'sleeper'],
      ['sleeper', '1', undefined],
    ])
    expect(after[0]!.oid).toBe(tip(repo))
  })
})
