/**
 * Issue 32, items 4, 7 and 13 through real `tasks` processes: the creation
 * gates (require_checks) on the command line and in a batch file,
 * confirmed removal (no terminal: --confirm and --reason; --with-subitems;
 * the reason in `tasks log`), and done items that break done's rules,
 * reopened by `doctor --fix` (hand-made commits) and by the merge of two
 * clones' edits. Each refusal leaves the ref where it was.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {type RunOptions, cleanupAll, gitSync, jsonError, run, runJson} from '../helpers/cli'
import {initializedRepo} from '../helpers/list-repo'
import {putFileOnRef, shared, taskPath} from '../remote/support'
import {shardOf} from '../../src/core/ids'

afterAll(() => cleanupAll())

const ALICE = {env: {TASKS_ACTOR: 'alice'}}
const BOB = {env: {TASKS_ACTOR: 'bob'}}
const tip = (repo: string) => gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()

/** Run, expect a refusal with this exit and code, and that nothing was written. */
async function refused(repo: string, args: string[], exit: number, code: string, opts: RunOptions = ALICE): Promise<any> {
  const before = tip(repo)
  const r = await run(repo, [...args, '--json'], opts)
  expect(r.code, r.stderr).toBe(exit)
  const e = jsonError(r)
  expect(e.code).toBe(code)
  expect(tip(repo)).toBe(before)
  return e
}

describe('creation gates (require_checks)', {timeout: 60_000}, () => {
  it('add needs both kinds, batch items too; the last check of a kind stays; done needs one of each', async () => {
    const repo = await initializedRepo()
    // Off (the default): a task without checks, both checks superseded, and done goes through as before.
    const free = (await runJson(repo, ['add', 'Free', '--acceptance', 'a', '--test', 't'], ALICE)).task.id
    const checks = (await runJson(repo, ['check', 'list', free], ALICE)).checks.map((c: any) => c.id)
    for (const c of checks) await runJson(repo, ['check', 'supersede', free, c, '--reason', 'obsolete'], ALICE)
    expect((await runJson(repo, ['done', free], ALICE)).task.status).toBe('done')

    await runJson(repo, ['config', 'set', 'require_checks', 'true'], ALICE)
    expect((await runJson(repo, ['config', 'get', 'require_checks'], ALICE)).value).toBe(true)
    expect((await refused(repo, ['add', 'Bare'], 4, 'checks_required')).missing).toEqual(['acceptance', 'test'])
    expect((await refused(repo, ['add', 'Half', '--acceptance', 'works'], 4, 'checks_required')).missing).toEqual(['test'])
    const gated = await runJson(repo, ['add', 'Whole', '--acceptance', 'it works', '--test', 'npm test'], ALICE)
    expect(gated.checks.map((c: any) => c.kind)).toEqual(['acceptance', 'test'])
    const id = gated.task.id
    const [acc, tst] = gated.checks.map((c: any) => c.id)

    // Batch: the add item carries both; a later check_add does not rescue it; all or nothing.
    const bare = JSON.stringify([{op: 'add', name: 'a', title: 'In batch', acceptance: ['x']}, {op: 'check_add', id: '$a', test: 't'}])
    await refused(repo, ['batch', '-'], 4, 'checks_required', {...ALICE, input: bare})
    const ok = await runJson(repo, ['batch', '-'], {...ALICE, input: JSON.stringify([{op: 'add', title: 'In batch', acceptance: ['x'], test: ['t']}])})
    expect(ok.applied).toBe(1)

    // Supersede: the last active one of a kind is refused; with a replacement it goes.
    expect((await refused(repo, ['check', 'supersede', id, acc, '--reason', 'old'], 4, 'checks_required')).kind).toBe('acceptance')
    await runJson(repo, ['check', 'add', id, '--acceptance', 'it works, restated'], ALICE)
    expect((await runJson(repo, ['check', 'supersede', id, acc, '--reason', 'restated'], ALICE)).check.status).toBe('superseded')
    await refused(repo, ['check', 'supersede', id, tst, '--reason', 'old'], 4, 'checks_required')

    // The card made before the gate, reopened: done is refused until it has one of each again.
    await runJson(repo, ['reopen', free], ALICE)
    expect((await refused(repo, ['done', free], 4, 'checks_required')).missing).toEqual(['acceptance', 'test'])
  })

  it('the guard refuses a hand-made card without checks and a hand-made supersede of the last one', async () => {
    const repo = await initializedRepo()
    const made = await runJson(repo, ['add', 'Checked', '--acceptance', 'a', '--test', 't'], ALICE)
    const id = made.task.id
    await runJson(repo, ['config', 'set', 'require_checks', 'true'], ALICE)
    const good = tip(repo)
    const dir = taskPath(repo, id).replace('/task.md', '')
    const acc = made.checks.find((c: any) => c.kind === 'acceptance').id
    const checkText = gitSync(repo, ['cat-file', '-p', `refs/tasks/main:${dir}/checks/${acc}.md`])
    const superseded = checkText
      .replace('status: "pending"', 'status: "superseded"')
      .replace(/^updated_by: .*$/m, 'superseded_by: "alice"\nsuperseded_at: "2026-12-01T00:00:00.000Z"\nsupersede_reason: "gone"\nupdated_by: "alice"')
    const forgedSupersede = putFileOnRef(repo, `${dir}/checks/${acc}.md`, superseded, `check ${id}\n\nTasks-Op: check\nActor: alice`)
    const copy = 'tsk-0123456789'
    const card = gitSync(repo, ['cat-file', '-p', `refs/tasks/main:${dir}/task.md`]).split(id).join(copy)
    const forgedAdd = putFileOnRef(repo, `tasks/${shardOf(copy)}/${copy}/task.md`, card, `add ${copy}: Checked\n\nTasks-Op: add\nActor: alice`)
    const r = await run(repo, ['verify', good, forgedAdd, '--json'], ALICE)
    expect(r.code, r.stdout + r.stderr).toBe(5)
    const refusals = JSON.parse(r.stdout).refusals.map((x: any) => [x.commit, x.rule])
    expect(refusals).toEqual([[forgedSupersede, 'checks_required'], [forgedAdd, 'checks_required']])
  })

  it('a finished parent takes no new or reopened sub-item', async () => {
    const repo = await initializedRepo()
    const parent = (await runJson(repo, ['add', 'Parent'], ALICE)).task.id
    const kid = (await runJson(repo, ['add', 'Kid', '--parent', parent], ALICE)).task.id
    await runJson(repo, ['done', kid], ALICE)
    await runJson(repo, ['done', parent], ALICE)
    await refused(repo, ['add', 'Late', '--parent', parent], 4, 'parent_finished')
    expect((await refused(repo, ['reopen', kid], 4, 'parent_finished')).parent).toBe(parent)
    await runJson(repo, ['reopen', parent], ALICE)
    expect((await runJson(repo, ['reopen', kid], ALICE)).task.status).toBe('todo')
  })
})

describe('confirmed removal', {timeout: 60_000}, () => {
  it('without a terminal: --confirm and --reason, --with-subitems for a parent, the reason in tasks log', async () => {
    const repo = await initializedRepo()
    const parent = (await runJson(repo, ['add', 'Parent'], ALICE)).task.id
    const kid = (await runJson(repo, ['add', 'Kid', '--parent', parent], ALICE)).task.id
    const e = await refused(repo, ['rm', parent], 2, 'confirm_required')
    expect(e.message).toContain('tasks cancel')
    await refused(repo, ['rm', parent, '--confirm', kid, '--reason', 'x'], 2, 'confirm_mismatch')
    await refused(repo, ['rm', parent, '--confirm', parent], 2, 'reason_required')
    // --yes answers a terminal's question; a script still confirms.
    await refused(repo, ['rm', parent, '--yes', '--reason', 'x'], 2, 'confirm_required')
    const sub = await refused(repo, ['rm', parent, '--confirm', parent, '--reason', 'duplicate'], 4, 'has_subitems')
    expect(sub.subitems).toEqual([{id: kid, status: 'todo'}])
    expect(sub.message).toContain('--with-subitems')
    const r = await runJson(repo, ['rm', parent, '--confirm', parent.toUpperCase(), '--reason', 'duplicate of the plan', '--with-subitems'], ALICE)
    expect(r.removed.map((t: any) => t.id)).toEqual([parent, kid])
    expect((await runJson(repo, ['list', '--status', 'all'], ALICE)).tasks).toEqual([])
    const log = await runJson(repo, ['log', kid], ALICE)
    expect(log.events[0]).toMatchObject({op: 'rm', details: {reason: 'duplicate of the plan'}})
    expect((await run(repo, ['log', parent], ALICE)).stdout).toContain('reason: duplicate of the plan')
    // A batch rm has no terminal either.
    const x = (await runJson(repo, ['add', 'X'], ALICE)).task.id
    await refused(repo, ['batch', '-'], 2, 'confirm_required', {...ALICE, input: JSON.stringify([{op: 'rm', id: x}])})
    expect((await runJson(repo, ['batch', '-'], {...ALICE, input: JSON.stringify([{op: 'rm', id: x, confirm: [x], reason: 'done elsewhere'}])})).applied).toBe(1)
  })
})

describe('done items that break done\'s rules', {timeout: 90_000}, () => {
  it('doctor --fix reopens a done item that is flagged, has an unmet check or an open sub-item (hand-made commits)', async () => {
    const repo = await initializedRepo()
    const flagged = (await runJson(repo, ['add', 'Flagged later'], ALICE)).task.id
    const checked = (await runJson(repo, ['add', 'Checked later'], ALICE)).task.id
    const parent = (await runJson(repo, ['add', 'Parent'], ALICE)).task.id
    const kid = (await runJson(repo, ['add', 'Kid', '--parent', parent], ALICE)).task.id
    const source = await runJson(repo, ['add', 'Source of a check', '--test', 'npm test'], ALICE)
    const pending = source.checks[0]
    await runJson(repo, ['done', kid], ALICE)
    for (const t of [flagged, checked, parent]) await runJson(repo, ['done', t], ALICE)
    // What a merge of two clones' edits can leave, made by hand: a flag on a done card, a pending check, a reopened sub-item.
    const path = (id: string) => taskPath(repo, id)
    const text = (id: string) => gitSync(repo, ['cat-file', '-p', `refs/tasks/main:${path(id)}`])
    putFileOnRef(repo, path(flagged), text(flagged).replace(/^closed_at: /m, 'flag_reason: "spec is wrong"\nflagged_by: "bob"\nflagged_at: "2026-01-01T00:00:00.000Z"\nclosed_at: '))
    const checkFile = gitSync(repo, ['cat-file', '-p', `refs/tasks/main:${path(source.task.id).replace('/task.md', '')}/checks/${pending.id}.md`])
    putFileOnRef(repo, `${path(checked).replace('/task.md', '')}/checks/${pending.id}.md`, checkFile.split(source.task.id).join(checked))
    putFileOnRef(repo, path(kid), text(kid).replace(/^status: "done"$/m, 'status: "todo"').replace(/^closed_at: .*\n/m, ''))
    // Found: exit 5, nothing written.
    const before = tip(repo)
    const found = await run(repo, ['doctor', '--json'], ALICE)
    expect(found.code, found.stderr).toBe(5)
    const violations = JSON.parse(found.stdout).violations.map((v: any) => [v.kind, v.task])
    expect(violations).toEqual(expect.arrayContaining([['done_while_flagged', flagged], ['done_with_unmet_checks', checked], ['done_with_open_subitems', parent]]))
    expect(tip(repo)).toBe(before)
    // Fixed: each reopened, the flag kept, why on the card, in the commit and in the output.
    const fixed = await runJson(repo, ['doctor', '--fix'], ALICE)
    expect(fixed.repairs.map((r: any) => [r.kind, r.task]).sort()).toEqual([['done_while_flagged', flagged], ['done_with_open_subitems', parent], ['done_with_unmet_checks', checked]].sort())
    for (const t of [flagged, checked, parent]) expect((await runJson(repo, ['show', t], ALICE)).task.status).toBe('todo')
    expect((await runJson(repo, ['show', flagged], ALICE)).task.flag).toMatchObject({reason: 'spec is wrong', by: 'bob'})
    const shown = await runJson(repo, ['show', checked], ALICE)
    expect(shown.comments.some((c: any) => c.kind === 'problem' && c.author === 'git-tasks' && c.body.includes(pending.id))).toBe(true)
    const message = gitSync(repo, ['log', '-1', '--format=%B', 'refs/tasks/main'])
    for (const t of [flagged, checked, parent]) expect(message).toMatch(new RegExp(`Tasks-Repair: done_\\w+ ${t}`))
    // Healthy now; a second run finds nothing.
    expect((await runJson(repo, ['doctor'], ALICE)).violations).toEqual([])
  })

  it('a sync merge reopens what it made: flagged on one clone while finished on the other', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const flagged = (await runJson(a, ['add', 'Flagged on a'], ALICE)).task.id
    const checked = (await runJson(a, ['add', 'Checked on a'], ALICE)).task.id
    await runJson(b, ['sync'], BOB)
    await runJson(a, ['flag', flagged, 'the spec is wrong', '--offline'], ALICE)
    await runJson(a, ['check', 'add', checked, '--test', 'npm test', '--offline'], ALICE)
    await runJson(b, ['done', flagged, '--offline'], BOB)
    await runJson(b, ['done', checked, '--offline'], BOB)
    await runJson(b, ['sync'], BOB)
    const merged = await runJson(a, ['sync'], ALICE)
    expect(merged.action).toBe('merged')
    expect(merged.repairs.map((r: any) => [r.kind, r.task]).sort()).toEqual([['done_while_flagged', flagged], ['done_with_unmet_checks', checked]].sort())
    for (const t of [flagged, checked]) expect((await runJson(a, ['show', t], ALICE)).task.status).toBe('todo')
    expect((await runJson(a, ['doctor'], ALICE)).violations).toEqual([])
  })
})
