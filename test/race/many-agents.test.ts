/**
 * Many agents on one remote: N agents, each in its own clone in online
 * mode, loop `tasks next --json` then `tasks done ID --json` over a queue of
 * ready items until `next` exits 3. Unlike test/remote/drain.test.ts, an
 * agent here never re-runs a command: under fair contention no command may
 * give up (exit 4 cas_exhausted) while items remain.
 *
 * Under contention a one-item change waits on the remote as a pending ref
 * (`refs/tasks-claims/<list>/<id>`) until some command folds it into the
 * list (docs/scale.md, "Many agents on one remote"). Checked: every item
 * claimed and done exactly once, by the agent that was told so; one commit
 * per change on a linear remote history, every commit an agent was told
 * about is on it; no pending ref left behind; a fresh clone agrees.
 * Measured (`[figure]` lines): the drain's wall time, and with the floor
 * the serial push floor (one agent alone doing the same next + done pushes
 * back to back, in the same run).
 *
 * Default suite: 16 agents, 1 item each (as short as it can be and still
 * have every agent race). `TASKS_SCALE=1`: 32 and 64 agents with 5 items
 * each, against the floor (the target: ≤ 1.5×).
 */
import {afterAll, describe, expect, it} from 'vitest'
import {type RunResult, cleanupAll, gitSync, run, runJson} from '../helpers/cli'
import {type FleetLog, describeRun, fleet, expectEachOnce, expectHandedTo, expectLinearHistory, expectOneCommitEach, expectStoppedEmpty, history} from './support'
import {cloneOf, figure, tipOf} from '../remote/support'

interface AgentLog extends FleetLog {
  finished: string[]
  gaveUp: RunResult[]
  /** The commit each of its commands reported. */
  commits: string[]
}

async function agent(clone: string, actor: string, limit: number): Promise<AgentLog> {
  const log: AgentLog = {actor, claimed: [], finished: [], last: null, gaveUp: [], commits: []}
  for (let i = 0; i <= limit; i++) {
    const r = await run(clone, ['next', '--json', '--as', actor])
    if (r.code !== 0) {
      log.last = r
      if (r.code === 4) log.gaveUp.push(r)
      return log
    }
    const id = expectHandedTo(actor, r)
    log.claimed.push(id)
    log.commits.push(JSON.parse(r.stdout).commit)
    const d = await run(clone, ['done', id, '--json', '--as', actor])
    expect(d.code, describeRun(`${actor} done ${id}`, d)).toBe(0)
    log.commits.push(JSON.parse(d.stdout).commit)
    log.finished.push(id)
  }
  throw new Error(`${actor} was handed more than ${limit} items`)
}

/** One agent alone doing the same 2 × items pushes back to back: the serial floor. */
async function serialFloor(items: number): Promise<number> {
  const {clones} = await fleet(1, items)
  const t0 = Date.now()
  const log = await agent(clones[0]!, 'solo', items)
  expect(log.finished.length).toBe(items)
  return (Date.now() - t0) / 1000
}

async function drain(agents: number, items: number, withFloor: boolean): Promise<void> {
  const {bare, clones, ids} = await fleet(agents, items)
  const before = history(bare)
  const actors = clones.map((_, k) => `agent-${k + 1}`)
  const started = Date.now()
  const logs = await Promise.all(clones.map((c, k) => agent(c, actors[k]!, items)))
  const seconds = (Date.now() - started) / 1000
  figure(`${agents}-agent drain of ${items} items (next + done, online)`, `${seconds.toFixed(1)} s wall, ${((2 * items) / seconds).toFixed(2)} commits/s`)

  // Nobody gave up: every agent stopped on nothing_ready with everything it took finished.
  const gaveUp = logs.flatMap((l) => l.gaveUp.map((r) => describeRun(l.actor, r)))
  expect(gaveUp, 'agents that gave up (exit 4) while items remained').toEqual([])
  for (const log of logs) {
    expectStoppedEmpty(log)
    expect(log.finished).toEqual(log.claimed)
  }
  const owner = expectEachOnce(logs, ids)
  const commits = history(bare)
  expectLinearHistory(commits)
  expect(commits.length).toBe(before.length + 2 * items)
  expectOneCommitEach(commits, 'claim', owner)
  expectOneCommitEach(commits, 'done', owner)
  // What each agent was told is what the list says: every commit it reported is on the list.
  const onList = new Set(commits.map((c) => c.oid))
  for (const log of logs) for (const c of log.commits) expect(onList.has(c), `${log.actor}: ${c}`).toBe(true)
  // Nothing left pending on the remote.
  expect(gitSync(bare, ['for-each-ref', '--format=%(refname)', 'refs/tasks-claims/'])).toBe('')

  const fresh = cloneOf(bare)
  await runJson(fresh, ['remote', 'set', 'origin'])
  expect((await runJson(fresh, ['sync'])).commit).toBe(tipOf(bare))
  const listed = await runJson(fresh, ['list', '--all'])
  expect(listed.tasks.length).toBe(items)
  for (const t of listed.tasks) expect(t, t.id).toMatchObject({status: 'done', owner: owner.get(t.id), epoch: 1})

  if (withFloor) {
    const floor = await serialFloor(items)
    figure(`serial push floor for ${items} items (one agent, ${2 * items} pushes back to back)`, `${floor.toFixed(1)} s`)
    figure(`${agents}-agent drain ÷ serial floor (target ≤ 1.5)`, `${(seconds / floor).toFixed(2)}×`)
  }
}

afterAll(() => {
  if (!process.env.KEEP_RACE_REPOS) cleanupAll()
})

describe('many agents drain one remote without giving up', () => {
  it('16 agents, 16 items: exactly once, no give-ups, one commit per change, nothing left pending', () => drain(16, 16, false), 5 * 60_000)
})

describe.runIf(process.env.TASKS_SCALE === '1')('many agents at scale (TASKS_SCALE=1)', () => {
  it('32 agents, 160 items, against the serial floor', () => drain(32, 160, true), 60 * 60_000)
  it('64 agents, 320 items, against the serial floor', () => drain(64, 320, true), 90 * 60_000)
})
