/**
 * Claims across machines: 8 clones of one bare remote, each in online mode
 * (`tasks init --remote origin`), race `tasks claim ID` at the same moment.
 * Each claim fetches the remote list, runs the op on its tip and pushes with
 * `--force-with-lease` on that tip; a rejected push fetches and re-runs the
 * op, where the item is now held. So exactly one clone wins, the other seven
 * are told who holds it (exit 4, already_claimed), and the remote's history
 * holds exactly one claim commit for the item.
 *
 * The same race runs over two transports: the bare remote's path (8 clones,
 * 3 rounds), and real git:// through a `git daemon` the test starts on a
 * free loopback port and stops afterwards (4 clones, 2 rounds), where
 * fetch and push go through upload-pack and receive-pack over TCP.
 *
 * Outcome only, never timing: whichever clone wins, exactly one does.
 */
import {dirname} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type RunResult, cleanupAll, gitSync, jsonError, run, runJson} from '../helpers/cli'
import {describeRun, expectLinearHistory, history, opCommits, trailer} from '../race/support'
import {type GitDaemon, type Shared, gitDaemon, shared, tipOf} from './support'

const TRANSPORTS = [
  {name: 'a local path', clones: 8, rounds: 3, daemon: false},
  {name: 'git:// (git daemon)', clones: 4, rounds: 2, daemon: true},
]

afterAll(() => {
  if (!process.env.KEEP_RACE_REPOS) cleanupAll()
})

describe.each(TRANSPORTS)('clones claim the same item through one remote over $name', ({clones: CLONES, rounds: ROUNDS, daemon: overDaemon}) => {
  let net: Shared
  let daemon: GitDaemon | null = null

  beforeAll(async () => {
    net = await shared(CLONES)
    if (overDaemon) {
      daemon = await gitDaemon(dirname(net.bare))
      for (const c of net.clones) gitSync(c, ['remote', 'set-url', 'origin', daemon.url(net.bare)])
      // The transport really is git://: a sync goes through the daemon.
      expect(gitSync(net.clones[0]!, ['remote', 'get-url', 'origin']).trim()).toMatch(/^git:\/\/127\.0\.0\.1:\d+\//)
      expect((await runJson(net.clones[0]!, ['sync'])).action).toBe('up_to_date')
    }
  }, 120_000)

  afterAll(async () => {
    await daemon?.stop()
  })

  for (let round = 1; round <= ROUNDS; round++) {
    it(`round ${round}: exactly one wins; the other ${CLONES - 1} exit 4 already_claimed naming it; one claim commit on the remote`, {timeout: 180_000}, async () => {
      const [first] = net.clones as [string]
      // A fresh item, published by one clone online.
      const added = await runJson(first, ['add', `contended ${round}`, '--as', 'lead'])
      const id = added.task.id as string
      expect(tipOf(net.bare)).toBe(added.commit)

      const remoteBefore = tipOf(net.bare)!
      const localBefore = net.clones.map((c) => tipOf(c))
      const actors = net.clones.map((_, i) => `agent-${i + 1}`)
      // Start every process before awaiting any.
      const results: RunResult[] = await Promise.all(net.clones.map((c, i) => run(c, ['claim', id, '--json', '--as', actors[i]!])))

      const winners = results.map((r, i) => (r.code === 0 ? i : -1)).filter((i) => i >= 0)
      expect(winners.length, results.map((r, i) => describeRun(actors[i]!, r)).join('\n')).toBe(1)
      const w = winners[0]!
      const winner = actors[w]!
      const won = JSON.parse(results[w]!.stdout)
      expect(won.task).toMatchObject({id, owner: winner, status: 'in_progress', epoch: 1, claim_live: true})
      expect(won.took_over_from).toBeNull()
      expect(won.already_owned).toBe(false)

      for (const [i, r] of results.entries()) {
        if (i === w) continue
        const label = describeRun(actors[i]!, r)
        expect(r.code, label).toBe(4)
        expect(r.stdout, label).toBe('')
        const err = jsonError(r)
        expect(err, label).toMatchObject({code: 'already_claimed', exit: 4, id, owner: winner, epoch: 1})
        expect(err.message, label).toContain(winner)
      }

      // The remote: exactly one new commit, the winner's claim, on a straight line.
      const remoteTip = tipOf(net.bare)!
      expect(remoteTip).toBe(won.commit)
      const commits = history(net.bare)
      expectLinearHistory(commits)
      expect(commits[1]!.oid).toBe(remoteBefore)
      const claims = opCommits(commits, 'claim', id)
      expect(claims.length).toBe(1)
      expect(trailer(claims[0]!, 'Actor')).toBe(winner)
      expect(claims[0]!.author).toBe(winner)
      expect(trailer(claims[0]!, 'Tasks-Epoch')).toBe('1')

      // The winner's local ref followed its accepted push; no loser's local ref moved.
      for (const [i, c] of net.clones.entries()) {
        if (i === w) expect(tipOf(c), actors[i]).toBe(won.commit)
        else expect(tipOf(c), actors[i]).toBe(localBefore[i])
      }

      // Every clone sees the winner after a sync, and the same tree.
      for (const c of net.clones) {
        const s = await runJson(c, ['sync'])
        expect(['up_to_date', 'fast_forward']).toContain(s.action)
        const shown = await runJson(c, ['show', id])
        expect(shown.task).toMatchObject({owner: winner, epoch: 1, status: 'in_progress'})
        expect(tipOf(c)).toBe(remoteTip)
      }
    })
  }
})
