/**
 * `tasks revert --actor`: interleaved writers at pinned times (TASKS_NOW,
 * --as), the exact lists of what was restored, kept, cancelled and left;
 * --dry-run writes nothing; and the revert through a shared remote with the
 * server guard installed, which accepts it; and across a `sync` merge of two
 * clones that changed the same cards apart.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson} from '../helpers/cli'
import {cloneOf, guarded, tipOf} from '../remote/support'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const at = (minute: number) => ({TASKS_NOW: `2026-12-01T09:${String(minute).padStart(2, '0')}:00Z`})
const as = (actor: string, minute: number) => ({env: {...at(minute), TASKS_ACTOR: actor}})

describe('tasks revert --actor', () => {
  it("takes back eve's writes field by field, keeps bob's, cancels her cards, lists her comments; --dry-run writes nothing", async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], as('bob', 0))
    const x = (await runJson(repo, ['add', 'Write the plan', '--body', 'the plan\n', '-p', '2'], as('bob', 1))).task.id
    const y = (await runJson(repo, ['add', 'Review', '--tags', 'a'], as('bob', 2))).task.id
    const z = (await runJson(repo, ['add', 'Ship'], as('bob', 3))).task.id
    const since = gitSync(repo, ['rev-parse', REF]).trim()
    await runJson(repo, ['edit', x, '--priority', '0', '--body', 'vandalised\n'], as('eve', 10))
    await runJson(repo, ['edit', y, '--title', 'Review (eve)'], as('eve', 11))
    await runJson(repo, ['edit', y, '--title', 'Review (bob)'], as('bob', 12))
    await runJson(repo, ['edit', y, '--add-tags', 'b'], as('eve', 13))
    await runJson(repo, ['edit', z, '--priority', '4'], as('eve', 14))
    await runJson(repo, ['edit', z, '--priority', '1'], as('bob', 15))
    await runJson(repo, ['edit', z, '--priority', '3'], as('eve', 16))
    const until = gitSync(repo, ['rev-parse', REF]).trim()
    const w = (await runJson(repo, ['add', 'Junk from eve'], as('eve', 17))).task.id
    await runJson(repo, ['comment', x, 'I was here'], as('eve', 18))
    await runJson(repo, ['claim', y], as('eve', 19))

    // Nobody's writes: exit 3, nothing written.
    const tip0 = gitSync(repo, ['rev-parse', REF]).trim()
    const none = await run(repo, ['revert', '--actor', 'mallory', '--json'], as('ops', 30))
    expect(none.code).toBe(3)
    expect(jsonError(none).code).toBe('nothing_to_revert')

    // Looking first: the same answer, nothing written.
    const dry = await runJson(repo, ['revert', '--actor', 'eve', '--since', since.slice(0, 12), '--dry-run'], as('ops', 30))
    expect(gitSync(repo, ['rev-parse', REF]).trim()).toBe(tip0)
    expect(dry).toMatchObject({dry_run: true, commit: null, commits: 8, since})
    expect(dry.published).toBeUndefined()
    expect(dry.restored.map((r: any) => [r.id, r.field, r.from, r.to])).toEqual([
      [x, 'priority', 0, 2],
      [x, 'description', 'vandalised\n', 'the plan\n'],
      [y, 'tags', ['a', 'b'], ['a']],
      // eve 2→4, bob 4→1, eve 1→3: back to bob's 1, not to the 2 before eve's first change.
      [z, 'priority', 3, 1],
    ])
    expect(dry.kept).toEqual([{id: y, title: 'Review (bob)', field: 'title', value: 'Review (bob)', set: 'Review (eve)', by: ['bob']}])
    expect(dry.cancelled).toEqual([{id: w, title: 'Junk from eve'}])
    // eve still holds y, live: someone else releases it only with --force.
    expect(dry.skipped).toEqual([{id: y, title: 'Review (bob)', field: 'status', reason: expect.stringContaining('held live by eve')}])
    expect(dry.comments).toEqual([expect.objectContaining({id: x, kind: 'note'})])
    const human = await run(repo, ['revert', '--actor', 'eve', '--since', since, '--dry-run'], as('ops', 30))
    // People read short ids, as everywhere else; the JSON carries each card's (short_ids).
    expect(dry.short_ids[y]).toMatch(/^tsk-[0-9a-z]{4,}$/)
    expect(y.startsWith(dry.short_ids[y])).toBe(true)
    expect(human.stdout).toContain(`kept      ${dry.short_ids[y]}  title: Review (bob) (eve set Review (eve); changed since by bob)`)
    expect(human.stdout).toContain('dry run: nothing written')
    expect(gitSync(repo, ['rev-parse', REF]).trim()).toBe(tip0)

    // --until: her writes after it (the card, the comment, the claim) are not hers in the window, and --remove removes.
    const early = await runJson(repo, ['revert', '--actor', 'eve', '--since', since, '--until', until, '--remove', '--dry-run'], as('ops', 30))
    expect(early.commits).toBe(5)
    expect(early.cancelled).toEqual([])
    expect(early.comments).toEqual([])
    const removing = await runJson(repo, ['revert', '--actor', 'eve', '--since', since, '--remove', '--dry-run'], as('ops', 30))
    expect(removing.removed).toEqual([{id: w, title: 'Junk from eve'}])

    // The revert: one commit, with the claim released under the override.
    const done = await runJson(repo, ['revert', '--actor', 'eve', '--since', since, '--force', '--reason', 'looping agent'], as('ops', 30))
    expect(done.released).toEqual([{id: y, title: 'Review (bob)', owner: 'eve'}])
    expect(done.commit).toBe(gitSync(repo, ['rev-parse', REF]).trim())
    expect(gitSync(repo, ['rev-list', '--count', `${tip0}..${REF}`]).trim()).toBe('1')
    const message = gitSync(repo, ['log', '-1', '--format=%B', REF])
    for (const line of ['Tasks-Op: revert', 'Reverts-Actor: eve', `Task: ${x}`, `Task: ${y}`, `Task: ${z}`, `Task: ${w}`, 'Tasks-Reason: looping agent', 'Actor: ops']) expect(message).toContain(line)
    const shown = await runJson(repo, ['show', x])
    expect(shown.task ?? shown).toMatchObject({priority: 2})
    expect(JSON.stringify(shown)).toContain('the plan')
    expect((await runJson(repo, ['show', y])).task ?? {}).toMatchObject({title: 'Review (bob)', tags: ['a'], status: 'todo'})
    expect((await runJson(repo, ['show', w])).task ?? {}).toMatchObject({status: 'cancelled'})
    const log = await run(repo, ['log', '-n', '1'])
    expect(log.stdout).toContain("took back eve's writes")
    // Everything of hers is taken back now: a second revert restores nothing.
    const again = await runJson(repo, ['revert', '--actor', 'eve', '--since', since], as('ops', 31))
    expect(again.commit).toBeNull()
    expect(again.restored).toEqual([])
  })

  it('through a shared remote with the guard installed: the revert is published and accepted', async () => {
    const {bare, clones} = await guarded(2)
    const [ops, agent] = clones as [string, string]
    const bob = {env: {TASKS_ACTOR: 'bob'}}
    const eve = {env: {TASKS_ACTOR: 'eve'}}
    const x = (await runJson(ops, ['add', 'Plan'], bob)).task.id
    const y = (await runJson(ops, ['add', 'Build', '--depends-on', x], bob)).task.id
    const since = tipOf(bare)!
    await runJson(agent, ['edit', x, '--priority', '0', '--title', 'Plan (eve)'], eve)
    await runJson(agent, ['done', x], eve)
    await runJson(ops, ['edit', x, '--title', 'Plan (bob)'], bob)
    await runJson(ops, ['claim', y], bob)
    const junk = (await runJson(agent, ['add', 'Junk'], eve)).task.id
    await runJson(agent, ['claim', junk], eve)
    const r = await runJson(ops, ['revert', '--actor', 'eve', '--since', since, '--force', '--reason', 'bad run'], {env: {TASKS_ACTOR: 'ops'}})
    expect(r.published).toBe(true)
    expect(tipOf(bare)).toBe(r.commit)
    expect(r.restored.map((c: any) => [c.id, c.field, c.to])).toEqual([
      [x, 'status', 'todo'],
      [x, 'priority', 2],
    ])
    expect(r.kept).toEqual([expect.objectContaining({id: x, field: 'title', by: ['bob']})])
    expect(r.cancelled).toEqual([{id: junk, title: 'Junk'}])
    // bob's claim of the card that depended on x is left, and said.
    expect(r.notes).toEqual([expect.stringContaining(`${y} (in_progress, held by bob) depends on ${x}`)])
    const seen = await runJson(ops, ['show', x], bob)
    expect(seen.task ?? seen).toMatchObject({status: 'todo', title: 'Plan (bob)', priority: 2})
  })

  it('across a sync merge: what eve did on her clone goes back; a value the merge chose over hers stays, kept', async () => {
    const bare = makeBareRepo()
    const [one, two] = [cloneOf(bare), cloneOf(bare)]
    await runJson(one, ['init', '--remote', 'origin'], as('bob', 0))
    await runJson(two, ['init', '--remote', 'origin'], as('eve', 0))
    const x = (await runJson(one, ['add', 'Write the loader', '-p', '2', '--tags', 'core'], as('bob', 1))).task.id
    const y = (await runJson(one, ['add', 'Ship it', '-p', '2'], as('bob', 2))).task.id
    const base = tipOf(bare)!
    await runJson(two, ['sync'], as('eve', 3))
    // Apart: eve on her clone, bob on his; on y both change the priority, bob later.
    const off = (actor: string, minute: number) => ({env: {...at(minute), TASKS_ACTOR: actor, TASKS_OFFLINE: '1'}})
    await runJson(two, ['edit', x, '--priority', '0', '--add-tags', 'eve'], off('eve', 5))
    await runJson(two, ['edit', y, '--priority', '4'], off('eve', 6))
    await runJson(one, ['edit', x, '--title', 'Write the loader (bob)'], off('bob', 7))
    await runJson(one, ['edit', y, '--priority', '1'], off('bob', 8))
    await runJson(two, ['sync'], as('eve', 10))
    await runJson(one, ['sync'], as('bob', 11))
    // One two-parent merge on the shared list joined them; y's priority is bob's (the later side).
    const merged = tipOf(bare)!
    expect(gitSync(one, ['rev-list', '--parents', '-n1', merged]).trim().split(' ')).toHaveLength(3)
    expect((await runJson(one, ['show', y], as('bob', 12))).task.priority).toBe(1)

    const r = await runJson(one, ['revert', '--actor', 'eve', '--since', base, '--reason', 'eve ran the wrong plan'], as('ops', 20))
    expect(r.published).toBe(true)
    expect(r.commits).toBe(2)
    expect(r.restored.map((c: any) => [c.id, c.field, c.from, c.to])).toEqual([
      [x, 'priority', 0, 2],
      [x, 'tags', ['core', 'eve'], ['core']],
    ])
    // The merge chose bob's value over eve's: nothing of hers is left there to take back.
    expect(r.kept).toEqual([expect.objectContaining({id: y, field: 'priority', value: 1, set: 4})])
    expect(r.restored.some((c: any) => c.id === y)).toBe(false)
    await runJson(two, ['sync'], as('eve', 22))
    expect((await runJson(two, ['show', x], as('eve', 23))).task).toMatchObject({title: 'Write the loader (bob)', priority: 2, tags: ['core']})
    expect((await runJson(two, ['show', y], as('eve', 23))).task.priority).toBe(1)
  })
})
