/**
 * A fleet drains a queue: 8 agent processes each loop `tasks next --json`
 * until it exits 3 (nothing_ready) over 50 ready items. Every `next` races
 * every other on the one ref; a lost swap re-runs the op on the new
 * snapshot, where the item just taken is no longer ready, so it picks the
 * next one. Checked: every item is handed out exactly once, and the store
 * and the git history agree with what each agent was told.
 *
 * Outcome only, never timing: which agent gets which item, and how many
 * each gets, is up to the scheduler.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type RunResult, cleanupAll, run, runJson} from '../helpers/cli'
import {addTasks, copyRepo, describeRun, expectEachOnce, expectHandedTo, expectLinearHistory, expectOneCommitEach, expectStoppedEmpty, history, initRepo, trailer} from './support'

const ITEMS = 50
const AGENTS = 8
const TIMEOUT = 240_000

interface AgentLog {
  actor: string
  /** Ids this agent was handed by `next`, in order. */
  claimed: string[]
  /** Ids this agent finished (done variant). */
  finished: string[]
  /** The `next` that ended the loop. */
  last: RunResult | null
}

/**
 * One agent: `next` until exit 3; with `finish`, `done` each item it got
 * before asking for the next. Any other exit code stops the loop and fails
 * the test with the command's output.
 */
async function agent(repo: string, actor: string, finish: boolean): Promise<AgentLog> {
  const log: AgentLog = {actor, claimed: [], finished: [], last: null}
  // Bounded: no agent can legitimately be handed more than every item.
  for (let i = 0; i <= ITEMS; i++) {
    // Without done in between, each next must take one more item (not resume the one the agent holds).
    const r = await run(repo, ['next', '--json', '--as', actor, ...(finish ? [] : ['--another'])])
    if (r.code !== 0) {
      log.last = r
      return log
    }
    const id = expectHandedTo(actor, r)
    log.claimed.push(id)
    if (finish) {
      const d = await run(repo, ['done', id, '--json', '--as', actor])
      expect(d.code, describeRun(`${actor} done ${id}`, d)).toBe(0)
      const done = JSON.parse(d.stdout)
      expect(done.changed).toBe(true)
      expect(done.task).toMatchObject({id, status: 'done', owner: actor, epoch: 1})
      log.finished.push(id)
    }
  }
  throw new Error(`${actor} was handed more than ${ITEMS} items: ${log.claimed.join(', ')}`)
}

/** Run the fleet; every agent must have stopped on an empty queue. */
async function drain(repo: string, finish: boolean): Promise<AgentLog[]> {
  const actors = Array.from({length: AGENTS}, (_, k) => `agent-${k + 1}`)
  const logs = await Promise.all(actors.map((a) => agent(repo, a, finish)))
  for (const log of logs) expectStoppedEmpty(log)
  return logs
}

let seed: string
let ids: string[]

beforeAll(async () => {
  seed = await initRepo()
  ids = await addTasks(seed, ITEMS, {batch: 10})
  const listed = await runJson(seed, ['list', '--ready'])
  expect(listed.tasks.length).toBe(ITEMS)
}, TIMEOUT)

afterAll(() => {
  if (!process.env.KEEP_RACE_REPOS) cleanupAll()
})

describe(`${AGENTS} agents drain ${ITEMS} ready items with next`, () => {
  it(
    'hands every item out exactly once, each claim recorded as one commit by its agent',
    async () => {
      const repo = copyRepo(seed)
      const before = history(repo)
      const logs = await drain(repo, false)
      const owner = expectEachOnce(logs, ids)

      const commits = history(repo)
      expectLinearHistory(commits)
      expect(commits.length).toBe(before.length + ITEMS)
      const claims = expectOneCommitEach(commits, 'claim', owner)
      for (const c of claims.values()) expect(trailer(c, 'Tasks-Via')).toBe('next')
      // Per agent: its claims are exactly the ones it was told about.
      for (const log of logs) {
        const recorded = [...claims.values()].filter((c) => trailer(c, 'Actor') === log.actor).map((c) => trailer(c, 'Task'))
        expect(recorded.sort(), log.actor).toEqual([...log.claimed].sort())
      }

      const listed = await runJson(repo, ['list', '--all'])
      expect(listed.tasks.length).toBe(ITEMS)
      for (const t of listed.tasks) {
        expect(t, t.id).toMatchObject({status: 'in_progress', owner: owner.get(t.id), epoch: 1, claim_live: true})
      }
    },
    TIMEOUT,
  )

  it(
    'next then done: all items done exactly once; history has exactly 50 claim and 50 done commits',
    async () => {
      const repo = copyRepo(seed)
      const before = history(repo)
      const logs = await drain(repo, true)
      const owner = expectEachOnce(logs, ids)
      for (const log of logs) expect(log.finished).toEqual(log.claimed)

      const commits = history(repo)
      expectLinearHistory(commits)
      expect(commits.length).toBe(before.length + 2 * ITEMS)
      const claims = expectOneCommitEach(commits, 'claim', owner)
      const dones = expectOneCommitEach(commits, 'done', owner)
      // History is newest first: each item's done comes after (above) its claim.
      const position = new Map(commits.map((c, i) => [c.oid, i]))
      for (const id of ids) expect(position.get(dones.get(id)!.oid)!, id).toBeLessThan(position.get(claims.get(id)!.oid)!)
      // Nothing but claims and dones was written by the fleet.
      const ops = commits.slice(0, 2 * ITEMS).map((c) => trailer(c, 'Tasks-Op'))
      expect(new Set(ops)).toEqual(new Set(['claim', 'done']))

      const listed = await runJson(repo, ['list', '--all'])
      expect(listed.tasks.length).toBe(ITEMS)
      for (const t of listed.tasks) {
        expect(t, t.id).toMatchObject({status: 'done', owner: owner.get(t.id), epoch: 1})
        expect(t.closed_at, t.id).not.toBeNull()
      }
    },
    TIMEOUT,
  )
})
