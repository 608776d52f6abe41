/**
 * The index at scale: whatever path brings it up to date (no cache, a cache
 * one commit behind, a cache hundreds of changes behind), the answers and
 * the file written are the same as a cold build. A small property run is in
 * the default suite; `TASKS_SCALE=1` adds one run at 100,000 tasks (seeded
 * by bench/seed.ts in one commit, then a cache as old as `init`).
 */
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {ListStore, persistAfterChanges} from '../../src/refstore/list-store'
import {type IndexedTask, cachePath, deltaPath, readCachedIndex, snapshotOf, updateIndex, writeCachedIndex} from '../../src/refstore/task-index'
import {type OpenRowColumns, type OpenRows, type Snapshot, openRowColumns, tablesOf} from '../../src/core/snapshot'
import {TasksError} from '../../src/core/errors'
import {finishTask} from '../../src/core/ops/lifecycle'
import {removeTask} from '../../src/core/ops/remove'
import {assignTask, editTask, setDependencies} from '../../src/core/ops/edit'
import {addTask} from '../../src/core/ops/add'
import {claimTask} from '../../src/core/ops/claim'
import {gitSync, makeRepo, run} from '../helpers/cli'
import {ctx} from '../helpers/snapshot'
import {initializedRepo, seededRandom} from '../helpers/list-repo'

/** The open rows as plain values (the cache file's are read from packed columns). */
function openRowsOf(o: OpenRows) {
  return {rows: [...o.rows], finished: o.finished, broken: [...o.broken]}
}

/** Every field of every open row read through the columns, as `list` reads them. */
function columnsOf(c: OpenRowColumns) {
  return Array.from({length: c.length}, (_, i) => [c.id(i), c.status(i), c.priority(i), c.created(i), c.owner(i), c.assignee(i), c.leaseEnd(i), c.flags(i), c.parentRow(i), c.parent(i), c.leaseText(i), c.titleHash(i)])
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
    // The front of the lease table as the sweep reads it, at limits around every lease end (and none, and all).
    before: leaseLimits(t.leases()).map((limit) => {
      const front = t.leasesBefore ? [...t.leasesBefore(limit)] : t.leases().filter((r) => r[1] < limit)
      expect(front).toEqual(t.leases().filter((r) => r[1] < limit))
      return front
    }),
  }
}

function leaseLimits(rows: readonly (readonly [string, number])[]): number[] {
  const ends = [...new Set(rows.map((r) => r[1]))]
  return [Number.NEGATIVE_INFINITY, 0, ...ends.slice(0, 10).flatMap((ms) => [ms, ms + 1]), ...ends.slice(-3), Number.POSITIVE_INFINITY, Number.NaN]
}

/** Random single-op commits (add with parents, dependencies and assignees, claim, done, rm, deps, assign, retitle), as separate processes would make them. */
async function mutate(dir: string, steps: number, seed: number, ids: string[]): Promise<void> {
  const {rand, pick} = seededRandom(seed)
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
      else if (op === 4) plan = removeTask(snap, ctx('alice'), {id: pick(live)!, withSubitems: true})
      else if (op === 7) plan = assignTask(snap, ctx('alice'), {id: pick(live)!, assignee: pick(['bob', 'carol', null]) ?? null})
      // A retitle: the row's title hash must follow it through a catch-up as through a cold build.
      else if (op === 6 && rand(2) === 0) plan = editTask(snap, ctx('alice'), {id: pick(live)!, title: `retitled ${seed}-${step}`})
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
        const dir = await initializedRepo()
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
        expect(await answersFromFiles(dir)).toEqual(cold.answers)
      }),
      {numRuns: 3},
    )
  }, 120_000)
})

describe('a cache far behind most of the list', () => {
  it('is not carried forward: the whole list is read afresh, with the same answers and file as a cold build', async () => {
    const {seed} = await import('../../bench/seed')
    const dir = makeRepo()
    // 400 cards in one commit, after a cache of the empty list (as a clone whose cache is as old as `init` that
    // then fetches a large list): more cards to read than the old index holds.
    await seed({cwd: dir, count: 400, actor: 'bench-agent', reserve: 5})
    const empty = readFileSync(cachePath(`${dir}/.git`, 'main'))
    expect(empty.toString('utf8')).toContain('"count":0,')
    const s = await ListStore.open(dir, 'main')
    const fromEmpty = await updateIndex(s.reader, 'sha1', 'main', s.tip!, readCachedIndex(`${dir}/.git`, 'main'))
    s.close()
    // Read afresh: held in memory with no changes over the old file (carried forward, it would be the file's base and 400 changes).
    expect(fromEmpty.changes.size).toBe(0)
    expect(fromEmpty.base.tasks.size).toBe(400)
    expect(answers(snapshotOf(fromEmpty))).toEqual(await coldAnswers(dir))
    const caughtUp = await loadAs(dir)
    rmSync(cachePath(`${dir}/.git`, 'main'))
    expect((await loadAs(dir)).file).toBe(caughtUp.file)
    // A command that reads it so writes the cache file of the tip at once (not only a delta, which cannot continue the old file).
    writeFileSync(cachePath(`${dir}/.git`, 'main'), empty)
    const shown = await run(dir, ['list', '--json', '--limit', '1'])
    expect(shown.code).toBe(0)
    expect(readCachedIndex(`${dir}/.git`, 'main')?.commit).toBe(gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim())
    expect(readFileSync(cachePath(`${dir}/.git`, 'main'), 'utf8')).toBe(caughtUp.file)
    // A few changes on a cache of the whole list are still carried forward over the file.
    await mutate(dir, 5, 7, [...fromEmpty.base.tasks.keys()].slice(0, 50))
    const s2 = await ListStore.open(dir, 'main')
    const near = await updateIndex(s2.reader, 'sha1', 'main', s2.tip!, readCachedIndex(`${dir}/.git`, 'main'))
    s2.close()
    expect(near.changes.size).toBeGreaterThan(0)
    expect(near.changes.size).toBeLessThan(20)
    expect(answers(snapshotOf(near))).toEqual(await coldAnswers(dir))
  }, 120_000)

  it('holding a few tasks, with more cards to read than it holds, is not carried forward either', async () => {
    const {seed} = await import('../../bench/seed')
    const dir = await initializedRepo()
    const ids: string[] = []
    await mutate(dir, 3, 11, ids)
    await loadAs(dir)
    const few = readCachedIndex(`${dir}/.git`, 'main')!
    expect(few.base.tasks.size).toBeGreaterThan(0)
    await seed({cwd: dir, count: 400, actor: 'bench-agent', reserve: 5})
    const s = await ListStore.open(dir, 'main')
    const caught = await updateIndex(s.reader, 'sha1', 'main', s.tip!, readCachedIndex(`${dir}/.git`, 'main'))
    s.close()
    expect(caught.changes.size).toBe(0)
    expect(caught.base.tasks.size).toBe(few.base.tasks.size + 400)
    expect(answers(snapshotOf(caught))).toEqual(await coldAnswers(dir))
  }, 120_000)
})

/** The answers of a cold build at the tip (no cache file, no delta), leaving the files as they were. */
async function coldAnswers(dir: string): Promise<ReturnType<typeof answers>> {
  const s = await ListStore.open(dir, 'main')
  const index = await updateIndex(s.reader, 'sha1', 'main', s.tip!, null)
  const result = answers(snapshotOf(index))
  s.close()
  return result
}

/** Load as a new process would (the cache file and its delta, brought to the tip), without writing anything. */
async function answersFromFiles(dir: string): Promise<ReturnType<typeof answers>> {
  const s = await ListStore.open(dir, 'main')
  const loaded = await s.loadCommit(s.tip!, false)
  const result = answers(loaded.snapshot)
  s.close()
  return result
}

describe('the delta beside the cache file', () => {
  it('lets each new process start one commit behind, and answers like a cold build', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({min: 1, max: 2 ** 30}), fc.integer({min: 2, max: 24}), async (seed, steps) => {
        const dir = await initializedRepo()
        const git = `${dir}/.git`
        const ids: string[] = []
        await mutate(dir, 12, seed, ids)
        await loadAs(dir)
        // One mutation per "process": each opens the store afresh, so it reads the file and the delta.
        for (let i = 0; i < steps; i++) {
          const before = gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()
          await mutate(dir, 1, seed + 7 * i + 1, ids)
          const read = readCachedIndex(git, 'main')!
          // The load of that mutation left the index at the commit it built on: the file's, or the delta's.
          expect(read.commit).toBe(before)
          expect(answers(snapshotOf(read))).toEqual(await answersAt(dir, before))
          expect(await answersFromFiles(dir)).toEqual(await coldAnswers(dir))
        }
        // The cache file written from the file and its delta is the cold build's, byte for byte.
        const viaDelta = await loadAs(dir)
        rmSync(cachePath(git, 'main'))
        rmSync(deltaPath(git, 'main'), {force: true})
        const cold = await loadAs(dir)
        expect(viaDelta.file).toBe(cold.file)
      }),
      {numRuns: 3},
    )
  }, 120_000)

  it('is ignored when it is damaged, torn or written for another cache file, and set aside when its trees are gone', async () => {
    const dir = await initializedRepo()
    const git = `${dir}/.git`
    const ids: string[] = []
    await mutate(dir, 20, 11, ids)
    await loadAs(dir)
    const fileCommit = readCachedIndex(git, 'main')!.commit
    await mutate(dir, 3, 12, ids)
    const good = readFileSync(deltaPath(git, 'main'))
    const deltaCommit = readCachedIndex(git, 'main')!.commit
    expect(deltaCommit).not.toBe(fileCommit)
    const cold = await coldAnswers(dir)
    const text = good.toString('utf8')
    const nl1 = text.indexOf('\n')
    const nl2 = text.indexOf('\n', nl1 + 1)
    const header = JSON.parse(text.slice(nl1 + 1, nl2)) as {shards: Record<string, string>; count: number}
    expect(header.count).toBeGreaterThan(0)
    const damaged: Record<string, Buffer | string> = {
      truncated: good.subarray(0, good.length - 7),
      'a byte changed in a line': Buffer.from(text.slice(0, nl2 + 1) + text.slice(nl2 + 1).replace(/"/, "'")),
      'another cache file': text.replace(fileCommit, 'f'.repeat(40)),
      'not JSON': text.slice(0, nl1 + 1) + '{"list":\n',
      empty: '',
      'another format': text.replace(/^git-tasks index \d+/, 'git-tasks index 1'),
      'absent names an id that did not change': text.slice(0, nl1 + 1) + JSON.stringify({...header, absent: ['tsk-0000000000']}) + text.slice(nl2),
    }
    for (const [what, content] of Object.entries(damaged)) {
      writeFileSync(deltaPath(git, 'main'), content)
      expect(readCachedIndex(git, 'main')!.commit, what).toBe(fileCommit)
      expect(await answersFromFiles(dir), what).toEqual(cold)
    }
    // A delta whose shard trees are no longer in the repository: the index comes from the cache file alone.
    const shard = Object.keys(header.shards)[0]!
    const gone = {...header, shards: {...header.shards, [shard]: '0123456789abcdef0123456789abcdef01234567'}}
    writeFileSync(deltaPath(git, 'main'), text.slice(0, nl1 + 1) + JSON.stringify(gone) + text.slice(nl2))
    expect(readCachedIndex(git, 'main')!.commit).toBe(deltaCommit)
    expect(await answersFromFiles(dir)).toEqual(cold)
    // Writing the whole cache file leaves the delta stale: it is then ignored.
    writeFileSync(deltaPath(git, 'main'), good)
    const s = await ListStore.open(dir, 'main')
    const loaded = await s.loadCommit(s.tip!, false)
    writeCachedIndex(s.repo.commonDir, loaded.index, loaded.snapshot)
    s.close()
    expect(readCachedIndex(git, 'main')!.commit).toBe(gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim())
    expect(await answersFromFiles(dir)).toEqual(cold)
  }, 60_000)

  it('carries about √n changes of a larger list, saying which changed ids the file lacks, before the file is rewritten', async () => {
    const {seed} = await import('../../bench/seed')
    const dir = makeRepo()
    const git = `${dir}/.git`
    await seed({cwd: dir, count: 400, actor: 'alice', reserve: 0})
    expect(persistAfterChanges(400)).toBe(20)
    expect([persistAfterChanges(0), persistAfterChanges(10_000), persistAfterChanges(100_000), persistAfterChanges(10_000_000)]).toEqual([16, 100, 317, 512])
    rmSync(cachePath(git, 'main'))
    const first = await loadAs(dir)
    const fileCommit = gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()
    const inFile = new Set(first.answers.all.map(([id]) => id as string))
    const ids = [...inFile]
    let most = 0
    for (let i = 0; ; i++) {
      expect(i, 'the file was never rewritten').toBeLessThan(60)
      await mutate(dir, 1, 500 + i, ids)
      // The next process's load: it writes the delta, or the whole file once the changes passed the threshold.
      const s = await ListStore.open(dir, 'main')
      const loaded = await s.load()
      s.close()
      const cacheHeader = JSON.parse(readFileSync(cachePath(git, 'main'), 'utf8').split('\n', 2)[1]!) as {commit: string}
      if (cacheHeader.commit !== fileCommit) {
        // Rewritten: only once the changes passed the threshold, and the new file answers like a cold build.
        expect(most).toBeGreaterThan(16)
        expect(most).toBeLessThanOrEqual(20)
        expect(loaded.index.commit).toBe(gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim())
        break
      }
      const delta = readFileSync(deltaPath(git, 'main'), 'utf8').split('\n', 2)
      expect(delta[0]!.endsWith(fileCommit)).toBe(true)
      const header = JSON.parse(delta[1]!) as {absent: string[]}
      const read = readCachedIndex(git, 'main')!
      most = Math.max(most, read.changes.size)
      expect([...header.absent].sort()).toEqual([...read.changes.keys()].filter((id) => !inFile.has(id)).sort())
      if (i % 4 === 0) expect(await answersFromFiles(dir)).toEqual(await coldAnswers(dir))
    }
    expect(await answersFromFiles(dir)).toEqual(await coldAnswers(dir))
  }, 120_000)

  it('is brought to the tip by the command that committed, from the objects it wrote (CLI)', async () => {
    const dir = makeRepo()
    const git = `${dir}/.git`
    const env = {TASKS_ACTOR: 'alice', TASKS_OFFLINE: '1'}
    expect((await run(dir, ['init'], {env})).code).toBe(0)
    const ids: string[] = []
    for (let i = 0; i < 4; i++) {
      const r = await run(dir, ['add', `item ${i}`, '--json', ...(i > 1 ? ['--parent', ids[0]!] : [])], {env})
      expect(r.code, r.stderr).toBe(0)
      ids.push(JSON.parse(r.stdout).task.id)
    }
    expect((await run(dir, ['list', '--json'], {env})).code).toBe(0)
    const steps: string[][] = [['claim', ids[1]!], ['deps', ids[3]!, ids[1]!], ['done', ids[1]!], ['add', 'late', '--parent', ids[0]!], ['comment', ids[2]!, 'a note'], ['release', '--all']]
    for (const args of steps) {
      const r = await run(dir, args, {env})
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      const tip = gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()
      const read = readCachedIndex(git, 'main')!
      expect(read.commit, args.join(' ')).toBe(tip)
      expect(answers(snapshotOf(read)), args.join(' ')).toEqual(await answersAt(dir, tip))
    }
  }, 60_000)

  it('stays correct with writers racing (separate processes)', async () => {
    const dir = makeRepo()
    const git = `${dir}/.git`
    const env = {TASKS_ACTOR: 'alice', TASKS_OFFLINE: '1'}
    expect((await run(dir, ['init'], {env})).code).toBe(0)
    for (let i = 0; i < 6; i++) expect((await run(dir, ['add', `seed ${i}`], {env})).code).toBe(0)
    // The cache file is written (a read with no file), then rounds of writers race, each process reading and writing the delta.
    expect((await run(dir, ['list', '--json'], {env})).code).toBe(0)
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(Array.from({length: 5}, (_, k) => run(dir, ['add', `round ${round} item ${k}`], {env})))
      for (const r of results) expect(r.code, r.stderr).toBe(0)
    }
    const claims = await Promise.all(Array.from({length: 4}, () => run(dir, ['next', '--another'], {env: {...env, TASKS_ACTOR: 'bob'}})))
    for (const r of claims) expect(r.code, r.stderr).toBe(0)
    expect(existsSync(deltaPath(git, 'main'))).toBe(true)
    const read = readCachedIndex(git, 'main')!
    expect(read.changes.size).toBeGreaterThan(0)
    expect(answers(snapshotOf(read))).toEqual(await answersAt(dir, read.commit))
    expect(await answersFromFiles(dir)).toEqual(await coldAnswers(dir))
  }, 60_000)
})

/** The answers of a cold build at `commit`. */
async function answersAt(dir: string, commit: string): Promise<ReturnType<typeof answers>> {
  const s = await ListStore.open(dir, 'main')
  const index = await updateIndex(s.reader, 'sha1', 'main', commit, null)
  const result = answers(snapshotOf(index))
  s.close()
  return result
}

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
