/**
 * Housekeeping after writes (issue 7, point 8), with real git:
 *
 * - when the object store is due (more loose objects in objects/17 than
 *   gc.auto allows, as `git gc --auto` estimates), a mutation starts
 *   `git maintenance run --auto` in the background and the loose objects
 *   get packed; with gc.auto 0 it is never due;
 * - a `tmp_obj_*` file left by a killed write is removed from the object
 *   directory (where the writer makes them) once it is an hour old; a
 *   fresh one is left;
 * - with core.fsync (or core.fsyncObjectFiles) set, objects are flushed
 *   before the ref moves: the path runs and the result passes fsck.
 */
import {createHash} from 'node:crypto'
import {existsSync, readdirSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {LooseObjectWriter, fsyncsLooseObjects} from '../../src/refstore/git-objects'
import {COMMIT_GRAPH_INTERVAL_MS, commitGraphState, maintenanceDue, refreshCommitGraph} from '../../src/refstore/housekeeping'
import type {Repository} from '../../src/refstore/repository'
import {cleanupAll, gitSync, runJson} from '../helpers/cli'
import {initRepo} from '../race/support'

const ME = {env: {TASKS_ACTOR: 'alice'}}

afterAll(() => cleanupAll())

function repoOf(dir: string): Repository {
  const gitDir = join(dir, '.git')
  return {cwd: dir, gitDir, commonDir: gitDir, objectsDir: join(gitDir, 'objects'), algorithm: 'sha1'}
}

/** Write `n` unreachable blobs whose ids start with 17 (the directory `git gc --auto` counts). */
function looseIn17(dir: string, n: number): void {
  let made = 0
  for (let i = 0; made < n; i++) {
    const content = `filler ${i}\n`
    const id = createHash('sha1').update(`blob ${Buffer.byteLength(content)}\0${content}`).digest('hex')
    if (!id.startsWith('17')) continue
    gitSync(dir, ['hash-object', '-w', '--stdin'], content)
    made++
  }
}

function packs(dir: string): string[] {
  const p = join(dir, '.git', 'objects', 'pack')
  return existsSync(p) ? readdirSync(p).filter((n) => n.endsWith('.pack')) : []
}

describe('git maintenance after writes', {timeout: 60_000}, () => {
  it('due when objects/17 holds more than gc.auto/256 loose objects; never with gc.auto 0', async () => {
    const dir = await initRepo()
    gitSync(dir, ['config', 'gc.auto', '0'])
    looseIn17(dir, 3)
    expect(maintenanceDue(repoOf(dir))).toBe(false)
    gitSync(dir, ['config', 'gc.auto', '256']) // threshold: 1 object in objects/17
    expect(maintenanceDue(repoOf(dir))).toBe(true)
    gitSync(dir, ['config', 'gc.auto', '2560']) // threshold: 10
    expect(maintenanceDue(repoOf(dir))).toBe(false)
  })

  it('a mutation in a repository that is due packs its loose objects in the background', async () => {
    const dir = await initRepo()
    await runJson(dir, ['add', 'one'], ME)
    expect(packs(dir)).toEqual([])
    gitSync(dir, ['config', 'gc.auto', '256'])
    looseIn17(dir, 2)
    const started = Date.now()
    const added = await runJson(dir, ['add', 'two'], ME)
    const took = Date.now() - started
    // Packed within a few seconds, by a process the command did not wait for.
    for (let i = 0; i < 200 && packs(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 50))
    expect(packs(dir).length, 'git maintenance packed the objects').toBeGreaterThan(0)
    // Wait for gc to finish (its lock goes away) before checking the result.
    for (let i = 0; i < 200 && existsSync(join(dir, '.git', 'gc.pid')); i++) await new Promise((r) => setTimeout(r, 50))
    const verify = gitSync(dir, ['count-objects', '-v'])
    expect(Number(/in-pack: (\d+)/.exec(verify)![1])).toBeGreaterThan(0)
    expect(gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()).toBe(added.commit)
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
    expect(took).toBeLessThan(10_000)
  })
})

describe('leftovers of killed writes', () => {
  it('tmp_obj_* files older than an hour are removed from the object directory, where the writer makes them; fresh ones stay', async () => {
    const dir = await initRepo()
    const objects = join(dir, '.git', 'objects')
    const old = Date.now() / 1000 - 2 * 3600
    writeFileSync(join(objects, 'tmp_obj_old'), 'partial')
    utimesSync(join(objects, 'tmp_obj_old'), old, old)
    writeFileSync(join(objects, 'tmp_obj_fresh'), 'in progress')
    const before = gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()
    const added = await runJson(dir, ['add', 'writes a few objects'], ME)
    const written = gitSync(dir, ['rev-list', '--objects', added.commit, `^${before}`]).split('\n').filter(Boolean)
    expect(written.length).toBeGreaterThan(2)
    expect(existsSync(join(objects, 'tmp_obj_old'))).toBe(false)
    expect(existsSync(join(objects, 'tmp_obj_fresh'))).toBe(true)
    // The writer's own temporary files were all renamed into place.
    expect(readdirSync(objects).filter((f) => f.startsWith('tmp_obj_'))).toEqual(['tmp_obj_fresh'])
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
  })
})

describe('core.fsync', () => {
  it('which settings make git fsync loose objects', () => {
    expect(fsyncsLooseObjects(undefined, undefined)).toBe(false)
    expect(fsyncsLooseObjects(undefined, 'true')).toBe(true)
    expect(fsyncsLooseObjects(undefined, 'false')).toBe(false)
    expect(fsyncsLooseObjects('committed', undefined)).toBe(true)
    expect(fsyncsLooseObjects('loose-object', 'false')).toBe(true)
    expect(fsyncsLooseObjects('all,-loose-object', undefined)).toBe(false)
    expect(fsyncsLooseObjects('pack,index', 'true')).toBe(false) // core.fsync set: fsyncObjectFiles is ignored
    expect(fsyncsLooseObjects('objects,none', undefined)).toBe(false)
    expect(fsyncsLooseObjects('none, added', undefined)).toBe(true)
  })

  it('the writer flushes what it wrote; mutations with core.fsync / core.fsyncObjectFiles set succeed and pass fsck', async () => {
    const dir = await initRepo()
    const writer = new LooseObjectWriter(join(dir, '.git', 'objects'), 'sha1')
    writer.write('blob', 'flushed\n')
    expect(writer.pending).toBe(true)
    writer.flush(true)
    expect(writer.pending).toBe(false)
    gitSync(dir, ['config', 'core.fsync', 'committed'])
    const a = await runJson(dir, ['add', 'with core.fsync'], ME)
    gitSync(dir, ['config', '--unset', 'core.fsync'])
    gitSync(dir, ['config', 'core.fsyncObjectFiles', 'true'])
    const b = await runJson(dir, ['comment', a.task.id, 'with core.fsyncObjectFiles'], ME)
    expect(gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()).toBe(b.commit)
    gitSync(dir, ['fsck', '--strict', '--no-dangling'])
  })
})

describe('commit-graph for card histories', {timeout: 60_000}, () => {
  const until = async (ok: () => boolean): Promise<boolean> => {
    for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 50))
    return ok()
  }

  it('reads what git wrote: present, with or without changed-path filters, which commits it holds', async () => {
    const dir = await initRepo()
    const objects = join(dir, '.git', 'objects')
    const first = (await runJson(dir, ['add', 'one'], ME)).commit as string
    expect(commitGraphState(objects, first)).toEqual({exists: false, changedPaths: false, has: false})
    gitSync(dir, ['commit-graph', 'write', '--reachable'])
    expect(commitGraphState(objects, first)).toEqual({exists: true, changedPaths: false, has: true})
    const second = (await runJson(dir, ['add', 'two'], ME)).commit as string
    expect(commitGraphState(objects, second)).toEqual({exists: true, changedPaths: false, has: false})
    gitSync(dir, ['commit-graph', 'write', '--reachable', '--changed-paths', '--split'])
    expect(commitGraphState(objects, second)).toEqual({exists: true, changedPaths: true, has: true})
    expect(commitGraphState(objects, first).has).toBe(true)
  })

  it('`tasks log ID` writes the graph with filters in the background, then only new layers, at most once per interval', async () => {
    const dir = await initRepo()
    const objects = join(dir, '.git', 'objects')
    const added = await runJson(dir, ['add', 'one'], ME)
    const id = added.task.id as string
    await runJson(dir, ['log', id], ME)
    const tip1 = gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()
    expect(await until(() => commitGraphState(objects, tip1).has), 'the graph holds the tip').toBe(true)
    expect(commitGraphState(objects, tip1).changedPaths).toBe(true)
    const claimed = await runJson(dir, ['claim', id], ME)
    const stamp = statSync(join(dir, '.git', 'git-tasks', 'commit-graph-started')).mtimeMs
    const repo = repoOf(dir)
    // Within the interval nothing starts; after it, a new layer with the missing commit.
    expect(refreshCommitGraph(repo, claimed.commit, stamp + 1000)).toBeNull()
    expect(refreshCommitGraph(repo, claimed.commit, stamp + COMMIT_GRAPH_INTERVAL_MS + 1000)).toBe('split')
    expect(await until(() => commitGraphState(objects, claimed.commit).has)).toBe(true)
    expect(commitGraphState(objects, claimed.commit).changedPaths).toBe(true)
    expect(refreshCommitGraph(repo, claimed.commit, stamp + 3 * COMMIT_GRAPH_INTERVAL_MS)).toBeNull()
    gitSync(dir, ['config', 'core.commitGraph', 'false'])
    const more = await runJson(dir, ['add', 'three'], ME)
    expect(refreshCommitGraph(repo, more.commit, stamp + 9 * COMMIT_GRAPH_INTERVAL_MS)).toBeNull()
  })
})
