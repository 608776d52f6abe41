/**
 * `tasks log` as an audit log (what each event meant, filters, local times,
 * the init commit, the pager, the history of removed ids) and `tasks
 * restore`, on real temporary repositories through the built CLI.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, TEST_ENV, cleanupAll, gitSync, jsonError, makeRepo, run, runJson, tempDir, type RunOptions} from '../helpers/cli'
import {pagerCommand} from '../../src/commands/pager'
import {detailsOf, parseTimePoint} from '../../src/core/history-event'

afterAll(() => cleanupAll())

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'tasks.js'))) throw new Error('dist/tasks.js is missing: run `npm run build` first')
})

/** Act as `actor` at minute `minutes` after 2030-01-01T00:00Z. */
function as(actor: string, minutes: number, env: Record<string, string> = {}): RunOptions {
  return {env: {TASKS_ACTOR: actor, TASKS_NOW: new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString(), ...env}}
}

async function add(repo: string, title: string, flags: string[], options: RunOptions): Promise<string> {
  return (await runJson(repo, ['add', title, ...flags], options)).task.id
}

describe('log: what each event meant', () => {
  let repo: string
  const ids = {a: '', b: '', c: ''}

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    ids.a = await add(repo, 'Claimed and taken over', [], as('alice', 0))
    ids.b = await add(repo, 'Forced', [], as('alice', 1))
    ids.c = await add(repo, 'Cancelled', [], as('alice', 2))
    await runJson(repo, ['claim', ids.a, '--lease', '1h'], as('bob', 10))
    await runJson(repo, ['claim', ids.a, '--lease', '1h'], as('bob', 20)) // renew
    await runJson(repo, ['claim', ids.a], as('carol', 200)) // lease long expired: takeover
    await runJson(repo, ['block', ids.a, 'waiting on the API'], as('carol', 210))
    await runJson(repo, ['claim', ids.b], as('bob', 220))
    await runJson(repo, ['done', ids.b, '--force', '--reason', 'bob is on leave'], as('alice', 230))
    await runJson(repo, ['assign', ids.c, 'dave'], as('alice', 240))
    await runJson(repo, ['cancel', ids.c, '--reason', 'out of scope'], as('alice', 250))
  })

  it('JSON events carry the trailers as structured fields', async () => {
    const log = await runJson(repo, ['log', ids.a], as('alice', 300))
    const [block, takeover, renew, claim] = log.events
    expect(block).toMatchObject({op: 'block', actor: 'carol', details: {note: 'waiting on the API', epoch: 2}})
    expect(takeover).toMatchObject({op: 'claim', actor: 'carol', details: {took_over_from: 'bob', epoch: 2}})
    expect(renew).toMatchObject({op: 'claim', details: {renewed: true, epoch: 1}})
    expect(claim.details).toEqual({epoch: 1})
    const forced = (await runJson(repo, ['log', ids.b, '--op', 'done'], as('alice', 300))).events[0]
    expect(forced.details).toMatchObject({override_reason: 'bob is on leave'})
    const c = (await runJson(repo, ['log', ids.c], as('alice', 300))).events
    expect(c[0].details).toEqual({reason: 'out of scope'})
    expect(c[1].details).toEqual({assignee: 'dave'})
    expect(detailsOf('assign', [['Tasks-Assignee', '(none)']])).toEqual({assignee: null})
    expect(detailsOf('sync', [['Tasks-Merge', 'claim_lost tsk-abcd'], ['Tasks-Repair', 'dangling_dependency tsk-abcd']])).toEqual({merge: ['claim_lost tsk-abcd'], repairs: ['dangling_dependency tsk-abcd']})
  })

  it('human output says it too, in local time with the zone; the init commit is (init), never 1970', async () => {
    const r = await run(repo, ['log'], as('alice', 300, {TZ: 'Asia/Kolkata'}))
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('took over from bob at epoch 2')
    expect(r.stdout).toContain('renewed the lease at epoch 1')
    expect(r.stdout).toContain('note: waiting on the API')
    expect(r.stdout).toContain('forced: bob is on leave')
    expect(r.stdout).toContain('reason: out of scope')
    expect(r.stdout).toContain('assigned to dave')
    // 2030-01-01T00:10Z (bob's claim) in India: 05:40 +05:30.
    expect(r.stdout).toMatch(/2030-01-01 05:40 \+05:30 +bob +claim /)
    expect(r.stdout).toMatch(/\(init\) +git-tasks +init: task list/)
    expect(r.stdout).not.toContain('1970')
    const json = await runJson(repo, ['log'], as('alice', 300))
    expect(json.events.at(-1)).toMatchObject({op: 'init', initial: true})
    expect(json.events[0].date).toBe('2030-01-01T04:10:00+00:00')
    expect(json.events.slice(0, -1).every((e: any) => e.initial === false)).toBe(true)
  })

  it('filters: --actor (@me too), --op (repeatable, comma-separated), --since/--until (dates, durations)', async () => {
    const bob = await runJson(repo, ['log', '--actor', 'bob'], as('alice', 300))
    expect(bob.events.map((e: any) => e.op)).toEqual(['claim', 'claim', 'claim'])
    const me = await runJson(repo, ['log', '--actor', '@me', '--op', 'cancel', '--op', 'assign,done'], as('alice', 300))
    expect(me.events.map((e: any) => e.op)).toEqual(['cancel', 'assign', 'done'])
    // Minute 300 is 05:00; the last 90 minutes reach back to 03:30 (minutes 210…250).
    const recent = await runJson(repo, ['log', '--since', '90m'], as('alice', 300))
    expect(recent.events.map((e: any) => e.op)).toEqual(['cancel', 'assign', 'done', 'claim', 'block'])
    const window = await runJson(repo, ['log', '--since', '2030-01-01T00:05Z', '--until', '2030-01-01T00:30Z'], as('alice', 300))
    expect(window.events.map((e: any) => e.op)).toEqual(['claim', 'claim'])
    const limited = await runJson(repo, ['log', '--actor', 'alice', '-n', '2'], as('alice', 300))
    expect(limited.events.map((e: any) => e.op)).toEqual(['cancel', 'assign'])
    const bad = await run(repo, ['log', '--since', 'yesterday-ish', '--json'], as('alice', 300))
    expect(bad.code).toBe(2)
    expect(jsonError(bad).code).toBe('bad_time')
    expect(parseTimePoint('1d12h', 0)).toBe(-36 * 3600 * 1000)
    expect(parseTimePoint('2026-11-30', 0)).toBe(new Date(2026, 10, 30).getTime())
  })

  it('a pager only on a terminal: TASKS_PAGER, then PAGER, then less; empty, cat and --no-pager turn it off', async () => {
    expect(pagerCommand({}, true, false)).toBe('less')
    expect(pagerCommand({PAGER: 'more', TASKS_PAGER: 'most'}, true, false)).toBe('most')
    expect(pagerCommand({PAGER: 'more'}, true, false)).toBe('more')
    expect(pagerCommand({TASKS_PAGER: '', PAGER: 'more'}, true, false)).toBeNull()
    expect(pagerCommand({PAGER: 'cat'}, true, false)).toBeNull()
    expect(pagerCommand({}, true, true)).toBeNull()
    expect(pagerCommand({PAGER: 'more'}, false, false)).toBeNull()
    // Not a terminal: printed directly even with a pager set.
    const marker = join(tempDir('pager-'), 'used')
    const piped = await run(repo, ['log', '-n', '1'], {env: {TASKS_PAGER: `cat > '${marker}'`}})
    expect(piped.stdout).toContain('cancel')
    expect(existsSync(marker)).toBe(false)
    let hasScript = true
    try {
      execFileSync('script', ['--version'], {stdio: 'ignore'})
    } catch {
      hasScript = false
    }
    if (!hasScript) return
    const term = (extra: string) =>
      execFileSync('script', ['-qec', `'${process.execPath}' '${BIN}' log -n 1 ${extra}`, '/dev/null'], {cwd: repo, env: {...TEST_ENV, TASKS_PAGER: `cat > '${marker}'`}, encoding: 'utf8'})
    term('--no-pager')
    expect(existsSync(marker)).toBe(false)
    term('')
    expect(readFileSync(marker, 'utf8')).toContain('cancel')
  })
})

describe('the history of removed items, and restore', () => {
  it('log finds a removed id by prefix; restore brings it back with its sub-items and comments, once', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const p = await add(repo, 'Parent', ['--body', 'the description'], as('alice', 0))
    const k1 = await add(repo, 'Kid one', ['--parent', p], as('alice', 1))
    const k2 = await add(repo, 'Kid two', ['--parent', p, '-t', 'x'], as('alice', 2))
    await runJson(repo, ['comment', p, 'a note on the parent'], as('alice', 3))
    await runJson(repo, ['comment', k2, 'a note on a kid', '--kind', 'decision'], as('alice', 4))
    await runJson(repo, ['rm', p, '--confirm', p, '--reason', 'gone', '--with-subitems'], as('bob', 5))

    const never = await run(repo, ['log', 'tsk-zzzzzz', '--json'], as('alice', 6))
    expect(never.code).toBe(3)
    expect(jsonError(never).code).toBe('task_not_found')
    const log = await runJson(repo, ['log', p.slice(0, 8)], as('alice', 6))
    expect(log).toMatchObject({task: p, removed: true})
    expect(log.events.map((e: any) => e.op)).toEqual(['rm', 'comment', 'add'])
    const human = await run(repo, ['log', p], as('alice', 6))
    expect(human.stdout).toContain(`tasks restore ${p}`)

    const r = await runJson(repo, ['restore', p.slice(0, 8)], as('carol', 7))
    expect(r.restored[0].id).toBe(p)
    expect(r.restored.slice(1).map((t: any) => t.id).sort()).toEqual([k1, k2].sort())
    expect(r.comments).toBe(2)
    expect(r.dropped_dependencies).toEqual([])
    expect(r.removed_in).toBe(log.events[0].commit)
    const shown = await runJson(repo, ['show', p], as('alice', 8))
    expect(shown.body.trim()).toBe('the description')
    expect(shown.comments.map((c: any) => c.body.trim())).toEqual(['a note on the parent'])
    expect(shown.subitems.map((s: any) => s.id).sort()).toEqual([k1, k2].sort())
    const kid = await runJson(repo, ['show', k2], as('alice', 8))
    expect(kid.task.tags).toEqual(['x'])
    expect(kid.comments[0]).toMatchObject({kind: 'decision', author: 'alice'})
    const message = gitSync(repo, ['log', '-1', '--format=%B', 'refs/tasks/main'])
    expect(message).toContain(`restore ${p}: Parent`)
    expect(message).toContain(`Tasks-Restored-From: ${r.removed_in}`)
    expect(message).toContain('Actor: carol')
    const events = await runJson(repo, ['log', p, '-n', '1'], as('alice', 9))
    expect(events).toMatchObject({removed: false, events: [{op: 'restore', details: {restored_from: r.removed_in}}]})

    const again = await run(repo, ['restore', p, '--json'], as('carol', 10))
    expect(again.code).toBe(4)
    expect(jsonError(again).code).toBe('already_exists')
  })

  it('a sub-item whose parent is gone is refused; a dependency on a gone item is dropped and said', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const p = await add(repo, 'Parent', [], as('alice', 0))
    const kid = await add(repo, 'Kid', ['--parent', p], as('alice', 1))
    const dep = await add(repo, 'Dependency', [], as('alice', 2))
    const user = await add(repo, 'User', ['--depends-on', dep], as('alice', 3))
    await runJson(repo, ['rm', kid, '--confirm', kid, '--reason', 'gone'], as('alice', 4))
    await runJson(repo, ['rm', p, '--confirm', p, '--reason', 'gone'], as('alice', 5))
    const orphan = await run(repo, ['restore', kid, '--json'], as('alice', 6))
    expect(orphan.code).toBe(4)
    expect(jsonError(orphan)).toMatchObject({code: 'parent_missing', parent: p})
    await runJson(repo, ['restore', p], as('alice', 7))
    expect((await runJson(repo, ['restore', kid], as('alice', 8))).restored[0].parent).toBe(p)

    await runJson(repo, ['rm', user, '--confirm', user, '--reason', 'gone'], as('alice', 9))
    await runJson(repo, ['rm', dep, '--confirm', dep, '--reason', 'gone'], as('alice', 10))
    const r = await runJson(repo, ['restore', user], as('alice', 11))
    expect(r.dropped_dependencies).toEqual([{id: user, dependency: dep}])
    expect(r.restored[0].depends_on).toEqual([])
    const human = await run(repo, ['restore', dep], as('alice', 12))
    expect(human.stdout).toContain('restored')
    const doctor = await runJson(repo, ['doctor'], as('alice', 13))
    expect(doctor.violations).toEqual([])
  })
})
