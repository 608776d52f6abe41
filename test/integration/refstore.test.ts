/**
 * The in-process object writer and tree editor against real git: ids equal
 * what git computes, objects pass `git fsck`, and the incremental index
 * cache always equals a cold rebuild.
 */
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {LooseObjectWriter, decodeTree, encodeTree, hashObject} from '../../src/refstore/git-objects'
import {ObjectReader} from '../../src/refstore/object-reader'
import {TreeBuilder} from '../../src/refstore/tree-builder'
import {ListStore} from '../../src/refstore/list-store'
import {cachePath} from '../../src/refstore/task-index'
import {addTask} from '../../src/core/ops/add'
import {claimTask} from '../../src/core/ops/claim'
import {gitSync, makeRepo} from '../helpers/cli'
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
    expect(decodeTree(Buffer.from(gitSync(dir, ['cat-file', 'tree', tree], undefined), 'latin1'), 'sha1').length).toBe(3)
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
    expect(warm.index.sortedIds).toEqual(cold.index.sortedIds)
    const view = (l: typeof warm) => l.index.sortedIds.map((id) => [id, l.index.tasks.get(id)!.dir, l.index.tasks.get(id)!.meta])
    expect(view(warm)).toEqual(view(cold))
    expect(warm.snapshot.tasks.size).toBe(30)
    store.close()
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
    // Every mutation is exactly one commit on the ref, plus the root.
    expect(gitSync(dir, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe(String(1 + 30 + 5)) // root, 30 adds, a claim and four lease renewals
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
