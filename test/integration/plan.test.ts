/**
 * Plans on a branch through the CLI (issue 34, item 4): start → edits on
 * the plan with --list → the live list moves meanwhile (claims, edits) →
 * plan diff → plan merge: both sides' field changes land, claims and epochs
 * on the target are untouched, a conflicting text is kept as a comment,
 * plan.yaml stays on the plan. Refusals write nothing. And through a
 * guarded shared remote: a plan started and drafted on one clone, merged on
 * another, the guard accepting every push (and refusing a forged merge).
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'
import {gitTry, guarded, tipOf} from '../remote/support'

afterAll(() => cleanupAll())

const as = (actor: string) => ({env: {TASKS_ACTOR: actor}})
const ref = (repo: string, list: string) => tipOf(repo, `refs/tasks/${list}`)
const show = async (repo: string, id: string) => (await runJson(repo, ['show', id], as('lead'))).task
const shown = (repo: string, id: string) => runJson(repo, ['show', id], as('lead'))

describe('tasks plan', {timeout: 120_000}, () => {
  it('start, draft with --list, the live list moves, diff, merge: both sides land, claims untouched, texts kept', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], as('lead'))
    const add = async (title: string, ...more: string[]) => (await runJson(repo, ['add', title, ...more], as('lead'))).task.id as string
    const a = await add('Card A', '--body', 'first line\nsecond line\nthird line')
    const b = await add('Card B')
    const c = await add('Card C')
    const d = await add('Card D')
    await runJson(repo, ['claim', b, '--lease', '2h'], as('agent-7'))
    const bBefore = await show(repo, b)

    const started = await runJson(repo, ['plan', 'start', 'q3'], as('planner'))
    const fork = ref(repo, 'main')!
    expect(started).toMatchObject({plan: 'q3', ref: 'refs/tasks/q3', from: 'main', base: fork, created_by: 'planner', published: false})
    // The plan's first commit sits on the fork point and writes plan.yaml (and, as any first write of an actor, its registry entry); no card.
    expect(gitSync(repo, ['rev-parse', 'refs/tasks/q3^']).trim()).toBe(fork)
    expect(gitSync(repo, ['diff-tree', '--no-commit-id', '--name-only', '-r', 'refs/tasks/q3']).trim().split('\n')).toEqual(['actors/planner.yaml', 'plan.yaml'])
    // The name again: refused, nothing written.
    const again = await run(repo, ['plan', 'start', 'q3', '--json'], as('planner'))
    expect(again.code).toBe(4)
    expect(jsonError(again).code).toBe('plan_exists')
    expect(ref(repo, 'q3')).toBe(started.commit)
    expect((await run(repo, ['plan', 'start', 'q4', '--from', 'nope', '--json'], as('planner'))).code).toBe(3)
    expect(ref(repo, 'q4')).toBeNull()
    // A plan of a plan would rewrite its marker: refused.
    expect(jsonError(await run(repo, ['plan', 'start', 'q4', '--from', 'q3', '--json'], as('planner'))).code).toBe('bad_list')
    expect(ref(repo, 'q4')).toBeNull()

    // Drafting on the plan: edit, add with a dependency, deps, cancel, and a claim (which never lands).
    const onPlan = (...args: string[]) => runJson(repo, ['--list', 'q3', ...args], as('planner'))
    await onPlan('edit', a, '--priority', '1', '--body', 'first line\nsecond line, as the plan says\nthird line')
    const fresh = (await onPlan('add', 'Drafted in the plan', '--depends-on', c)).task.id as string
    await onPlan('deps', d, c)
    await onPlan('edit', b, '--title', 'Card B, renamed by the plan', '--force', '--reason', 'the plan renames it')
    await onPlan('cancel', d, '--reason', 'dropped from the plan')
    await onPlan('claim', a)
    // The live list meanwhile: an edit of the same card (another field, and the same line of its text), a claim.
    await runJson(repo, ['edit', a, '--tag', 'live', '--body', 'first line\nsecond line, as the team says\nthird line'], as('lead'))
    await runJson(repo, ['claim', c], as('agent-8'))
    const cBefore = await show(repo, c)
    const mainTip = ref(repo, 'main')!
    const planTip = ref(repo, 'q3')!

    const listed = await runJson(repo, ['plan', 'list'], as('lead'))
    expect(listed.plans).toEqual([expect.objectContaining({plan: 'q3', from: 'main', base: fork, ahead: 7, behind: 2, cards_changed: 4})])

    // plan diff: what the merge would change, nothing written.
    const diff = await runJson(repo, ['plan', 'diff', 'q3'], as('lead'))
    expect(ref(repo, 'main')).toBe(mainTip)
    expect(ref(repo, 'q3')).toBe(planTip)
    expect(diff).toMatchObject({plan: 'q3', into: 'main', base: fork, target_tip: mainTip, plan_commit: planTip})
    const card = (id: string) => diff.diff.cards.find((x: any) => x.id === id)
    expect(card(fresh).change).toBe('added')
    expect(card(a).fields).toEqual(expect.arrayContaining([expect.objectContaining({field: 'priority', before: 2, after: 1})]))
    expect(card(a).fields.map((f: any) => f.field)).not.toContain('owner')
    expect(diff.kept_claims.map((k: any) => k.task)).toEqual([a])
    expect(diff.notes.map((n: any) => n.kind)).toContain('body_conflict')
    const text = await run(repo, ['plan', 'diff', 'q3'], as('lead'))
    expect(text.stdout).toContain('plan q3 into main')
    expect(text.stdout).toContain('Drafted in the plan')

    const merged = await runJson(repo, ['plan', 'merge', 'q3'], as('lead'))
    expect(merged).toMatchObject({plan: 'q3', into: 'main', action: 'merged', target_before: mainTip, plan_commit: planTip, plan_removed: true, published: false})
    // One commit, two parents: the target's tip first (its first-parent line stays the list's), the plan's second.
    expect(ref(repo, 'main')).toBe(merged.commit)
    expect(gitSync(repo, ['log', '-1', '--format=%P', merged.commit]).trim()).toBe(`${mainTip} ${planTip}`)
    expect(ref(repo, 'q3')).toBeNull()
    // The caches kept for the plan's list go with its ref; main's stay.
    const cacheDir = join(repo, '.git', 'git-tasks')
    expect(readdirSync(cacheDir).filter((f) => f.includes('q3'))).toEqual([])
    expect(readdirSync(cacheDir)).toContain('index-main')
    expect(gitSync(repo, ['ls-tree', '--name-only', merged.commit]).split('\n')).not.toContain('plan.yaml')

    const A = await show(repo, a)
    expect(A).toMatchObject({priority: 1, tags: ['live'], status: 'todo', epoch: 0})
    expect(A.owner ?? null).toBeNull()
    // The conflicting line: one side's text in the description, the other's in a comment.
    const aShown = await shown(repo, a)
    const aTexts = [aShown.body, ...aShown.comments.map((x: any) => x.body)].join('\n')
    expect(aTexts).toContain('second line, as the plan says')
    expect(aTexts).toContain('second line, as the team says')
    const B = await show(repo, b)
    expect(B).toMatchObject({title: 'Card B, renamed by the plan', status: 'in_progress', owner: 'agent-7', epoch: bBefore.epoch, lease_expires: bBefore.lease_expires})
    const C = await show(repo, c)
    expect(C).toMatchObject({status: 'in_progress', owner: 'agent-8', epoch: cBefore.epoch})
    expect(await show(repo, d)).toMatchObject({status: 'cancelled', depends_on: [c]})
    expect(await show(repo, fresh)).toMatchObject({title: 'Drafted in the plan', depends_on: [c]})
    // The guard accepts the whole range, the plan's commits and its merge; doctor finds nothing to repair.
    const verified = await runJson(repo, ['verify', mainTip, merged.commit, '--ref', 'refs/tasks/main'])
    expect(verified).toMatchObject({ok: true, refusals: []})
    expect((await runJson(repo, ['doctor'], as('lead'))).violations).toEqual([])

    // Refusals: a list that is not a plan, a plan that is not here.
    const notPlan = await run(repo, ['plan', 'rm', 'main', '--confirm', 'main', '--json'], as('lead'))
    expect(notPlan.code).toBe(4)
    expect(jsonError(notPlan).code).toBe('not_a_plan')
    expect((await run(repo, ['plan', 'merge', 'q3', '--json'], as('lead'))).code).toBe(3)
    expect(ref(repo, 'main')).toBe(merged.commit)
  })

  it('the guard refuses a plan.yaml that names another list than the one it is on', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], as('lead'))
    const started = await runJson(repo, ['plan', 'start', 'q3'], as('planner'))
    const fork = started.base as string
    expect(await runJson(repo, ['verify', fork, started.commit, '--ref', 'refs/tasks/q3'])).toMatchObject({ok: true, refusals: []})
    // The same first commit, its marker naming the plan q4 while it is on q3.
    const marker = gitSync(repo, ['show', `${started.commit}:plan.yaml`])
    expect(marker).toContain('plan: "q3"')
    const blob = gitSync(repo, ['hash-object', '-w', '--stdin'], marker.replace('plan: "q3"', 'plan: "q4"')).trim()
    const tree = gitSync(repo, ['ls-tree', started.commit]).replace(/ blob [0-9a-f]+\tplan\.yaml/, ` blob ${blob}\tplan.yaml`)
    const forged = gitSync(repo, ['commit-tree', gitSync(repo, ['mktree'], tree).trim(), '-p', fork, '-m', gitSync(repo, ['log', '-1', '--format=%B', started.commit])]).trim()
    const verdict = await run(repo, ['verify', fork, forged, '--ref', 'refs/tasks/q3', '--json'])
    expect(verdict.code).toBe(5)
    expect(JSON.parse(verdict.stdout).refusals).toEqual([{commit: forged, path: 'plan.yaml', rule: 'schema', message: 'plan.yaml names the plan "q4", but it is on the list "q3"'}])
  })

  it('--keep keeps the plan; merged again it is up to date; rm wants the name confirmed', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], as('lead'))
    await runJson(repo, ['add', 'Live card'], as('lead'))
    await runJson(repo, ['plan', 'start', 'small'], as('lead'))
    const noDiff = (from: string, to: string) => ({list: 'main', from: {commit: from, date: gitSync(repo, ['log', '-1', '--format=%cI', from]).trim(), input: null}, to: {commit: to, date: gitSync(repo, ['log', '-1', '--format=%cI', to]).trim(), input: null}, actors: null, summary: {added: 0, removed: 0, changed: 0, checks_added: 0, checks_passed: 0, checks_failed: 0, comments: 0}, cards: [], broken: []})
    // A plan with nothing drafted yet (its author already on the target's registry): its merge would leave the target as it is.
    const empty = await runJson(repo, ['plan', 'diff', 'small'], as('lead'))
    expect(empty.merge_commit).toMatch(/^[0-9a-f]{40}$/)
    expect(gitSync(repo, ['rev-parse', `${empty.merge_commit}^{tree}`])).toBe(gitSync(repo, ['rev-parse', 'refs/tasks/main^{tree}']))
    expect(empty.diff).toEqual(noDiff(ref(repo, 'main')!, empty.merge_commit))
    await runJson(repo, ['--list', 'small', 'add', 'One card'], as('lead'))
    const kept = await runJson(repo, ['plan', 'merge', 'small', '--keep'], as('lead'))
    expect(kept).toMatchObject({action: 'merged', plan_removed: false, cards_changed: 1})
    expect((await runJson(repo, ['plan', 'list'], as('lead'))).plans).toEqual([expect.objectContaining({plan: 'small', ahead: 0, behind: 1, cards_changed: 0})])
    const tip = ref(repo, 'main')
    // The target has the whole plan: nothing to merge, nothing to diff.
    expect(await runJson(repo, ['plan', 'diff', 'small'], as('lead'))).toMatchObject({merge_commit: null, target_tip: tip, notes: [], kept_claims: [], diff: noDiff(tip!, tip!)})
    expect(await runJson(repo, ['plan', 'merge', 'small'], as('lead'))).toMatchObject({action: 'up_to_date', commit: tip})
    expect(ref(repo, 'main')).toBe(tip)
    const unconfirmed = await run(repo, ['plan', 'rm', 'small', '--json'], as('lead'))
    expect(unconfirmed.code).toBe(2)
    expect(jsonError(unconfirmed).code).toBe('confirm_required')
    expect((await run(repo, ['plan', 'rm', 'small', '--confirm', 'other', '--json'], as('lead'))).code).toBe(2)
    expect(ref(repo, 'small')).not.toBeNull()
    expect(await runJson(repo, ['plan', 'rm', 'small', '--confirm', 'small'], as('lead'))).toMatchObject({plan: 'small', ref: 'refs/tasks/small'})
    expect(ref(repo, 'small')).toBeNull()
  })

  it('through a guarded remote: drafted on one clone, merged on another; the guard accepts it and refuses a forged merge', async () => {
    const {bare, clones} = await guarded(2)
    const [one, two] = clones as [string, string]
    const live = (await runJson(one, ['add', 'Live card'], as('alice'))).task.id as string
    const started = await runJson(one, ['plan', 'start', 'roadmap'], as('alice'))
    expect(started.published).toBe(true)
    expect(tipOf(bare, 'refs/tasks/roadmap')).toBe(started.commit)
    const drafted = (await runJson(one, ['--list', 'roadmap', 'add', 'Drafted card'], as('alice'))).task.id as string
    await runJson(one, ['--list', 'roadmap', 'edit', live, '--priority', '0'], as('alice'))
    // Meanwhile the live list moves on the other clone: a claim.
    await runJson(two, ['sync'], as('bob'))
    await runJson(two, ['claim', live], as('bob'))
    const claimed = await show(two, live)

    // The other clone has never seen the plan: merge fetches it, lands it, and the guard accepts the push.
    const merged = await runJson(two, ['plan', 'merge', 'roadmap'], as('bob'))
    expect(merged).toMatchObject({action: 'merged', published: true})
    expect(tipOf(bare)).toBe(merged.commit)
    expect(tipOf(two)).toBe(merged.commit)
    const L = await show(two, live)
    expect(L).toMatchObject({priority: 0, status: 'in_progress', owner: 'bob', epoch: claimed.epoch})
    expect((await show(two, drafted)).title).toBe('Drafted card')
    expect(gitSync(bare, ['ls-tree', '--name-only', 'refs/tasks/main']).split('\n')).not.toContain('plan.yaml')
    expect((await runJson(bare, ['verify', '0'.repeat(40), tipOf(bare)!])).ok).toBe(true)

    // A forged "plan merge": the plan's tree (marker and all) under the same two parents. Refused.
    await runJson(one, ['sync'], as('alice'))
    const forged = gitSync(one, ['commit-tree', `${started.commit}^{tree}`, '-p', merged.commit, '-p', started.commit, '-m', 'plan merge: forged\n\nTasks-Op: plan-merge\nActor: alice']).trim()
    gitSync(one, ['update-ref', 'refs/tasks/main', forged])
    const pushed = gitTry(one, ['push', 'origin', 'refs/tasks/main:refs/tasks/main'])
    expect(pushed.code).not.toBe(0)
    expect(pushed.stderr).toContain('merge_not_reproducible')
    expect(tipOf(bare)).toBe(merged.commit)
  })
})
