// Many objects at once go to disk as a pack and its index (pack-writer.ts): git must read them as its own.
import {execFileSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {copyFileSync, existsSync, readFileSync, readdirSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {type HashAlgorithm, LooseObjectWriter, type ObjectType, encodeCommit, encodeTree, hashObject} from '../../src/refstore/git-objects'
import {ListStore} from '../../src/refstore/list-store'
import {PackedObjects, writePackFiles} from '../../src/refstore/pack-writer'
import {taskFilePath} from '../../src/core/store-layout'
import {addTask} from '../../src/core/ops/add'
import {TEST_ENV, gitSync, makeRepo, run, tempDir} from '../helpers/cli'
import {ctx} from '../helpers/snapshot'

function repoWith(algorithm: HashAlgorithm): string {
  if (algorithm === 'sha1') return makeRepo()
  const dir = tempDir()
  gitSync(dir, ['init', '-q', '--object-format=sha256'])
  return dir
}

const packsIn = (dir: string) => readdirSync(join(dir, '.git', 'objects', 'pack')).filter((f) => f.endsWith('.pack'))
const looseIn = (dir: string) =>
  readdirSync(join(dir, '.git', 'objects'))
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .flatMap((d) => readdirSync(join(dir, '.git', 'objects', d)).map((f) => d + f))

describe('a pack written in-process', () => {
  for (const algorithm of ['sha1', 'sha256'] as const) {
    it(`is read by git as its own, with the very index git makes for it (${algorithm})`, () => {
      const dir = repoWith(algorithm)
      const objects: Array<{oid: string; type: ObjectType; body: Buffer}> = []
      const add = (type: ObjectType, body: Buffer) => {
        const oid = hashObject(algorithm, type, body)
        objects.push({oid, type, body})
        return oid
      }
      // Sizes that take one, two and three bytes of the entry header; an empty file; bytes that do not compress.
      const files = [Buffer.alloc(0), Buffer.from('hello\n'), Buffer.alloc(70_000, 'abc'), randomBytes(300_000), Buffer.from('x'.repeat(15))]
      const blobs = files.map((b) => add('blob', b))
      const tree = add('tree', encodeTree(blobs.map((oid, i) => ({mode: '100644', name: `f${i}`, oid}))))
      const commit = add('commit', encodeCommit({tree, parents: [], author: {name: 'A', email: 'a@example.com', time: 1_800_000_000}, message: 'packed\n'}))
      const paths = writePackFiles(join(dir, '.git', 'objects'), algorithm, objects)
      expect(readdirSync(join(dir, '.git', 'objects', 'pack')).some((f) => f.startsWith('tmp_'))).toBe(false)

      gitSync(dir, ['verify-pack', paths.idx])
      files.forEach((b, i) => expect(execFileSync('git', ['cat-file', 'blob', blobs[i]!], {cwd: dir, env: TEST_ENV}).equals(b)).toBe(true))
      gitSync(dir, ['update-ref', 'refs/heads/main', commit])
      expect(gitSync(dir, ['ls-tree', '--name-only', 'main']).trim().split('\n')).toEqual(files.map((_, i) => `f${i}`))
      gitSync(dir, ['fsck', '--strict', '--no-dangling'])
      // git's own index of the same pack, byte for byte (fan-out, order, CRC-32s, offsets, checksums).
      const copy = join(tempDir('pack-'), 'copy.pack')
      copyFileSync(paths.pack, copy)
      gitSync(dir, ['index-pack', '-o', `${copy}.idx`, copy])
      expect(readFileSync(`${copy}.idx`).equals(readFileSync(paths.idx))).toBe(true)
    })
  }

  it('holds a batch back, then writes it loose when small and as one pack when large', () => {
    const dir = makeRepo()
    const objectsDir = join(dir, '.git', 'objects')
    const writer = new LooseObjectWriter(objectsDir, 'sha1')
    const small = new PackedObjects(writer, 5)
    const a = small.write('blob', 'a\n')
    expect(small.write('blob', 'a\n')).toBe(a)
    small.write('blob', 'b\n')
    expect(looseIn(dir)).toEqual([])
    expect(small.content(a)?.toString()).toBe('a\n')
    small.finish()
    expect(looseIn(dir).sort()).toEqual([a, hashObject('sha1', 'blob', Buffer.from('b\n'))].sort())
    expect(packsIn(dir)).toEqual([])

    const large = new PackedObjects(writer, 5)
    const oids = Array.from({length: 8}, (_, i) => large.write('blob', `file ${i}\n`))
    large.finish()
    expect(packsIn(dir)).toHaveLength(1)
    expect(looseIn(dir)).toHaveLength(2)
    expect(writer.objectsWritten).toBe(10)
    for (const [i, oid] of oids.entries()) expect(gitSync(dir, ['cat-file', 'blob', oid])).toBe(`file ${i}\n`)
    // The objects go to disk with the writer's others before the ref moves (flush fsyncs the pack, its index and directory).
    expect(writer.pending).toBe(true)
    writer.flush(true)
    expect(writer.pending).toBe(false)

    // A batch larger than its memory budget writes a pack each time the budget fills, then the rest as a pack.
    const budget = new PackedObjects(writer, 2, 1000)
    const held = Array.from({length: 7}, (_, i) => budget.write('blob', `${i}`.repeat(400)))
    expect(packsIn(dir)).toHaveLength(3)
    // What went to a pack is let go (read from git from then on); the last one is still held.
    expect(budget.content(held[0]!)).toBeUndefined()
    expect(budget.content(held[6]!)?.toString()).toBe('6'.repeat(400))
    budget.finish()
    expect(packsIn(dir)).toHaveLength(4)
    for (let i = 0; i < 7; i++) expect(gitSync(dir, ['cat-file', 'blob', hashObject('sha1', 'blob', Buffer.from(`${i}`.repeat(400)))])).toBe(`${i}`.repeat(400))
    gitSync(dir, ['fsck', '--strict'])
  })

  it("removes a killed write's temporary pack files once they are old, and no others", () => {
    const dir = makeRepo()
    const packDir = join(dir, '.git', 'objects', 'pack')
    const old = Date.now() / 1000 - 2 * 3600
    for (const name of ['tmp_pack_1_old', 'tmp_idx_1_old', 'tmp_pack_2_new', 'keep_me']) writeFileSync(join(packDir, name), 'x')
    for (const name of ['tmp_pack_1_old', 'tmp_idx_1_old', 'keep_me']) utimesSync(join(packDir, name), old, old)
    writePackFiles(join(dir, '.git', 'objects'), 'sha1', [{oid: hashObject('sha1', 'blob', Buffer.from('x')), type: 'blob', body: Buffer.from('x')}])
    expect(['tmp_pack_1_old', 'tmp_idx_1_old', 'tmp_pack_2_new', 'keep_me'].filter((n) => existsSync(join(packDir, n)))).toEqual(['tmp_pack_2_new', 'keep_me'])
  })

  it('a plan that writes a card twice reads its first version from the batch, not from git', async () => {
    const dir = makeRepo()
    const store = await ListStore.open(dir, 'main')
    try {
      await store.init()
      const loaded = await store.load()
      const plan = addTask(loaded.snapshot, ctx('alice'), {title: 'twice', body: 'the body\n'})
      const put = plan.changes.find((c) => c.kind === 'put-task')!
      if (put.kind !== 'put-task') throw new Error('no put-task')
      // The second version carries no body: applyChanges keeps the body of the file as the tree has it (the first's).
      const tree = await store.applyChanges(loaded.index.rootTree, [put, {kind: 'put-task', meta: {...put.meta, title: 'twice, retitled'}}])
      const text = gitSync(dir, ['cat-file', 'blob', `${tree}:${taskFilePath(put.meta.id)}`])
      expect(text).toContain('twice, retitled')
      expect(text).toContain('the body')
    } finally {
      store.close()
    }
  })
})

describe('large writes through the CLI', () => {
  it('an import of 40 tasks lands as one pack that git and every command read', async () => {
    const dir = makeRepo()
    expect((await run(dir, ['init'])).code).toBe(0)
    const before = looseIn(dir).length
    // A Taskwarrior export: each item with an annotation (a comment).
    const doc = Array.from({length: 40}, (_, i) => ({
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      description: `imported ${i}`,
      status: 'pending',
      entry: '20261201T120000Z',
      annotations: [{entry: '20261201T120100Z', description: `note ${i}`}],
    }))
    const file = join(tempDir('doc-'), 'doc.json')
    writeFileSync(file, JSON.stringify(doc))
    const r = await run(dir, ['import', file, '--json'])
    expect(r.code, r.stderr).toBe(0)
    // The commit goes loose (one object); the cards' files, directories and shard trees in one pack.
    expect(packsIn(dir)).toHaveLength(1)
    expect(looseIn(dir).length - before).toBe(1)
    const list = JSON.parse((await run(dir, ['list', '--all', '--json'])).stdout)
    expect(list.tasks.map((t: {title: string}) => t.title).sort()).toEqual(doc.map((t) => t.description).sort())
    const shown = JSON.parse((await run(dir, ['show', list.tasks[0].id, '--json'])).stdout)
    expect(shown.comments).toHaveLength(1)
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
  })
})
