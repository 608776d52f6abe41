/**
 * kill -9 soak, one writer: mutations (add, claim, done, comment, edit, and
 * now and then a cache-rebuilding `list`) run one at a time on one
 * repository, most of them SIGKILLed at a random moment: during start-up,
 * while objects, the ref or the cache are written, or just after. After each
 * one: every acknowledged write is still in the list, the ref names a
 * commit, a stale lock is recorded and removed; every few iterations (and
 * at the end) `git fsck --strict` is clean and the warm cache lists exactly
 * like a cold rebuild. docs/reliability.md explains the counts.
 */
import {existsSync, readdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'
import {cleanupAll} from '../helpers/cli'
import {initRepo} from '../race/support'
import {
  KillClock,
  LONG,
  type Listing,
  Random,
  Tally,
  type Write,
  acknowledged,
  checkRepo,
  clearLeftovers,
  failedCommand,
  fingerprint,
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

const N = iterations(10, 150)
const DEEP_EVERY = LONG ? 1 : 5

it(`single writer: ${N} mutations, most killed at random moments, lose no acknowledged write`, {timeout: timeoutFor(N, 1500)}, async () => {
  const random = Random.fromEnv()
  const tally = new Tally('single writer')
  const started = performance.now()
  const repo = await initRepo()
  const actor = 'solo'
  const env = {TASKS_ACTOR: actor}
  const clock = new KillClock(random, 400)
  const writes: Write[] = []
  const titles = new Set<string>()
  const seen = new Set<string>()
  const refDirs = [join(gitDirOf(repo), 'refs', 'tasks')]
  const cacheDir = join(gitDirOf(repo), 'git-tasks')
  let listing: Listing | null = await checkRepo(repo, 'start', tally, env, false)

  for (let i = 1; i <= N; i++) {
    tally.iterations++
    const serial = `s${i}`
    const plan = i > 1 && random.chance(0.1) ? null : planWrite(random, listing!.tasks, actor, serial)
    // A `list` (or a mutation) that finds no cache writes it: kill some of those writes too.
    if (random.chance(0.15) && existsSync(cacheDir)) {
      for (const f of readdirSync(cacheDir)) if (f.startsWith('index-')) rmSync(join(cacheDir, f))
    }
    const args = plan ? plan.args : ['list', '--all', '--json']
    if (plan?.kind === 'add') titles.add(plan.token)
    // The first command runs to its end, to time one on this machine now.
    const kill = i === 1 || random.chance(0.15) ? null : random.chance(0.6) ? clock.plan(args[0]!) : clock.planAt(random.chance(0.7) ? refDirs : [cacheDir])
    const before = [fingerprint(repo)]
    const o = await runKillable(repo, args, env, kill)
    const after = [fingerprint(repo)]
    tally.classify(o, before, after)
    if (process.env.SOAK_TRACE) console.log(`${serial} ${args[0]} kill=${JSON.stringify(kill)?.replace(/\/tmp\S*\//g, '')} ms=${Math.round(o.ms)} killed=${o.killed} code=${o.code} sig=${o.signal}`)
    clock.observe(o, Tally.wroteNothing(before, after))
    const locks = clearLeftovers(repo, tally, 'repo', seen)
    const out = acknowledged(o)
    if (plan && out) {
      tally.acknowledged++
      const entry = ledgerEntry(plan, out, actor, serial)
      if (entry) writes.push(entry)
      else tally.fail(`${serial}: ${args.join(' ')} acknowledged something else: ${o.stdout.slice(0, 300)}`)
    } else if (!o.killed && o.code !== 0) failedCommand(tally, o, serial, locks.length)
    const deep = i % DEEP_EVERY === 0 || i === N
    listing = await checkRepo(repo, `after ${serial}`, tally, env, deep)
    if (!listing) break
    verifyWrites(repo, `after ${serial}`, listing, writes, titles, tally)
  }

  console.log(
    tally.summary(random.seed, {
      'seconds': seconds(started),
      'typical run (ms)': clock.describe(),
      'tasks at the end': listing?.tasks.length ?? 'unreadable',
      'acknowledged writes in the ledger': writes.length,
    }),
  )
  expect(tally.failures).toEqual([])
  expect(tally.killed).toBeGreaterThan(0)
})
