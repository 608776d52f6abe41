/**
 * Pagination with a cursor: pages taken with `--after next_cursor` return
 * every item that was there at the start exactly once, while other writers
 * add items (some sorting before the page being read, some sub-items) and
 * change priorities between pages. A bad cursor is a usage error.
 */
import {describe, expect, it} from 'vitest'
import {ListStore} from '../../src/refstore/list-store'
import {addTask} from '../../src/core/ops/add'
import {editTask} from '../../src/core/ops/edit'
import type {Plan} from '../../src/core/plan'
import {spawnSync} from 'node:child_process'
import {BIN, TEST_ENV, jsonError, makeRepo, run, runJson} from '../helpers/cli'
import {ctx} from '../helpers/snapshot'

async function commit(dir: string, make: (snap: Awaited<ReturnType<ListStore['load']>>['snapshot']) => Plan<{task: {id: string}}>): Promise<string> {
  const store = await ListStore.open(dir, 'main')
  try {
    const loaded = await store.load()
    const plan = make(loaded.snapshot)
    const c = await store.writePlan(loaded, plan, 'alice', ctx().now)
    expect((await store.compareAndSwap(c, loaded.index.commit, 'test')).ok).toBe(true)
    return plan.result.task.id
  } finally {
    store.close()
  }
}

describe('list pages with --after', () => {
  it('return every item once while items are added and moved between pages', async () => {
    const dir = makeRepo()
    await runJson(dir, ['init'])
    const ids: string[] = []
    for (let i = 0; i < 24; i++) {
      const parent = i % 6 === 5 ? ids[i - 1] : undefined
      ids.push(await commit(dir, (snap) => addTask(snap, ctx('alice'), {title: `item ${i}`, priority: i % 5, parent})))
    }
    const seen: string[] = []
    let after: string | null = null
    let pages = 0
    let added = 0
    do {
      const page: any = await runJson(dir, ['list', '--all', '--limit', '5', ...(after ? ['--after', after] : [])])
      for (const t of page.tasks) seen.push(t.id)
      after = page.next_cursor
      pages++
      // Another writer: new items of every priority (so some sort before this page) and more sub-items of a
      // parent that already had one (its own state and place do not change).
      added++
      await commit(dir, (snap) => addTask(snap, ctx('bob'), {title: `late ${added}`, priority: added % 5}))
      await commit(dir, (snap) => addTask(snap, ctx('bob'), {title: `late sub ${added}`, priority: 0, parent: ids[4]}))
      expect(page.total).toBeGreaterThanOrEqual(24)
    } while (after !== null && pages < 40)
    expect(after).toBeNull()
    // Every original item exactly once; nothing at all twice.
    expect(new Set(seen).size).toBe(seen.length)
    for (const id of ids) expect(seen.filter((s) => s === id)).toHaveLength(1)
    // The sorted order really was disturbed: some late items were never reached (they sorted before a page).
    expect(seen.length).toBeLessThan(ids.length + 2 * added)
  }, 120_000)

  it('keeps its place with an explicit sort, and rejects foreign cursors', async () => {
    const dir = makeRepo()
    await runJson(dir, ['init'])
    const ids: string[] = []
    for (let i = 0; i < 9; i++) ids.push(await commit(dir, (snap) => addTask(snap, ctx('alice'), {title: `t ${String.fromCharCode(97 + i)}`})))
    const first: any = await runJson(dir, ['list', '--sort=title', '--limit', '4'])
    expect(first.tasks.map((t: any) => t.title)).toEqual(['t a', 't b', 't c', 't d'])
    // An item that sorts before the cursor, and one not yet listed moved (retitled) but still after it.
    await commit(dir, (snap) => addTask(snap, ctx('bob'), {title: 't 0'}))
    await commit(dir, (snap) => editTask(snap, ctx('bob'), {id: ids[5]!, title: 't ea'}))
    const second: any = await runJson(dir, ['list', '--sort=title', '--limit', '4', '--after', first.next_cursor])
    expect(second.tasks.map((t: any) => t.title)).toEqual(['t e', 't ea', 't g', 't h'])
    expect(second.total).toBe(10)
    const third: any = await runJson(dir, ['list', '--sort=title', '--limit', '4', '--after', second.next_cursor])
    expect(third.tasks.map((t: any) => t.title)).toEqual(['t i'])
    expect(third.next_cursor).toBeNull()

    for (const args of [
      ['--after', first.next_cursor],
      ['--sort=-created', '--after', first.next_cursor],
      ['--sort=title', '--after', 'not-a-cursor'],
    ]) {
      const r = await run(dir, ['list', '--json', ...args])
      expect(r.code).toBe(2)
      expect(jsonError(r).code).toBe('bad_cursor')
    }
    const both = await run(dir, ['list', '--json', '--offset', '1', '--after', first.next_cursor])
    expect(both.code).toBe(2)
    expect(jsonError(both).code).toBe('usage')
  }, 60_000)

  it('a streamed list ends when its reader goes away (| head)', async () => {
    const dir = makeRepo()
    await runJson(dir, ['init'])
    // One commit of 400 items: the JSON (~250 KB) is larger than a pipe's buffer.
    const store = await ListStore.open(dir, 'main')
    const loaded = await store.load()
    const plans = Array.from({length: 400}, (_, i) => addTask(loaded.snapshot, ctx('alice'), {title: `bulk item ${i} with a title long enough to fill the pipe`, body: 'x'.repeat(200)}))
    const plan = {...plans[0]!, changes: plans.flatMap((p) => p.changes)}
    const c = await store.writePlan(loaded, plan, 'alice', ctx().now)
    expect((await store.compareAndSwap(c, loaded.index.commit, 'test')).ok).toBe(true)
    store.close()
    // timeout(1) ends a hung writer (exit 124), so a failure leaves no process behind.
    const r = spawnSync('sh', ['-c', `(timeout 60 "${process.execPath}" "${BIN}" list --all --json; echo "$?" > rc) | head -c 100 > /dev/null; wait; cat rc`], {cwd: dir, env: TEST_ENV, encoding: 'utf8'})
    // Before the fix the writer waited for a drain that never comes, and only the timeout ended it.
    expect(r.stdout.trim()).toBe('0')
  }, 90_000)

  it('a reversed sort key whose second letter is a short flag (-title: -t) is a sort, not the tag flag', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    for (const t of ['alpha', 'charlie', 'bravo']) await runJson(repo, ['add', t])
    const titles = (r: {tasks: Array<{title: string}>}) => r.tasks.map((t) => t.title)
    expect(titles(await runJson(repo, ['list', '--sort=-title']))).toEqual(['charlie', 'bravo', 'alpha'])
    expect(titles(await runJson(repo, ['list', '--sort', '-title']))).toEqual(['charlie', 'bravo', 'alpha'])
    expect(titles(await runJson(repo, ['list', '--sort', 'title']))).toEqual(['alpha', 'bravo', 'charlie'])
    const bad = await run(repo, ['list', '--sort=-nope', '--json'])
    expect(bad.code).toBe(2)
    expect(jsonError(bad).code).toBe('bad_sort')
  })
})
