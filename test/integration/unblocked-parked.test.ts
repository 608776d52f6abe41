/**
 * Issue 33, items 1 and 4, on real repositories: the unblocked transition
 * across two clones that each finish one of the last dependencies offline
 * (the merge makes it, once: one bump, one event), `emit_events: off`, the
 * guard over the whole history; `block --on`, `list --blocked-on @me`, and
 * `add/deps --blocks` with their refusals writing nothing.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, run, runJson} from '../helpers/cli'
import {shared, tipOf} from '../remote/support'

afterAll(() => cleanupAll())

const ALICE = {TASKS_ACTOR: 'alice'}
const BOB = {TASKS_ACTOR: 'bob'}
const OFFLINE = {TASKS_OFFLINE: '1'}
const ZERO = '0'.repeat(40)

const lines = (stdout: string): Array<Record<string, unknown>> => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
const errOf = (r: {stderr: string}): {code: string} => (JSON.parse(r.stderr.trim().split('\n').at(-1)!) as {error: {code: string}}).error

describe('unblocked events', {timeout: 120_000}, () => {
  it('two clones finish the two last dependencies offline: after sync, one transition and one unblocked event', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const d1 = (await runJson(a, ['add', 'Dependency one'], {env: ALICE})).task.id as string
    const d2 = (await runJson(a, ['add', 'Dependency two'], {env: ALICE})).task.id as string
    const x = (await runJson(a, ['add', 'Waits on both', '-d', d1, '-d', d2], {env: ALICE})).task.id as string
    await runJson(b, ['sync'], {env: BOB})
    const before = (await runJson(a, ['show', x], {env: ALICE})).task.revision as number

    // Each clone finishes one last dependency offline: neither sees the item unblocked.
    const doneA = await runJson(a, ['done', d1], {env: {...ALICE, ...OFFLINE}})
    const doneB = await runJson(b, ['done', d2], {env: {...BOB, ...OFFLINE}})
    expect(doneA.task.status).toBe('done')
    expect(doneB.task.status).toBe('done')
    expect((await runJson(a, ['show', x], {env: {...ALICE, ...OFFLINE}})).task.revision).toBe(before)
    expect((await runJson(a, ['sync'], {env: ALICE})).action).toBe('pushed')
    expect((await runJson(b, ['sync'], {env: BOB})).action).toBe('merged')
    expect((await runJson(a, ['sync'], {env: ALICE})).action).toBe('fast_forward')

    for (const c of [a, b]) {
      const shown = (await runJson(c, ['show', x], {env: ALICE})).task
      expect(shown).toMatchObject({revision: before + 1, ready: true, updated_by: 'alice'})
      const r = await run(c, ['events', '--json'], {env: ALICE})
      expect(r.code, r.stderr).toBe(0)
      const unblocked = lines(r.stdout).filter((e) => e.event === 'unblocked')
      expect(unblocked).toEqual([{event: 'unblocked', id: x, status: 'todo', revision: before + 1, list: 'main', commit: tipOf(bare), time: expect.any(String)}])
    }
    // The merge that made the transition is one `tasks sync` makes (the guard replays it).
    const verdict = await runJson(a, ['verify', ZERO, tipOf(bare)!], {env: ALICE})
    expect(verdict.refusals).toEqual([])
    expect(verdict.ok).toBe(true)

    // The same last dependency finished on both clones: both bump the item to the same file, one revision, one event.
    const d3 = (await runJson(a, ['add', 'Shared dependency'], {env: ALICE})).task.id as string
    const y = (await runJson(a, ['add', 'Waits on it', '-d', d3], {env: ALICE})).task.id as string
    await runJson(b, ['sync'], {env: BOB})
    const yBefore = (await runJson(a, ['show', y], {env: ALICE})).task.revision as number
    await runJson(a, ['done', d3], {env: {...ALICE, ...OFFLINE}})
    await runJson(b, ['done', d3], {env: {...ALICE, ...OFFLINE}})
    await runJson(a, ['sync'], {env: ALICE})
    await runJson(b, ['sync'], {env: ALICE})
    expect((await runJson(b, ['show', y], {env: ALICE})).task.revision).toBe(yBefore + 1)
    const events = lines((await run(b, ['events', '--json'], {env: ALICE})).stdout)
    expect(events.filter((e) => e.event === 'unblocked' && e.id === y)).toHaveLength(1)

    // emit_events: off prints the commits' events only.
    const all = events.length
    await runJson(b, ['config', 'set', 'emit_events', 'off'], {env: ALICE})
    const off = lines((await run(b, ['events', '--json'], {env: ALICE})).stdout)
    expect(off.filter((e) => 'event' in e)).toEqual([])
    expect(off.length).toBe(all - 2 + 1) // two unblocked events fewer, one config commit more
    const bad = await run(b, ['config', 'set', 'emit_events', 'sometimes', '--json'], {env: ALICE})
    expect(bad.code).toBe(5)
    expect(errOf(bad).code).toBe('bad_config_value')
  })
})

describe('parked cards and the blocks edge', {timeout: 120_000}, () => {
  it('block --on parks a card on someone; list --blocked-on @me is their queue; --blocks adds the inverse edge; refusals write nothing', async () => {
    const {bare, clones} = await shared(1)
    const c = clones[0]!
    const p = (await runJson(c, ['add', 'Needs a decision'], {env: ALICE})).task.id as string
    await runJson(c, ['claim', p], {env: ALICE})
    const blocked = await runJson(c, ['block', p, 'which schema version?', '--on', 'carol'], {env: ALICE})
    expect(blocked.task).toMatchObject({status: 'blocked', block_note: 'which schema version?', blocked_on: 'carol'})
    const queue = await runJson(c, ['list', '--blocked-on', '@me'], {env: {TASKS_ACTOR: 'carol'}})
    expect(queue.tasks.map((t: {id: string}) => t.id)).toEqual([p])
    expect((await runJson(c, ['list', '--blocked-on', 'bob'], {env: ALICE})).total).toBe(0)
    // A bad blocker: usage error, nothing written.
    const tip = tipOf(bare)
    const bad = await run(c, ['block', p, 'x', '--on', 'a<b>', '--json'], {env: ALICE})
    expect(bad.code).toBe(2)
    expect(tipOf(bare)).toBe(tip)
    // Resuming the claim clears the blocker with the block.
    const resumed = await runJson(c, ['claim', p], {env: ALICE})
    expect(resumed.task.blocked_on).toBeNull()

    // --blocks: the inverse edge, on add and on deps.
    const x = (await runJson(c, ['add', 'Publish'], {env: ALICE})).task.id as string
    const d = (await runJson(c, ['add', 'Decide', '--blocks', x], {env: ALICE})).task.id as string
    const e = (await runJson(c, ['add', 'Review'], {env: ALICE})).task.id as string
    await runJson(c, ['deps', e, '--blocks', x], {env: ALICE})
    expect((await runJson(c, ['show', x], {env: ALICE})).task.depends_on).toEqual([d, e].sort())
    expect((await runJson(c, ['show', e], {env: ALICE})).task.depends_on).toEqual([])
    // Refused, nothing written: a cycle, itself, another list, someone else's live claim.
    const y = (await runJson(c, ['add', 'Held by bob'], {env: ALICE})).task.id as string
    await runJson(c, ['claim', y], {env: BOB})
    const before = tipOf(bare)
    for (const [args, exit, code] of [
      [['deps', x, '--blocks', d], 5, 'dependency_cycle'],
      [['deps', x, '--blocks', x], 5, 'self_dependency'],
      [['add', 'Elsewhere', '--blocks', `other:${x}`], 5, 'cross_list_dependency'],
      [['add', 'Spec of bob', '--blocks', y], 6, 'not_owner'],
    ] as const) {
      const r = await run(c, [...args, '--json'], {env: ALICE})
      expect(r.code, args.join(' ')).toBe(exit)
      expect(errOf(r).code).toBe(code)
    }
    expect(tipOf(bare)).toBe(before)
    expect((await runJson(c, ['list', '--all'], {env: ALICE})).tasks.some((t: {title: string}) => t.title === 'Spec of bob')).toBe(false)
    const verdict = await runJson(c, ['verify', ZERO, tipOf(bare)!], {env: ALICE})
    expect(verdict.refusals).toEqual([])
  })
})
