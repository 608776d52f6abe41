/**
 * The in-process object writer and tree editor against real git: ids equal
 * what git computes, objects pass `git fsck`, and the incremental index
 * cache always equals a cold rebuild.
 */
import {execFileSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {inflateSync} from 'node:zlib'
import {readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {LooseObjectWriter, decodeTree, encodeTree, hashObject, storedZlib} from '../../src/refstore/git-objects'
import {ObjectReader} from '../../src/refstore/object-reader'
import {TreeBuilder} from '../../src/refstore/tree-builder'
import {ListStore, persistAfterChanges} from '../../src/refstore/list-store'
import {configStamp} from '../../src/refstore/repository'
import {type IndexedTask, cachePath, readCachedIndex, snapshotOf, updateIndex} from '../../src/refstore/task-index'
import {type Snapshot, tablesOf} from '../../src/core/snapshot'
import {TasksError} from '../../src/core/errors'
import {finishTask} from '../../src/core/ops/lifecycle'
import {removeTask} from '../../src/core/ops/remove'
import {setDependencies} from '../../src/core/ops/edit'
import {addTask} from '../../src/core/ops/add'
import {claimTask} from '../../src/core/ops/claim'
import {TEST_ENV, gitSync, makeRepo} from '../helpers/cli'
import {ctx} from '../helpers/snapshot'

describe('git objects written in-process', () => {
  it('hash like git and pass fsck', async () => {
    const dir = makeRepo()
    const writer = new LooseObjectWriter(join(dir, '.git', 'objects'), 'sha1')
    const blob = writer.write('blob', 'hello\n')
    expect(blob).toBe(gitSync(dir, ['hash-object', '--stdin'], 'hello\n').trim())
    expect(hashObject('sha1', 'blob', Buffer.from('hello\n'))).toBe(blob)
    const entries = [
      {mode: '100644', name: 'b.md', oid: blob},
      {mode: '40000', name: 'a', oid: gitSync(dir, ['mktree'], `100644 blob ${blob}\tx\n`).trim()},
      {mode: '100644', name: 'a.md', oid: blob},
    ]
    const tree = writer.write('tree', encodeTree(entries))
    const viaGit = gitSync(dir, ['mktree'], entries.map((e) => `${e.mode === '40000' ? '040000 tree' : '100644 blob'} ${e.oid}\t${e.name}\n`).join('')).trim()
    expect(tree).toBe(viaGit)
    // The raw bytes: object ids in a tree are binary, so not through a UTF-8 string.
    const raw = execFileSync('git', ['cat-file', 'tree', tree], {cwd: dir, env: TEST_ENV})
    expect(decodeTree(raw, 'sha1')).toEqual([
      {mode: '100644', name: 'a.md', oid: blob},
      {mode: '40000', name: 'a', oid: entries[1]!.oid},
      {mode: '100644', name: 'b.md', oid: blob},
    ])
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
  })

  it('edits trees by path, dropping empty directories', async () => {
    const dir = makeRepo()
    const reader = new ObjectReader(dir)
    const writer = new LooseObjectWriter(join(dir, '.git', 'objects'), 'sha1')
    const tb = new TreeBuilder(reader, writer, null)
    await tb.setFile('x/y/z.md', 'z\n')
    await tb.setFile('x/w.md', 'w\n')
    await tb.setFile('top.md', 't\n')
    const t1 = await tb.write()
    expect(gitSync(dir, ['ls-tree', '-r', '--name-only', t1]).trim().split('\n')).toEqual(['top.md', 'x/w.md', 'x/y/z.md'])
    const tb2 = new TreeBuilder(reader, writer, t1)
    expect(await tb2.remove('x/y')).toBe(true)
    await tb2.setFile('x/w.md', 'changed\n')
    const t2 = await tb2.write()
    expect(gitSync(dir, ['ls-tree', '-r', '--name-only', t2]).trim().split('\n')).toEqual(['top.md', 'x/w.md'])
    const tb3 = new TreeBuilder(reader, writer, t2)
    await tb3.remove('x/w.md')
    expect(gitSync(dir, ['ls-tree', '-r', '--name-only', await tb3.write()]).trim()).toBe('top.md')
    reader.close()
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
  })
})

describe('task index cache', () => {
  it('an incrementally updated index equals a cold rebuild', async () => {
    const dir = makeRepo()
    const store = await ListStore.open(dir, 'main')
    await store.init()
    const ids: string[] = []
    for (let i = 0; i < 30; i++) {
      const loaded = await store.load()
      const plan = addTask(loaded.snapshot, ctx('alice'), {title: `t${i}`, dependsOn: ids.slice(-2)})
      const commit = await store.writePlan(loaded, plan, 'alice', ctx().now)
      expect((await store.compareAndSwap(commit, loaded.index.commit, 'add')).ok).toBe(true)
      ids.push(plan.result.task.id)
      if (i % 7 === 0) {
        const l2 = await store.load()
        const p2 = claimTask(l2.snapshot, ctx('bob'), {id: ids[0]!})
        if (p2.changes.length) {
          const c2 = await store.writePlan(l2, p2, 'bob', ctx().now)
          expect((await store.compareAndSwap(c2, l2.index.commit, 'claim')).ok).toBe(true)
        }
      }
    }
    const warm = await store.load()
    rmSync(cachePath(store.repo.commonDir, 'main'))
    const cold = await store.load()
    expect(warm.index.shards).toEqual(cold.index.shards)
    const view = (l: typeof warm) => {
      const tables = tablesOf(l.snapshot)
      return tables.sortedIds().map((id) => {
        const t = l.snapshot.tasks.get(id) as IndexedTask
        return [id, t.dir, t.meta, tables.children(id), tables.dependents(id)]
      })
    }
    expect(view(warm)).toEqual(view(cold))
    expect(warm.snapshot.tasks.size).toBe(30)
    store.close()
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
    // Every mutation is exactly one commit on the ref, plus the root.
    expect(gitSync(dir, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe(String(1 + 30 + 5)) // root, 30 adds, a claim and four lease renewals
  })

  it('a cache file read in place and brought forward answers like a cold rebuild', async () => {
    const dir = makeRepo()
    const first = await ListStore.open(dir, 'main')
    await first.init()
    first.close()
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return Math.floor((seed / 2147483648) * n) // the high bits: an LCG's low bits cycle
    }
    const pick = <T>(xs: readonly T[]): T | undefined => xs[rand(Math.max(xs.length, 1))]
    const ids: string[] = []
    const persisted = new Set<string>()
    const committed = new Map<string, number>()
    for (let step = 0; step < 100; step++) {
      // A new store per step, as a new process: the index comes from the file.
      const store = await ListStore.open(dir, 'main')
      const loaded = await store.load()
      // The file never falls further behind than the threshold (16 on a list this small) plus one commit (an rm may take sub-items along).
      expect(loaded.index.changes.size).toBeLessThanOrEqual(persistAfterChanges(loaded.index.base.tasks.size) + 3)
      const snap = loaded.snapshot
      const live = ids.filter((id) => snap.tasks.has(id))
      const op = step < 12 ? 0 : rand(6)
      let plan
      try {
        if (op === 0 || op === 5) {
          const parent = rand(3) === 0 ? live.find((id) => !snap.tasks.get(id)!.parent) : undefined
          plan = addTask(snap, ctx('alice'), {title: `t${step}`, parent, dependsOn: live.filter(() => rand(8) === 0)})
          ids.push(plan.result.task.id)
        } else if (op === 1) plan = claimTask(snap, ctx('bob'), {id: pick(live) ?? 'tsk-0000'})
        else if (op === 2) plan = finishTask(snap, ctx('bob'), {id: pick(live) ?? 'tsk-0000'})
        else if (op === 3) plan = removeTask(snap, ctx('alice'), {id: pick(live) ?? 'tsk-0000', withSubitems: true})
        else {
          const id = pick(live) ?? 'tsk-0000'
          plan = setDependencies(snap, ctx('alice'), {id, deps: live.filter((d) => d !== id && rand(6) === 0)})
        }
      } catch (e) {
        // Not allowed in this state (a refusal with a code): fine, try another step. Anything else is a bug.
        if (!(e instanceof TasksError)) throw e
        plan = undefined
      }
      if (plan && plan.changes.length > 0) {
        committed.set(plan.op, (committed.get(plan.op) ?? 0) + 1)
        const commit = await store.writePlan(loaded, plan, 'alice', ctx().now)
        expect((await store.compareAndSwap(commit, loaded.index.commit, 'step')).ok).toBe(true)
      }
      store.close()
      const file = readFileSync(cachePath(dir + '/.git', 'main'), 'utf8')
      persisted.add(file.split('\n')[1]!)
      if (step % 5 !== 4) continue
      const warmStore = await ListStore.open(dir, 'main')
      const warm = await warmStore.load()
      const cold = await updateIndex(warmStore.reader, 'sha1', 'main', warm.index.commit, null)
      const answers = (s: Snapshot) => {
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
        }
      }
      expect(answers(warm.snapshot)).toEqual(answers(snapshotOf(cold)))
      warmStore.close()
    }
    // Every kind of change was exercised.
    expect(Object.fromEntries(committed), 'commits by op').toEqual(expect.objectContaining({add: expect.any(Number), claim: expect.any(Number), done: expect.any(Number), rm: expect.any(Number), deps: expect.any(Number)}))
    // The file was rewritten along the way (catch-ups past the threshold), not only at the first read.
    expect(persisted.size).toBeGreaterThan(2)
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
  })

  it('a torn or foreign cache file is rebuilt, never half-used', async () => {
    const dir = makeRepo()
    const store = await ListStore.open(dir, 'main')
    await store.init()
    for (let i = 0; i < 5; i++) {
      const loaded = await store.load()
      const plan = addTask(loaded.snapshot, ctx('alice'), {title: `t${i}`})
      expect((await store.compareAndSwap(await store.writePlan(loaded, plan, 'alice', ctx().now), loaded.index.commit, 'add')).ok).toBe(true)
    }
    store.close()
    const file = cachePath(join(dir, '.git'), 'main')
    const fresh = async () => {
      const s = await ListStore.open(dir, 'main')
      const l = await s.load()
      s.close()
      return tablesOf(l.snapshot).sortedIds().map((id) => l.snapshot.tasks.get(id)!.meta!.title)
    }
    const titles = await fresh()
    expect(titles).toHaveLength(5)
    const whole = readFileSync(file)
    const tip = gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()
    for (const broken of [whole.subarray(0, whole.length - 40), Buffer.from('git-tasks index 3\n{}\n'), Buffer.from('not an index')]) {
      writeFileSync(file, broken)
      expect(await fresh()).toEqual(titles)
      expect(readCachedIndex(join(dir, '.git'), 'main')?.commit).toBe(tip) // and written again whole
    }
  })

  it('a compare-and-swap against a stale old value is refused and moves nothing', async () => {
    const dir = makeRepo()
    const store = await ListStore.open(dir, 'main')
    const {commit: root} = await store.init()
    const loaded = await store.load()
    const plan = addTask(loaded.snapshot, ctx(), {title: 'a'})
    const c1 = await store.writePlan(loaded, plan, 'alice', ctx().now)
    expect((await store.compareAndSwap(c1, root, 'add')).ok).toBe(true)
    const c2 = await store.writePlan(loaded, addTask(loaded.snapshot, ctx(), {title: 'b'}), 'alice', ctx().now)
    const lost = await store.compareAndSwap(c2, root, 'add')
    expect(lost.ok).toBe(false)
    expect(gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()).toBe(c1)
    store.close()
  })
})

describe('a long-lived store (tasks mcp)', () => {
  it('answers reads of ids it wrote or read from memory, within its byte budget', async () => {
    const dir = makeRepo()
    const reader = new ObjectReader(dir)
    const writer = new LooseObjectWriter(join(dir, '.git', 'objects'), 'sha1')
    reader.keepObjects(160) // objects up to 10 bytes are kept, 160 bytes in all
    writer.onWrite = (oid, type, content) => reader.remember(oid, type, content)
    const looseFile = (oid: string) => join(dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2))
    const first = writer.write('blob', 'first\n')
    const big = writer.write('blob', 'more than ten bytes\n')
    rmSync(looseFile(first))
    rmSync(looseFile(big))
    // Gone from disk: the kept copy answers (no cat-file round trip); the large one was not kept.
    expect((await reader.read(first))?.content.toString()).toBe('first\n')
    expect(await reader.read(big)).toBeNull()
    expect(await reader.read(first, 3)).toMatchObject({oid: first, oversized: true, size: 6})
    // Past the budget the least recently used go first.
    const later: string[] = []
    for (let i = 0; i < 20; i++) later.push(writer.write('blob', `b${String(i).padStart(6, '0')}\n`))
    expect(await reader.read(first)).toBeNull()
    expect((await reader.read(later[19]!))?.content.toString()).toBe('b000019\n')
    // Objects read by id from git are kept too; names through refs or paths are always asked.
    const other = gitSync(dir, ['hash-object', '-w', '--stdin'], 'from git\n').trim()
    expect((await reader.read(other))?.content.toString()).toBe('from git\n')
    rmSync(looseFile(other))
    expect((await reader.read(other))?.content.toString()).toBe('from git\n')
    reader.close()
  })

  it('reads its tip from the loose ref file when it knows the commit, and from git otherwise', async () => {
    const dir = makeRepo()
    const store = await ListStore.open(dir, 'main')
    await store.init()
    await store.keepAlive()
    const loaded = await store.load()
    const plan = addTask(loaded.snapshot, ctx('alice'), {title: 'kept'})
    const mine = await store.writePlan(loaded, plan, 'alice', ctx().now)
    expect((await store.compareAndSwap(mine, loaded.index.commit, 'add')).ok).toBe(true)
    expect(await store.refreshTip()).toBe(mine)
    // Moved by another process to a commit this one never saw, and back; then packed (no loose file).
    const other = gitSync(dir, ['commit-tree', `${mine}^{tree}`, '-p', mine, '-m', 'elsewhere']).trim()
    gitSync(dir, ['update-ref', 'refs/tasks/main', other])
    expect(await store.refreshTip()).toBe(other)
    gitSync(dir, ['update-ref', 'refs/tasks/main', mine])
    expect(await store.refreshTip()).toBe(mine)
    gitSync(dir, ['pack-refs', '--all'])
    expect(await store.refreshTip()).toBe(mine)
    gitSync(dir, ['update-ref', '-d', 'refs/tasks/main'])
    expect(await store.refreshTip()).toBeNull()
    store.close()
  })

  it('rewrites the index cache file when idle or closed, not within a load', async () => {
    const dir = makeRepo()
    const store = await ListStore.open(dir, 'main')
    await store.init()
    await store.load() // the first load writes the file
    await store.keepAlive()
    const fileCommit = () => readCachedIndex(store.repo.commonDir, 'main')?.commit
    const before = fileCommit()
    expect(before).toBe(store.tip)
    const beyond = persistAfterChanges(0) + 4 // a list this small: past the threshold
    for (let i = 0; i < beyond; i++) {
      const loaded = await store.load()
      const plan = addTask(loaded.snapshot, ctx('alice'), {title: `t${i}`})
      const commit = await store.writePlan(loaded, plan, 'alice', ctx().now)
      expect((await store.compareAndSwap(commit, loaded.index.commit, 'add')).ok).toBe(true)
    }
    const last = await store.load()
    expect(last.snapshot.tasks.size).toBe(beyond)
    // A short-lived process would have rewritten the file by now; this one has not yet.
    expect(fileCommit()).toBe(before)
    store.close()
    expect(fileCommit()).toBe(last.index.commit)
    // And the file answers like a cold rebuild.
    const fresh = await ListStore.open(dir, 'main')
    const warm = await fresh.load()
    rmSync(cachePath(fresh.repo.commonDir, 'main'))
    const cold = await fresh.load()
    expect([...tablesOf(warm.snapshot).sortedIds()]).toEqual([...tablesOf(cold.snapshot).sortedIds()])
    fresh.close()
  })
})

describe('the loose object writer: temporary files in the object directory, spare files for a long-lived writer', () => {
  const fanOuts = (objects: string) => readdirSync(objects).filter((n) => /^[0-9a-f]{2}$/.test(n))

  it('writes into a freshly packed repository (no fan-out directories): git reads every object back byte for byte', async () => {
    const dir = makeRepo()
    gitSync(dir, ['gc', '-q', '--prune=now'])
    const objects = join(dir, '.git', 'objects')
    expect(fanOuts(objects)).toEqual([])
    const writer = new LooseObjectWriter(objects, 'sha1')
    const contents = ['one\n', 'two\n', 'x'.repeat(70_000), '\u00e9t\u00e9 \u{1F600}\n']
    const oids = contents.map((c) => writer.write('blob', c))
    contents.forEach((c, i) => expect(execFileSync('git', ['cat-file', 'blob', oids[i]!], {cwd: dir, env: TEST_ENV}).equals(Buffer.from(c))).toBe(true))
    expect(readdirSync(objects).filter((f) => f.startsWith('tmp_obj_'))).toEqual([])
    expect(writer.objectsWritten).toBe(4)
    // Written again: already there, not counted.
    writer.write('blob', 'one\n')
    expect(writer.objectsWritten).toBe(4)
    gitSync(dir, ['fsck', '--strict'])
  })

  it('configStamp stays while the config files do, and changes when git rewrites one (a long-lived store then reads them again)', () => {
    const dir = makeRepo()
    const common = join(dir, '.git')
    const before = configStamp(common)
    expect(configStamp(common)).toBe(before)
    gitSync(dir, ['config', 'core.fsync', 'committed'])
    expect(configStamp(common)).not.toBe(before)
  })

  it('stored (uncompressed) objects are zlib streams git reads back byte for byte, whatever their size', async () => {
    for (const n of [0, 1, 100, 65_535 - 9, 65_535, 65_536, 70_000, 200_000]) {
      const header = Buffer.from(`blob ${n}\0`)
      const body = randomBytes(n)
      expect(inflateSync(storedZlib(header, body)).equals(Buffer.concat([header, body])), `${n} bytes`).toBe(true)
    }
    const dir = makeRepo()
    const writer = new LooseObjectWriter(join(dir, '.git', 'objects'), 'sha1')
    writer.stored = true
    const big = randomBytes(150_000)
    const oids = [writer.write('blob', 'small\n'), writer.write('blob', big), writer.write('tree', encodeTree([{mode: '100644', name: 'a', oid: hashObject('sha1', 'blob', Buffer.from('small\n'))}]))]
    expect(gitSync(dir, ['cat-file', 'blob', oids[0]!])).toBe('small\n')
    expect(execFileSync('git', ['cat-file', 'blob', oids[1]!], {cwd: dir, env: TEST_ENV, maxBuffer: 1 << 24}).equals(big)).toBe(true)
    expect(gitSync(dir, ['ls-tree', oids[2]!]).trim()).toBe(`100644 blob ${oids[0]}\ta`)
    gitSync(dir, ['fsck', '--strict'])
  })

  it('a long-lived writer fills spare files made ahead, makes every fan-out directory, and removes its spares on close', async () => {
    const dir = makeRepo()
    gitSync(dir, ['gc', '-q', '--prune=now'])
    const objects = join(dir, '.git', 'objects')
    const writer = new LooseObjectWriter(objects, 'sha1')
    await writer.prepareDirs()
    expect(fanOuts(objects)).toHaveLength(256)
    await writer.replenish()
    const spares = writer.spareCount
    expect(spares).toBeGreaterThan(4)
    expect(readdirSync(objects).filter((f) => f.startsWith('tmp_obj_'))).toHaveLength(spares)
    const blobs = Array.from({length: 3}, (_, i) => `spare ${i}\n`)
    const oids = blobs.map((b) => writer.write('blob', b))
    expect(writer.spareCount).toBe(spares - 3)
    blobs.forEach((b, i) => expect(gitSync(dir, ['cat-file', 'blob', oids[i]!])).toBe(b))
    // Written read-only, as git writes loose objects.
    expect(statSync(join(objects, oids[0]!.slice(0, 2), oids[0]!.slice(2))).mode & 0o777).toBe(0o444)
    // A spare someone removed meanwhile (an expiring sweep, `git prune --expire=now`): the write makes a new file.
    for (const f of readdirSync(objects).filter((n) => n.startsWith('tmp_obj_'))) rmSync(join(objects, f))
    const late = writer.write('blob', 'after the spares went\n')
    expect(gitSync(dir, ['cat-file', 'blob', late])).toBe('after the spares went\n')
    // A fan-out directory removed meanwhile (`git prune` removes empty ones): made again.
    const gone = writer.write('blob', 'probe\n').slice(0, 2)
    rmSync(join(objects, gone), {recursive: true})
    let i = 0
    while (hashObject('sha1', 'blob', Buffer.from(`again ${i}\n`)).slice(0, 2) !== gone) i++
    const again = writer.write('blob', `again ${i}\n`)
    expect(again.slice(0, 2)).toBe(gone)
    expect(gitSync(dir, ['cat-file', 'blob', again])).toBe(`again ${i}\n`)
    await writer.replenish()
    expect(writer.spareCount).toBeGreaterThan(0)
    writer.close()
    expect(readdirSync(objects).filter((f) => f.startsWith('tmp_obj_'))).toEqual([])
    gitSync(dir, ['fsck', '--strict'])
  })
})
