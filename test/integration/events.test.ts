/**
 * `tasks events` (issue 10): one event per commit of the ref, from its
 * trailers; `--follow` sees a change made by another process and one made
 * by another clone (online: fetched at the interval), keeps going across a
 * sync merge, and ends cleanly on SIGINT.
 */
import {spawn} from 'node:child_process'
import {afterAll, describe, expect, it} from 'vitest'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {BIN, TEST_ENV, cleanupAll, run, runJson, tempDir} from '../helpers/cli'
import {shared} from '../remote/support'

afterAll(() => cleanupAll())

const ALICE = {TASKS_ACTOR: 'alice'}
const BOB = {TASKS_ACTOR: 'bob'}

interface Event {
  op: string
  tasks: Array<{id: string; revision: number | null}>
  actor: string
  time: string
  commit: string
}

describe('tasks events', {timeout: 90_000}, () => {
  it('lists one event per commit, oldest first, with revisions; --since starts after a revision', async () => {
    const {clones} = await shared(1)
    const c = clones[0]!
    const id = (await runJson(c, ['add', 'First'], {env: ALICE})).task.id as string
    const mark = (await runJson(c, ['claim', id], {env: ALICE})).commit as string
    await runJson(c, ['done', id], {env: ALICE})
    const r = await run(c, ['events', '--json'], {env: ALICE})
    expect(r.code).toBe(0)
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Event)
    expect(events.map((e) => e.op)).toEqual(['init', 'add', 'claim', 'done'])
    expect(events.at(-1)!.tasks).toEqual([{id, revision: 3}])
    expect(events.at(-1)!.actor).toBe('alice')
    const since = await run(c, ['events', '--json', '--since', mark], {env: ALICE})
    expect(since.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Event).op)).toEqual(['done'])
    const text = await run(c, ['events'], {env: ALICE})
    expect(text.stdout).toContain(`done ${id}@3 by alice`)
  })

  it("gives each item's revision after each commit, for a commit of many cards in many shards too", async () => {
    const {clones} = await shared(1)
    const c = clones[0]!
    // One import commit of 40 cards (a Taskwarrior export), then an edit of one, the removal of another.
    const doc = Array.from({length: 40}, (_, i) => ({uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, description: `card ${i}`, status: 'pending', entry: '20261201T120000Z'}))
    const file = join(tempDir('doc-'), 'doc.json')
    writeFileSync(file, JSON.stringify(doc))
    const imported = await runJson(c, ['import', file], {env: ALICE})
    const ids = (imported.tasks as Array<{id: string}>).map((t) => t.id)
    await runJson(c, ['edit', ids[3]!, '--title', 'card 3, renamed'], {env: ALICE})
    await runJson(c, ['rm', ids[5]!, '--confirm', ids[5]!, '--reason', 'gone'], {env: ALICE})
    const r = await run(c, ['events', '--json'], {env: ALICE})
    expect(r.code, r.stderr).toBe(0)
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Event)
    expect(events.map((e) => e.op)).toEqual(['init', 'import', 'edit', 'rm'])
    const inImport = events[1]!.tasks
    expect(inImport.map((t) => t.id).sort()).toEqual([...ids].sort())
    expect(new Set(inImport.map((t) => t.revision))).toEqual(new Set([1]))
    expect(events[2]!.tasks).toEqual([{id: ids[3], revision: 2}])
    // Removed by that commit: not on the ref after it.
    expect(events[3]!.tasks).toEqual([{id: ids[5], revision: null}])
  })

  it('--follow sees another process and another clone, survives a sync merge, and exits 0 on SIGINT', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const tip = (await runJson(a, ['add', 'Before following'], {env: ALICE})).commit as string
    const child = spawn(process.execPath, [BIN, 'events', '--follow', '--json', '--interval', '0.2', '--since', tip], {cwd: a, env: {...TEST_ENV, ...ALICE}, stdio: ['ignore', 'pipe', 'pipe']})
    const seen: Event[] = []
    let buffer = ''
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString()
      const lines = buffer.split('\n')
      buffer = lines.pop()!
      for (const l of lines) if (l.trim()) seen.push(JSON.parse(l) as Event)
    })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
    const waitFor = async (pred: () => boolean, what: string) => {
      for (let i = 0; i < 300 && !pred(); i++) await new Promise((r) => setTimeout(r, 50))
      if (!pred()) throw new Error(`events --follow did not show ${what}; saw ${JSON.stringify(seen)} ${stderr}`)
    }
    // Another process in the same clone.
    const local = (await runJson(a, ['add', 'From another process'], {env: ALICE})).task.id as string
    await waitFor(() => seen.some((e) => e.op === 'add' && e.tasks[0]?.id === local), 'the local add')
    // Another clone, through the shared remote.
    await runJson(b, ['sync'], {env: BOB})
    const remote = (await runJson(b, ['add', 'From the other clone'], {env: BOB})).task.id as string
    await waitFor(() => seen.some((e) => e.tasks[0]?.id === remote), 'the other clone\'s add')
    expect(seen.find((e) => e.tasks[0]?.id === remote)!.actor).toBe('bob')
    // Diverged: an offline change here and one on the remote, joined by a sync merge.
    const offline = (await runJson(a, ['add', 'Offline here', '--offline'], {env: ALICE})).task.id as string
    const there = (await runJson(b, ['add', 'Pushed there'], {env: BOB})).task.id as string
    await waitFor(() => seen.some((e) => e.tasks[0]?.id === offline) && seen.some((e) => e.tasks[0]?.id === there), 'both sides')
    expect((await runJson(a, ['sync'], {env: ALICE})).action).toBe('merged')
    await waitFor(() => seen.some((e) => e.op === 'sync'), 'the sync merge')
    // Every commit once.
    expect(new Set(seen.map((e) => e.commit)).size).toBe(seen.length)
    child.kill('SIGINT')
    expect(await exited).toBe(0)
  })
})
