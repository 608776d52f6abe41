/**
 * `tasks doctor`: the reconciler's checks on demand. A dependency cycle and a
 * dangling dependency are put on the ref by hand with git plumbing (as a
 * hand edit or a buggy tool would: the CLI refuses both); `doctor --json`
 * reports them and exits 5 without writing; `doctor --fix` repairs them in
 * one commit (exit 0), records a `problem` comment by git-tasks on each card
 * it changed, and — in online mode — publishes the repair with the hand
 * edits it sits on.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, run, runJson} from '../helpers/cli'
import {history, trailer} from '../race/support'
import {REF, putFileOnRef, shared, taskPath, tipOf} from './support'

const ME = {env: {TASKS_ACTOR: 'alice'}}

afterAll(() => cleanupAll())

/** Replace the depends_on list of a task by hand (plumbing only). */
function setDepsByHand(repo: string, id: string, deps: string[]): void {
  const path = taskPath(repo, id)
  const text = gitSync(repo, ['cat-file', '-p', `${REF}:${path}`])
  const yaml = deps.length ? `depends_on:\n${deps.map((d) => `  - "${d}"`).join('\n')}\n` : 'depends_on: []\n'
  const next = text.replace(/^depends_on:(?: \[\])?\n(?:  - .*\n)*/m, yaml)
  expect(next).not.toBe(text)
  putFileOnRef(repo, path, next, `hand edit: depends_on of ${id}`)
}

async function doctor(repo: string, args: string[] = []): Promise<{code: number; out: any}> {
  const r = await run(repo, ['doctor', ...args, '--json'], ME)
  expect(r.stderr, r.stderr).toBe('')
  return {code: r.code, out: JSON.parse(r.stdout)}
}

describe('tasks doctor on a hand-broken list', {timeout: 60_000}, () => {
  it('a dependency cycle: reported (exit 5, nothing written), repaired by --fix (exit 0) with a comment on the card, and published', async () => {
    const {bare, clones} = await shared(1)
    const c = clones[0]!
    const p = (await runJson(c, ['add', 'P'], ME)).task.id
    const q = (await runJson(c, ['add', 'Q', '--depends-on', p], ME)).task.id
    // The CLI refuses the closing edge…
    const refused = await run(c, ['deps', p, q, '--json'], ME)
    expect(refused.code).toBe(5)
    // …so it is made by hand: P → Q while Q → P.
    setDepsByHand(c, p, [q])

    const healthyBefore = tipOf(bare)
    const tip = tipOf(c)
    const report = await doctor(c)
    expect(report.code).toBe(5)
    expect(report.out.commit).toBe(tip)
    expect(report.out.fixed).toBeNull()
    expect(report.out.repairs).toEqual([])
    expect(report.out.violations).toHaveLength(1)
    expect(report.out.violations[0]).toMatchObject({kind: 'dependency_cycle'})
    expect([p, q]).toContain(report.out.violations[0].task)
    expect(tipOf(c)).toBe(tip)

    const fixed = await doctor(c, ['--fix'])
    expect(fixed.code).toBe(0)
    expect(fixed.out.fixed).toMatch(/^[0-9a-f]{40}$/)
    expect(fixed.out.repairs).toHaveLength(1)
    const repaired = fixed.out.repairs[0]
    expect(repaired.kind).toBe('dependency_cycle')
    expect(tipOf(c)).toBe(fixed.out.fixed)
    // Online mode: the repair (and the hand edit under it) is on the remote.
    expect(tipOf(bare)).toBe(fixed.out.fixed)
    expect(tipOf(bare)).not.toBe(healthyBefore)
    const top = history(bare)[0]!
    expect(trailer(top, 'Tasks-Op')).toBe('doctor')
    expect(trailer(top, 'Tasks-Repair')).toBe(`dependency_cycle ${repaired.task}`)

    const card = await runJson(c, ['show', repaired.task], ME)
    expect(card.task.depends_on).toEqual([])
    expect(card.task.updated_by).toBe('git-tasks')
    expect(card.comments.some((x: any) => x.kind === 'problem' && x.author === 'git-tasks' && /cycle/i.test(x.body))).toBe(true)
    const other = repaired.task === p ? q : p
    expect((await runJson(c, ['show', other], ME)).task.depends_on).toEqual([repaired.task])

    const again = await doctor(c)
    expect(again.code).toBe(0)
    expect(again.out.violations).toEqual([])
    const noop = await doctor(c, ['--fix'])
    expect(noop.code).toBe(0)
    expect(noop.out.fixed).toBeNull()
  })

  it('a dangling dependency: reported, repaired by --fix with a comment on the card', async () => {
    const {clones} = await shared(1)
    const c = clones[0]!
    const t = (await runJson(c, ['add', 'Waits on a ghost'], ME)).task.id
    const ghost = 'tsk-zzzzzzzzzz'
    setDepsByHand(c, t, [ghost])

    const report = await doctor(c)
    expect(report.code).toBe(5)
    expect(report.out.violations).toEqual([{kind: 'dangling_dependency', task: t, related: [ghost], message: expect.any(String)}])

    const fixed = await doctor(c, ['--fix', '--offline'])
    expect(fixed.code).toBe(0)
    expect(fixed.out.repairs).toEqual([{kind: 'dangling_dependency', task: t, message: expect.stringContaining(ghost)}])
    const card = await runJson(c, ['show', t], ME)
    expect(card.task.depends_on).toEqual([])
    expect(card.task.ready).toBe(true)
    expect(card.comments.filter((x: any) => x.kind === 'problem' && x.author === 'git-tasks' && x.body.includes(ghost))).toHaveLength(1)
    expect((await doctor(c)).code).toBe(0)
  })

  it('an item done before its dependency (done --force): reported, not a failure, and --fix leaves it', async () => {
    const {clones} = await shared(1)
    const c = clones[0]!
    const dep = (await runJson(c, ['add', 'Dependency'], ME)).task.id
    const t = (await runJson(c, ['add', 'Done early', '--depends-on', dep], ME)).task.id
    await runJson(c, ['done', t, '--force', '--reason', 'shipped anyway'], ME)
    const report = await doctor(c)
    expect(report.code).toBe(0)
    expect(report.out.violations).toEqual([{kind: 'done_with_open_dependency', task: t, related: [dep], message: expect.any(String)}])
    const human = await run(c, ['doctor'], ME)
    expect(human.stdout).not.toContain('--fix')
    const before = gitSync(c, ['rev-parse', REF]).trim()
    const fixed = await doctor(c, ['--fix', '--offline'])
    expect(fixed.code).toBe(0)
    expect(fixed.out).toMatchObject({fixed: null, repairs: []})
    expect(gitSync(c, ['rev-parse', REF]).trim()).toBe(before)
  })
})
