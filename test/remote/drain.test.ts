/**
 * A fleet on many machines drains a queue through one plain git remote: 8
 * agents, each in its own clone in online mode, loop `tasks next --json`
 * then `tasks done ID --json` until `next` exits 3 (nothing_ready), over ITEMS (64; 200
 * with TASKS_SLOW_TESTS=1)
 * ready items. Every command fetches, runs on the remote tip and pushes with
 * a lease; every lost push re-runs the op on the new tip.
 *
 * Checked three ways that must agree: what each agent was told, the remote
 * ref's history read with plain `git log` (trailers), and the final store
 * as a fresh clone sees it after `tasks sync`. Also measured (printed as
 * `[figure]` lines): the wall time of the drain and the time of one
 * uncontended remote claim.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type RunResult, cleanupAll, run, runJson} from '../helpers/cli'
import {describeRun, expectEachOnce, expectHandedTo, expectLinearHistory, expectOneCommitEach, expectStoppedEmpty, history, trailer} from '../race/support'
import {type Shared, cloneOf, figure, median, shared, tipOf} from './support'

// 64 items in the default suite; the full 200 with TASKS_SLOW_TESTS=1 (npm run soak's machines).
const ITEMS = process.env.TASKS_SLOW_TESTS === '1' ? 200 : 64
const AGENTS = 8
const TIMEOUT = 15 * 60_000

interface AgentLog {
  actor: string
  claimed: string[]
  finished: string[]
  /** The `next` that ended the loop. */
  last: RunResult | null
  /** Commands that ran out of retries (exit 4 cas_exhausted) and were run again. */
  exhausted: string[]
}

/**
 * One agent in its own clone: `next`, then `done` on what it got, until
 * `next` exits 3. An exit 4 cas_exhausted (the retry bound ran out under
 * contention; nothing was published) is what an agent is told to retry, so
 * the loop retries it and records it; any other failure ends the loop and
 * fails the test with the command's output.
 */
async function agent(clone: string, actor: string): Promise<AgentLog> {
  const log: AgentLog = {actor, claimed: [], finished: [], last: null, exhausted: []}
  const retrying = async (args: string[]): Promise<RunResult> => {
    for (;;) {
      const r = await run(clone, [...args, '--json', '--as', actor])
      if (r.code === 4 && /"cas_exhausted"/.test(r.stderr)) {
        log.exhausted.push(args.join(' '))
        continue
      }
      return r
    }
  }
  for (let i = 0; i <= ITEMS; i++) {
    const r = await retrying(['next'])
    if (r.code !== 0) {
      log.last = r
      return log
    }
    const id = expectHandedTo(actor, r)
    log.claimed.push(id)
    const d = await retrying(['done', id])
    expect(d.code, describeRun(`${actor} done ${id}`, d)).toBe(0)
    const done = JSON.parse(d.stdout)
    expect(done.changed, describeRun(`${actor} done ${id}`, d)).toBe(true)
    expect(done.task).toMatchObject({id, status: 'done', owner: actor, epoch: 1})
    log.finished.push(id)
  }
  throw new Error(`${actor} was handed more than ${ITEMS} items`)
}

let net: Shared
let ids: string[]

beforeAll(async () => {
  net = await shared(AGENTS)
  // ITEMS items: offline adds in one clone, 8 processes at a time (they race on the local ref), then one sync publishes them.
  const seeder = net.clones[0]!
  const started = Date.now()
  ids = new Array(ITEMS)
  for (let start = 0; start < ITEMS; start += 8) {
    await Promise.all(
      Array.from({length: Math.min(8, ITEMS - start)}, (_, k) => start + k).map(async (i) => {
        const out = await runJson(seeder, ['add', `item ${String(i + 1).padStart(3, '0')}`, '--offline', '--as', 'lead'])
        ids[i] = out.task.id
      }),
    )
  }
  const s = await runJson(seeder, ['sync'])
  expect(s.action).toBe('pushed')
  expect(new Set(ids).size).toBe(ITEMS)
  figure(`create ${ITEMS} items offline (8 at a time) + one sync`, `${((Date.now() - started) / 1000).toFixed(1)} s`)
}, TIMEOUT)

afterAll(() => {
  if (!process.env.KEEP_RACE_REPOS) cleanupAll()
})

describe(`${AGENTS} agents in ${AGENTS} clones drain ${ITEMS} items through one remote`, () => {
  it(
    'every item claimed and done exactly once; agents, remote history and a fresh clone agree',
    async () => {
      const before = history(net.bare)
      const actors = net.clones.map((_, k) => `agent-${k + 1}`)
      const started = Date.now()
      const logs = await Promise.all(net.clones.map((c, k) => agent(c, actors[k]!)))
      const seconds = (Date.now() - started) / 1000
      figure(`8-agent drain of ${ITEMS} items (next + done each, online)`, `${seconds.toFixed(1)} s wall, ${((2 * ITEMS) / seconds).toFixed(2)} commits/s`)
      figure('items per agent', logs.map((l) => `${l.actor}=${l.claimed.length}`).join(' '))
      const exhausted = logs.flatMap((l) => l.exhausted.map((e) => `${l.actor}: ${e}`))
      figure('commands that hit the retry bound (cas_exhausted) and were re-run', `${exhausted.length}${exhausted.length ? ` (${exhausted.join('; ')})` : ''}`)

      // Every agent stopped on nothing_ready with nothing left to do.
      for (const log of logs) {
        expectStoppedEmpty(log)
        expect(log.finished).toEqual(log.claimed)
      }

      // From the agents' outputs: each item claimed once and done once.
      const owner = expectEachOnce(logs, ids)

      // From the remote ref's history (plain git log, trailers): exactly ITEMS claims and ITEMS dones, by the agents told so.
      const commits = history(net.bare)
      expectLinearHistory(commits)
      expect(commits.length).toBe(before.length + 2 * ITEMS)
      const claims = expectOneCommitEach(commits, 'claim', owner)
      const dones = expectOneCommitEach(commits, 'done', owner)
      for (const c of claims.values()) {
        expect(trailer(c, 'Tasks-Via')).toBe('next')
        expect(trailer(c, 'Tasks-Epoch')).toBe('1')
      }
      const position = new Map(commits.map((c, i) => [c.oid, i]))
      for (const id of ids) expect(position.get(dones.get(id)!.oid)!, id).toBeLessThan(position.get(claims.get(id)!.oid)!)
      expect(new Set(commits.slice(0, 2 * ITEMS).map((c) => trailer(c, 'Tasks-Op')))).toEqual(new Set(['claim', 'done']))

      // The final store, as a fresh clone sees it after `tasks sync`, equals the history.
      const fresh = cloneOf(net.bare)
      await runJson(fresh, ['remote', 'set', 'origin'])
      const s = await runJson(fresh, ['sync'])
      expect(s.action).toBe('fast_forward')
      expect(s.commit).toBe(tipOf(net.bare))
      const listed = await runJson(fresh, ['list', '--all'])
      expect(listed.tasks.length).toBe(ITEMS)
      expect(listed.broken).toEqual([])
      for (const t of listed.tasks) {
        expect(t, t.id).toMatchObject({status: 'done', owner: owner.get(t.id), epoch: 1})
        expect(t.closed_at, t.id).not.toBeNull()
      }
    },
    TIMEOUT,
  )

  it(
    'one uncontended remote claim: median of 5 (whole CLI process: fetch, op, push with lease)',
    async () => {
      const c = net.clones[1]!
      const fresh: string[] = []
      for (let i = 0; i < 5; i++) fresh.push((await runJson(c, ['add', `timed ${i}`, '--as', 'lead'])).task.id)
      const times: number[] = []
      for (const id of fresh) {
        const t0 = performance.now()
        const out = await runJson(c, ['claim', id, '--as', 'timer'])
        times.push(performance.now() - t0)
        expect(out.task).toMatchObject({owner: 'timer', epoch: 1})
        expect(tipOf(net.bare)).toBe(out.commit)
      }
      // For comparison, the same claim offline (local CAS only).
      const local: string[] = []
      for (let i = 0; i < 5; i++) local.push((await runJson(c, ['add', `timed offline ${i}`, '--as', 'lead'])).task.id)
      const offline: number[] = []
      for (const id of local) {
        const t0 = performance.now()
        await runJson(c, ['claim', id, '--as', 'timer', '--offline'])
        offline.push(performance.now() - t0)
      }
      figure('remote claim, uncontended (median of 5)', `${median(times).toFixed(0)} ms (all: ${times.map((t) => t.toFixed(0)).join(', ')} ms)`)
      figure('offline claim, same clone (median of 5)', `${median(offline).toFixed(0)} ms`)
      expect(median(times)).toBeLessThan(10_000)
    },
    120_000,
  )
})
