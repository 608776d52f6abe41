/**
 * Several ids in one command (issue 8, point 11): one commit, all or
 * nothing, the refused item named in the error; and `rm` asking before it
 * removes on a terminal.
 */
import {spawnSync} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, TEST_ENV, cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson, tempDir} from '../helpers/cli'

const ALICE = {env: {TASKS_ACTOR: 'alice'}}
const BOB = {env: {TASKS_ACTOR: 'bob'}}

let repo: string
const tip = (): string => gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
const add = async (title: string, extra: string[] = []): Promise<string> => (await runJson(repo, ['add', title, ...extra], ALICE)).task.id

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'])
})
afterAll(() => cleanupAll())

describe('several ids: one commit, all or nothing', () => {
  it('done A B C with B held by someone else writes nothing and names B', async () => {
    const [a, b, c] = [await add('A'), await add('B'), await add('C')]
    await runJson(repo, ['claim', b], BOB)
    const before = tip()
    const r = await run(repo, ['done', a, b.slice(0, 8), c, '--json'], ALICE)
    expect(r.code).toBe(6)
    const e = jsonError(r)
    expect(e).toMatchObject({code: 'not_owner', id: b, index: 1})
    expect(e.message).toContain('item 2 of 3')
    expect(tip()).toBe(before)
    const show = await runJson(repo, ['show', a], ALICE)
    expect(show.task.status).toBe('todo')
    // Human output names it too.
    // Human output names it too, by its short id (JSON keeps the full one).
    const human = await run(repo, ['done', a, b, c], ALICE)
    expect(human.stderr).toContain(b.slice(0, 8))
    expect(tip()).toBe(before)
  })

  it('done A C is one commit naming both, with one result per item', async () => {
    const [a, c] = [await add('A2'), await add('C2')]
    const before = tip()
    const r = await runJson(repo, ['done', a, c], ALICE)
    expect(r.results.map((i: any) => [i.task.id, i.task.status, i.changed])).toEqual([
      [a, 'done', true],
      [c, 'done', true],
    ])
    expect(gitSync(repo, ['rev-parse', `${r.commit}^`]).trim()).toBe(before)
    const message = gitSync(repo, ['log', '-1', '--format=%B', r.commit])
    expect(message).toMatch(/^done: 2 tasks/)
    expect(message).toContain(`Task: ${a}`)
    expect(message).toContain(`Task: ${c}`)
    // Again: nothing changed, nothing written.
    const again = await runJson(repo, ['done', a, c], ALICE)
    expect(again.commit).toBeNull()
    expect(again.results.every((i: any) => i.changed === false)).toBe(true)
    // reopen both in one commit; a single id keeps the single-item shape.
    const reopened = await runJson(repo, ['reopen', a, c], ALICE)
    expect(reopened.results.map((i: any) => i.task.status)).toEqual(['todo', 'todo'])
    const one = await runJson(repo, ['done', a], ALICE)
    expect(Object.keys(one).sort()).toEqual(['changed', 'commit', 'published', 'task'])
  })

  it('assign, release and cancel take several ids', async () => {
    const [a, b] = [await add('Assign A'), await add('Assign B')]
    const assigned = await runJson(repo, ['assign', a, b, 'carol'], ALICE)
    expect(assigned.results.map((i: any) => i.task.assignee)).toEqual(['carol', 'carol'])
    const cleared = await runJson(repo, ['assign', a, b, '--none'], ALICE)
    expect(cleared.results.map((i: any) => i.task.assignee)).toEqual([null, null])
    await runJson(repo, ['claim', a], ALICE)
    await runJson(repo, ['claim', b], ALICE)
    const released = await runJson(repo, ['release', a, b], ALICE)
    expect(released.released.map((t: any) => t.status)).toEqual(['todo', 'todo'])
    const epoch = await run(repo, ['release', a, b, '--epoch', '1', '--json'], ALICE)
    expect(jsonError(epoch).code).toBe('usage')
    const parent = await add('Parent')
    const child = await add('Child', ['--parent', parent])
    // The child is cancelled with its parent: not acted on twice, and not an error.
    const cancelled = await runJson(repo, ['cancel', parent, child, a, '--reason', 'scope cut'], ALICE)
    expect(cancelled.results.map((i: any) => i.task.id)).toEqual([parent, a])
    expect(cancelled.results[0].subitems.map((t: any) => t.id)).toEqual([child])
  })

  it('rm A B removes both (and sub-items) in one commit; a refused id keeps everything', async () => {
    const [a, b, dep] = [await add('Rm A'), await add('Rm B'), await add('Depended on')]
    const child = await add('Rm child', ['--parent', a])
    await add('Depends', ['--depends-on', dep])
    const before = tip()
    const refused = await run(repo, ['rm', a, dep, '--confirm', a, dep, '--reason', 'r', '--with-subitems', '--json'], ALICE)
    expect(refused.code).toBe(4)
    expect(jsonError(refused)).toMatchObject({code: 'has_dependents', id: dep, index: 1})
    expect(tip()).toBe(before)
    const r = await runJson(repo, ['rm', a, child, b, '--confirm', a, child, b, '--reason', 'r', '--with-subitems'], ALICE)
    expect(r.removed.map((t: any) => t.id)).toEqual([a, child, b])
    expect(gitSync(repo, ['rev-parse', `${r.commit}^`]).trim()).toBe(before)
  })
})

describe('rm asks on a terminal', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0

  /** Run the CLI with stdin and stdout on a pseudo-terminal (util-linux `script`), typing `typed`. */
  function underPty(args: string[], typed: string): {code: number; output: string} {
    const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
    const r = spawnSync('script', ['-qec', quoted, '/dev/null'], {cwd: repo, env: {...TEST_ENV, TASKS_ACTOR: 'alice'}, encoding: 'utf8', input: typed})
    return {code: r.status ?? -1, output: r.stdout}
  }

  it.runIf(hasScript)('n keeps the task; y and a reason remove it; --yes with --reason does not ask', async () => {
    const a = await add('Keep or remove')
    const no = underPty(['rm', a], 'n\n')
    expect(no.output).toContain('[y/N]')
    expect(no.code, no.output).toBe(2)
    expect(no.output).toContain('not confirmed')
    expect((await runJson(repo, ['show', a], ALICE)).task.id).toBe(a)
    // Yes, then no reason: refused, nothing removed.
    const noReason = underPty(['rm', a], 'y\n\n')
    expect(noReason.output).toContain('why?')
    expect(noReason.code, noReason.output).toBe(2)
    expect((await runJson(repo, ['show', a], ALICE)).task.id).toBe(a)
    const yes = underPty(['rm', a], 'y\nmade by mistake\n')
    expect(yes.code, yes.output).toBe(0)
    expect(yes.output).toContain(`removed`)
    expect((await runJson(repo, ['log', a], ALICE)).events[0].details.reason).toBe('made by mistake')
    const b = await add('Removed without asking')
    const quiet = underPty(['rm', '-y', b, '--reason', 'sure'], '')
    expect(quiet.code, quiet.output).toBe(0)
    expect(quiet.output).not.toContain('[y/N]')
  })

  it('without a terminal (scripts, agents) rm does not ask: it needs --confirm and --reason', async () => {
    const a = await add('Piped')
    const before = tip()
    const r = await run(repo, ['rm', a], ALICE)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stdout).not.toContain('[y/N]')
    expect(r.stderr).toContain('--confirm')
    expect(tip()).toBe(before)
    expect((await run(repo, ['rm', a, '--confirm', a, '--reason', 'piped'], ALICE)).code).toBe(0)
  })
})

describe('undo', () => {
  const CAROL = {env: {TASKS_ACTOR: 'carol'}}
  const log1 = (ref = 'refs/tasks/main'): string => gitSync(repo, ['log', '-1', '--format=%B', ref])

  it("takes back the actor's last change as a new commit; undo again redoes", async () => {
    const a = (await runJson(repo, ['add', 'Undo me'], CAROL)).task.id
    const done = await runJson(repo, ['done', a], CAROL)
    const before = tip()
    const u = await runJson(repo, ['undo'], CAROL)
    expect(u).toMatchObject({undone: done.commit, restored: [{id: a, title: 'Undo me'}], removed: [], files: []})
    expect(gitSync(repo, ['rev-parse', `${u.commit}^`]).trim()).toBe(before)
    expect(log1()).toContain(`Tasks-Undo: ${done.commit}`)
    expect(log1()).toContain(`Task: ${a}`)
    const after = (await runJson(repo, ['show', a], CAROL)).task
    expect(after).toMatchObject({status: 'todo', owner: null, updated_by: 'carol'})
    expect(after.revision).toBe(done.task.revision + 1)
    // The undo is now carol's last change: undoing it redoes the done.
    const redo = await runJson(repo, ['undo'], CAROL)
    expect(redo.undone).toBe(u.commit)
    expect((await runJson(repo, ['show', a], CAROL)).task.status).toBe('done')
  })

  it('an add is undone by removing the task; a comment by removing the comment', async () => {
    const added = await runJson(repo, ['add', 'Added by mistake'], CAROL)
    const u = await runJson(repo, ['undo'], CAROL)
    expect(u.removed).toEqual([{id: added.task.id, title: 'Added by mistake'}])
    expect((await run(repo, ['show', added.task.id, '--json'], CAROL)).code).toBe(3)
    const t = (await runJson(repo, ['add', 'Commented'], CAROL)).task.id
    await runJson(repo, ['comment', t, 'oops'], CAROL)
    const c = await runJson(repo, ['undo'], CAROL)
    expect(c.files).toEqual([{path: expect.stringContaining(`/${t}/comments/`), change: 'removed'}])
    expect((await runJson(repo, ['show', t], CAROL)).comments).toEqual([])
  })

  it('an rm is undone by bringing the task back with its comments', async () => {
    const t = (await runJson(repo, ['add', 'Removed by mistake'], CAROL)).task.id
    await runJson(repo, ['comment', t, 'keep me'], CAROL)
    await runJson(repo, ['rm', t, '--confirm', t, '--reason', 'by mistake'], CAROL)
    const u = await runJson(repo, ['undo'], CAROL)
    expect(u.restored).toEqual([{id: t, title: 'Removed by mistake'}])
    const s = await runJson(repo, ['show', t], CAROL)
    expect(s.comments.map((c: any) => c.body)).toEqual(['keep me'])
  })

  it('refused when a later commit by someone else touched the same task, naming it', async () => {
    const t = (await runJson(repo, ['add', 'Contested'], CAROL)).task.id
    await runJson(repo, ['done', t], CAROL)
    const bobs = await runJson(repo, ['comment', t, 'I saw it done'], BOB)
    const before = tip()
    const r = await run(repo, ['undo', '--json'], CAROL)
    expect(r.code).toBe(4)
    const e = jsonError(r)
    expect(e.code).toBe('undo_conflict')
    expect(e.later).toEqual([{commit: bobs.commit, subject: expect.stringContaining('comment'), tasks: [t]}])
    expect(e.message).toContain(bobs.commit.slice(0, 10))
    expect(tip()).toBe(before)
    // A later commit on another task does not stand in the way.
    await runJson(repo, ['add', 'Unrelated'], BOB)
    const nothing = await run(repo, ['undo', '--json'], {env: {TASKS_ACTOR: 'nobody-yet'}})
    expect(nothing.code).toBe(3)
    expect(jsonError(nothing).code).toBe('nothing_to_undo')
  })

  it('refused when a sub-item was added since under a task it would remove', async () => {
    const p = (await runJson(repo, ['add', 'New parent'], CAROL)).task.id
    await runJson(repo, ['add', 'Child by bob', '--parent', p], BOB)
    const r = await run(repo, ['undo', '--json'], CAROL)
    expect(r.code).toBe(4)
    expect(jsonError(r).code).toBe('undo_conflict')
  })

  it('online: a change published from another clone since is caught on the remote tip', async () => {
    const bare = makeBareRepo()
    const clone = (): string => {
      const dir = tempDir('clone-')
      gitSync(dir, ['clone', '-q', bare, '.'])
      return dir
    }
    const c1 = clone()
    await runJson(c1, ['init', '--remote', 'origin'])
    const t = (await runJson(c1, ['add', 'Shared'], CAROL)).task.id
    await runJson(c1, ['done', t], CAROL)
    const c2 = clone()
    await runJson(c2, ['init', '--remote', 'origin'])
    await runJson(c2, ['edit', t, '--title', 'Shared, renamed by bob'], BOB)
    // c1 has not fetched bob's edit: the op, run on the remote's tip, still sees it.
    const r = await run(c1, ['undo', '--json'], CAROL)
    expect(r.code, r.stderr).toBe(4)
    expect(jsonError(r)).toMatchObject({code: 'undo_conflict', tasks: [t]})
    // Once fetched, the later commit is named.
    const again = await run(c1, ['undo', '--json'], CAROL)
    expect((jsonError(again).later as Array<{tasks: string[]}>)[0]).toMatchObject({tasks: [t]})
  })
})
