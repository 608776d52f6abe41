/**
 * The index at scale: whatever path brings it up to date (no cache, a cache
 * one commit behind, a cache hundreds of changes behind), the answers and
 * the file written are the same as a cold build. A small property run is in
 * the default suite; `TASKS_SCALE=1` adds one run at 100,000 tasks (seeded
 * by bench/seed.ts in one commit, then a cache as old as `init`).
 */
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {ListStore} from '../../src/refstore/list-store'
import {type IndexedTask, cachePath, readCachedIndex, snapshotOf, updateIndex, writeCachedIndex} from '../../src/refstore/task-index'
import {type OpenRowColumns, type OpenRows, type Snapshot, openRowColumns, tablesOf} from '../../src/core/snapshot'
import {TasksError} from '../../src/core/errors'
import {finishTask} from '../../src/core/ops/lifecycle'
import {removeTask} from '../../src/core/ops/remove'
import {assignTask, setDependencies} from '../../src/core/ops/edit'
import {addTask} from '../../src/core/ops/add'
import {claimTask} from '../../src/core/ops/claim'
import {makeRepo} from '../helpers/cli'
import {ctx} from '../helpers/snapshot'

/** The open rows as plain values (the cache file's are read from packed columns). */
function openRowsOf(o: OpenRows) {
  return {rows: [...o.rows], finished: o.finished, broken: [...o.broken]}
}

/** Every field of every open row read through the columns, as `list` reads them. */
function columnsOf(c: OpenRowColumns) {
  return Array.from({length: c.length}, (_, i) => [c.id(i), c.status(i), c.priority(i), c.created(i), c.owner(i), c.assignee(i), c.leaseEnd(i), c.flags(i), c.parentRow(i)])
}

/** Everything the core can ask an index, in a comparable form. */
function answers(s: Snapshot) {
  const t = tablesOf(s)
  const all = t.sortedIds()
  return {
    all: all.map((id) => [id, (s.tasks.get(id) as IndexedTask).dir, s.tasks.get(id)!.meta, t.children(id), t.dependents(id)]),
    size: s.tasks.size,
    prefixes: all.map((id) => t.idsWithPrefix(id.slice(0, 6), 3)),
    todo: t.idsWithStatus(new Set(['todo'])),
    held: t.idsWithStatus(new Set(['in_progress', 'blocked'])),
    broken: t.brokenIds(),
    // Read before nextQueue(), which it would otherwise just replay.
    front: [...(t.nextQueueFront?.() ?? t.nextQueue())],
    queue: t.nextQueue(),
    reservations: [...t.reservations()].sort(([a], [b]) => (a < b ? -1 : 1)),
    claims: [...t.claims()].sort(([a], [b]) => (a < b ? -1 : 1)),
    open: {...openRowsOf(t.openRows()), columns: columnsOf(openRowColumns(t.openRows()))},
    leases: t.leases(),
  }
}

/** Random single-op commits (add with parents, dependencies and assignees, claim, done, rm, deps, assign), as separate processes would make them. */
async function mutate(dir: string, steps: number, seed: number, ids: string[]): Promise<void> {
  let state = seed >>> 0 || 1
  const rand = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648
    return Math.floor((state / 2147483648) * n)
  }
  const pick = <T>(xs: readonly T[]): T | undefined => xs[rand(Math.max(xs.length, 1))]
  const store = await ListStore.open(dir, 'main')
  for (let step = 0; step < steps; step++) {
    const loaded = await store.load()
    const snap = loaded.snapshot
    const live = ids.filter((id) => snap.tasks.has(id))
    const op = live.length < 8 ? 0 : rand(8)
    let plan
    try {
      if (op <= 1) {
        const parent = rand(3) === 0 ? live.find((id) => !snap.tasks.get(id)!.parent) : undefined
        const assignee = rand(3) === 0 ? pick(['bob', 'carol']) : undefined
        plan = addTask(snap, ctx('alice'), {title: `t${seed}-${step}`, parent, priority: rand(5), dependsOn: live.filter(() => rand(10) === 0), assignee})
        ids.push(plan.result.task.id)
      } else if (op === 2) plan = claimTask(snap, ctx('bob'), {id: pick(live)!})
      else if (op === 3) plan = finishTask(snap, ctx('bob'), {id: pick(live)!})
      else if (op === 4) plan = removeTask(snap, ctx('alice'), {id: pick(live)!})
      else if (op === 7) plan = assignTask(snap, ctx('alice'), {id: pick(live)!, assignee: pick(['bob', 'carol', null]) ?? null})
      else {
        const id = pick(live)!
        plan = setDependencies(snap, ctx('alice'), {id, deps: live.filter((d) => d !== id && rand(8) === 0)})
      }
    } catch (e) {
      if (!(e instanceof TasksError)) throw e
      plan = undefined
    }
    if (plan && plan.changes.length > 0) {
      const commit = await store.writePlan(loaded, plan, 'alice', ctx().now)
      expect((await store.compareAndSwap(commit, loaded.index.commit, 'step')).ok).toBe(true)
    }
  }
  store.close()
}

/**
 * Load through the cache file as it is now (a new process would), then
 * write the cache from that index (copying the old file's unchanged lines
 * when it came from one) and return the answers and the file.
 */
async function loadAs(dir: string): Promise<{answers: ReturnType<typeof answers>; file: string}> {
  const store = await ListStore.open(dir, 'main')
  const loaded = await store.loadCommit(store.tip!, false)
  writeCachedIndex(store.repo.commonDir, loaded.index, loaded.snapshot)
  const result = {answers: answers(loaded.snapshot), file: readFileSync(cachePath(store.repo.commonDir, 'main'), 'utf8')}
  store.close()
  // The file just written, read back as the next process would (tables read from the file itself), answers the same.
  const again = readCachedIndex(`${dir}/.git`, 'main')
  expect(again?.commit).toBe(loaded.index.commit)
  expect(answers(snapshotOf(again!))).toEqual(result.answers)
  return result
}

describe('index brought up to date from far behind', () => {
  it('equals a cold build, in answers and in the file it writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({min: 1, max: 2 ** 30}), fc.integer({min: 20, max: 60}), async (seed, behind) => {
        const dir = makeRepo()
        const store = await ListStore.open(dir, 'main')
        await store.init()
        store.close()
        const ids: string[] = []
        await mutate(dir, 20, seed, ids)
        await loadAs(dir)
        // A cache this old stays behind while many commits land (another clone's history arriving).
        const stale = readFileSync(cachePath(`${dir}/.git`, 'main'))
        await mutate(dir, behind, seed + 1, ids)
        writeFileSync(cachePath(`${dir}/.git`, 'main'), stale)
        const caughtUp = await loadAs(dir)
        rmSync(cachePath(`${dir}/.git`, 'main'))
        const cold = await loadAs(dir)
        expect(caughtUp.answers).toEqual(cold.answers)
        expect(caughtUp.file).toBe(cold.file)
        // And straight from the stale file, without persisting: the overlay answers the same.
        writeFileSync(cachePath(`${dir}/.git`, 'main'), stale)
        const s2 = await ListStore.open(dir, 'main')
        const overlay = await s2.loadCommit(s2.tip!, false)
        expect(answers(overlay.snapshot)).toEqual(cold.answers)
        s2.close()
      }),
      {numRuns: 3},
    )
  }, 120_000)
})

describe.runIf(process.env.TASKS_SCALE === '1')('index at 100,000 tasks (TASKS_SCALE=1)', () => {
  it('a cache as old as init, brought forward, equals a cold build (times printed, not asserted: the machine is shared)', async () => {
    const {seed} = await import('../../bench/seed')
    const dir = makeRepo()
    const size = Number(process.env.TASKS_SCALE_SIZE ?? 100_000)
    await seed({cwd: dir, count: size, actor: 'bench-agent', reserve: 5})
    // The seeder's own first load wrote the cache of the empty list (as `init` and a first read would).
    const empty = readFileSync(cachePath(`${dir}/.git`, 'main'))
    expect(empty.toString('utf8')).toContain('"count":0,')
    const timed = async (fromCache: boolean) => {
      const s = await ListStore.open(dir, 'main')
      const cached = fromCache ? readCachedIndex(`${dir}/.git`, 'main') : null
      const t0 = performance.now()
      const index = await updateIndex(s.reader, 'sha1', 'main', s.tip!, cached)
      const ms = performance.now() - t0
      const result = answers(snapshotOf(index))
      s.close()
      return {ms, result}
    }
    const behind = await timed(true)
    const cold = await timed(false)
    expect(behind.result.size).toBe(size)
    expect(behind.result).toEqual(cold.result)
    // The file written each way is the same too.
    writeFileSync(cachePath(`${dir}/.git`, 'main'), empty)
    const caughtUp = await loadAs(dir)
    rmSync(cachePath(`${dir}/.git`, 'main'))
    const fresh = await loadAs(dir)
    expect(caughtUp.file).toBe(fresh.file)
    process.stderr.write(`index-scale: ${size} tasks: from a cache as old as init ${Math.round(behind.ms)} ms, cold ${Math.round(cold.ms)} ms (in-process, load ${(await import('node:os')).loadavg()[0]!.toFixed(1)})\n`)
  }, 900_000)
})
