/**
 * kill -9 soak, four writers at once on one repository: each round starts
 * four mutations by four actors (adds, and claims, finishes, comments and
 * tags on a shared pool, so they race on the ref and on the same items),
 * and SIGKILLs some of them at random moments or as the ref lock appears.
 * After each round: no stale lock is left unrecorded, every acknowledged
 * write is in the list, the ref names a commit; every few rounds (and at
 * the end) `git fsck --strict` is clean and the warm cache lists exactly
 * like a cold rebuild.
 *
 * With several writers a kill cannot be told from another writer's commit
 * by looking at the ref, so kills are classified by the trailers of the
 * round's new commits (`Actor:`): a killed writer whose commit landed was
 * killed after its write; the others count as "not attributable".
 */
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'
import {cleanupAll} from '../helpers/cli'
import {initRepo, tip} from '../race/support'
import {
  KillClock,
  LONG,
  type Listing,
  type Outcome,
  type PlannedWrite,
  Random,
  Tally,
  type Write,
  acknowledged,
  actorsWithNewCommits,
  checkRepo,
  clearLeftovers,
  failedCommand,
  gitDirOf,
  iterations,
  ledgerEntry,
  planWrite,
  runKillable,
  seconds,
  timeoutFor,
  verifyWrites,
} from './support'

afterAll(() => cleanupAll())

const ROUNDS = iterations(6, 100)
const WRITERS = 4
const DEEP_EVERY = LONG ? 2 : 3
/** Exit codes a racing writer may legitimately get: conflict (4), not permitted (6). */
const RACE_EXITS = new Set([4, 6])

it(`${WRITERS} concurrent writers: ${ROUNDS} rounds, some killed, lose no acknowledged write`, {timeout: timeoutFor(ROUNDS, 2500)}, async () => {
  const random = Random.fromEnv()
  const tally = new Tally('concurrent writers')
  const started = performance.now()
  const repo = await initRepo()
  // A group kill can leave refs/tasks/main.lock behind while the other three
  // writers still run; today they retry for 12–15 s before cas_exhausted.
  // The short run kills node alone (its update-ref finishes), to stay short.
  const clock = new KillClock(random, 600, LONG ? ['group', 'process'] : ['process'])
  const writes: Write[] = []
  const titles = new Set<string>()
  const seen = new Set<string>()
  const refDirs = [join(gitDirOf(repo), 'refs', 'tasks')]
  let listing: Listing | null = await checkRepo(repo, 'start', tally, {TASKS_ACTOR: 'w1'}, false)
  let landedUnacknowledged = 0

  for (let round = 1; round <= ROUNDS; round++) {
    tally.iterations++
    const oldTip = tip(repo)
    const jobs = Array.from({length: WRITERS}, (_, k) => {
      const actor = `w${k + 1}`
      const plan: PlannedWrite = planWrite(random, listing!.tasks, actor, `r${round}w${k + 1}`)
      if (plan.kind === 'add') titles.add(plan.token)
      // Round 1 runs unkilled to time the commands; then about half the writers are killed.
      const kill = round === 1 || random.chance(0.5) ? null : random.chance(0.7) ? clock.plan(plan.args[0]!) : clock.planAt(refDirs)
      return {actor, plan, kill}
    })
    const outcomes: Outcome[] = await Promise.all(jobs.map((j) => runKillable(repo, j.plan.args, {TASKS_ACTOR: j.actor}, j.kill)))
    const locks = clearLeftovers(repo, tally, 'repo', seen)
    const landed = actorsWithNewCommits(repo, oldTip)
    jobs.forEach((j, k) => {
      const o = outcomes[k]!
      tally.processes++
      clock.observe(o)
      if (o.killed) {
        tally.killed++
        if (o.killMode === 'group') tally.killedGroup++
        else tally.killedProcessOnly++
        if (landed.has(j.actor)) {
          tally.killedAfterRef++
          landedUnacknowledged++
        } else tally.killedUnattributed++
        return
      }
      const out = acknowledged(o)
      if (out) {
        tally.acknowledged++
        const entry = ledgerEntry(j.plan, out, j.actor, `round ${round}`)
        if (entry) writes.push(entry)
        else tally.fail(`round ${round} ${j.actor}: ${j.plan.args.join(' ')} acknowledged something else: ${o.stdout.slice(0, 300)}`)
        return
      }
      failedCommand(tally, o, `round ${round} ${j.actor}`, locks.length, RACE_EXITS)
    })
    const deep = round % DEEP_EVERY === 0 || round === ROUNDS
    listing = await checkRepo(repo, `after round ${round}`, tally, {TASKS_ACTOR: 'w1'}, deep)
    if (!listing) break
    verifyWrites(repo, `after round ${round}`, listing, writes, titles, tally)
  }

  console.log(
    tally.summary(random.seed, {
      'seconds': seconds(started),
      'typical run (ms)': clock.describe(),
      'killed writers whose commit landed': landedUnacknowledged,
      'tasks at the end': listing?.tasks.length ?? 'unreadable',
    }),
  )
  expect(tally.failures).toEqual([])
  expect(tally.killed).toBeGreaterThan(0)
})
