/**
 * The git merge driver, the fallback for a person who checks the tasks ref
 * out and merges it with plain git. `tasks init` registers it
 * (merge.tasks.driver in .git/config, the task files routed to it in
 * $GIT_DIR/info/attributes, never a committed .gitattributes). Two clones
 * edit one task's title and tags offline; in one of them the tasks ref is
 * checked out as a branch and the other version merged with `git merge`:
 * no conflict, no conflict markers, and the same task.md `tasks sync`
 * produces for the same pair (tags merged as sets). Text the field rules
 * cannot merge (a description or title edited on both sides) is never
 * dropped: the driver leaves it between conflict markers and git reports a
 * conflict (issue 14); a file committed that way reads as broken by path.
 */
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, cleanupAll, gitSync, run, runJson, tempDir} from '../helpers/cli'
import {serialiseTask} from '../../src/core/task-file'
import {task} from '../helpers/snapshot'
import {REF, gitTry, shared, taskPath, tipOf, treeOf} from './support'

afterAll(() => cleanupAll())

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    if (e.name === '.git') continue
    const p = join(dir, e.name)
    if (e.isDirectory()) walk(p, out)
    else out.push(p)
  }
  return out
}

describe('git merge of the checked-out tasks ref uses the field-level driver', {timeout: 90_000}, () => {
  it('`tasks init` registers the driver in .git/config and info/attributes, not in a committed .gitattributes', async () => {
    const {clones} = await shared(1)
    const c = clones[0]!
    const driver = gitSync(c, ['config', 'merge.tasks.driver']).trim()
    expect(driver).toContain('merge-driver %O %A %B %P')
    expect(driver).toContain(BIN)
    const attributes = readFileSync(join(c, '.git', 'info', 'attributes'), 'utf8')
    expect(attributes).toContain('tasks/*/tsk-*/task.md merge=tasks')
    expect(existsSync(join(c, '.gitattributes'))).toBe(false)
    // Running init again does not duplicate the lines.
    await runJson(c, ['init'])
    expect(readFileSync(join(c, '.git', 'info', 'attributes'), 'utf8')).toBe(attributes)
    expect(gitSync(c, ['check-attr', 'merge', '--', 'tasks/ab/tsk-0123456789/task.md'])).toContain('merge: tasks')
  })

  it('two offline versions of one task merge with plain `git merge`: no conflict, no markers, the same task.md as `tasks sync`', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const id = (await runJson(a, ['add', 'Base title', '--tag', 'base-1,base-2'], {env: {TASKS_ACTOR: 'lead'}})).task.id as string
    expect((await runJson(b, ['sync'])).action).toBe('fast_forward')
    await runJson(a, ['edit', id, '--priority', '0', '--tag', 'from-a', '--untag', 'base-1', '--offline'], {env: {TASKS_ACTOR: 'alice'}})
    await runJson(b, ['edit', id, '--title', 'Title from B', '--tag', 'from-b', '--untag', 'base-2', '--offline'], {env: {TASKS_ACTOR: 'bob'}})
    const path = taskPath(a, id)

    // Plain git in clone A: the other version fetched, the tasks ref checked out as a branch and merged.
    gitSync(a, ['fetch', '-q', b, `+${REF}:refs/other/tasks`])
    gitSync(a, ['checkout', '-q', '-b', 't', REF])
    const merged = gitTry(a, ['merge', '--no-edit', 'refs/other/tasks'])
    expect(merged.code, merged.stdout + merged.stderr).toBe(0)
    expect(merged.stdout).not.toMatch(/CONFLICT/)
    expect(gitSync(a, ['rev-list', '--parents', '-n', '1', 'HEAD']).trim().split(' ')).toHaveLength(3)
    for (const f of walk(a)) expect(readFileSync(f, 'utf8'), f).not.toMatch(/^(<{7}|={7}|>{7})( |$)/m)
    const byGit = gitSync(a, ['show', `HEAD:${path}`])
    expect(readFileSync(join(a, path), 'utf8')).toBe(byGit)
    expect(byGit).toMatch(/^title: "Title from B"$/m)
    expect(byGit).toMatch(/^priority: 0$/m)
    expect(byGit).toContain('tags:\n  - "from-a"\n  - "from-b"\n')
    // Nothing is written beside it: git would not commit it.
    expect(gitSync(a, ['status', '--porcelain'])).toBe('')

    // `tasks sync` of the same pair (A publishes, B merges it) gives the same task.md.
    expect((await runJson(a, ['sync'])).action).toBe('pushed')
    const s = await runJson(b, ['sync'])
    expect(s.action).toBe('merged')
    const bySync = gitSync(b, ['show', `${REF}:${path}`])
    expect(bySync).toBe(byGit)
    const shown = await runJson(b, ['show', id])
    expect(shown.task).toMatchObject({title: 'Title from B', priority: 0, tags: ['from-a', 'from-b']})
    expect(treeOf(b)).toBe(treeOf(bare))
  })

  it('issue 14: a description edited on both sides is left in conflict with markers (nothing dropped), fields still merge; committed unresolved it reads as broken by path', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const A = {env: {TASKS_ACTOR: 'alice'}}
    const B = {env: {TASKS_ACTOR: 'bob'}}
    const id = (await runJson(a, ['add', 'Card', '--body', 'line one\nline two\nline three'], A)).task.id as string
    expect((await runJson(b, ['sync'], B)).action).toBe('fast_forward')
    // A, offline: priority and line one; then publishes.
    await runJson(a, ['edit', id, '--priority', '0', '--offline'], A)
    await runJson(a, ['edit', id, '--body', 'line one changed by a\nline two\nline three', '--offline'], A)
    expect((await runJson(a, ['sync'], A)).action).toBe('pushed')
    // B, offline: title and line two (adjacent to A's edit: diff3 cannot merge them).
    await runJson(b, ['edit', id, '--title', 'title from b', '--offline'], B)
    await runJson(b, ['edit', id, '--body', 'line one\nline two changed by b\nline three', '--offline'], B)
    const path = taskPath(b, id)

    // In B, a worktree with the tasks ref checked out, merged with plain git.
    const wt = join(tempDir('wt-'), 'tasks')
    gitSync(b, ['worktree', 'add', '-q', '--detach', wt, REF])
    gitSync(wt, ['fetch', '-q', 'origin', `${REF}:refs/heads/theirs`])
    const merged = gitTry(wt, ['merge', '--no-edit', 'theirs'])
    expect(merged.code, merged.stdout + merged.stderr).toBe(1)
    expect(merged.stdout).toContain(`CONFLICT (content): Merge conflict in ${path}`)
    // The driver says what to do next.
    expect(merged.stdout).toMatch(/git-tasks: .*tasks doctor.*tasks sync/)
    const file = readFileSync(join(wt, path), 'utf8')
    // Both edits are in the file; the fields merged outside the markers.
    expect(file).toContain('line one changed by a')
    expect(file).toContain('line two changed by b')
    expect(file).toMatch(/^<{7} ours\n[^]*\n={7}\n[^]*\n>{7} theirs$/m)
    const frontmatter = file.slice(0, file.indexOf('\n---\n'))
    expect(frontmatter).toMatch(/^title: "title from b"$/m)
    expect(frontmatter).toMatch(/^priority: 0$/m)
    expect(frontmatter).not.toMatch(/^(<{7}|={7}|>{7})/m)
    expect(gitSync(wt, ['ls-files', '-u', '--', path])).not.toBe('')
    // Nothing was written beside it for git to miss.
    expect(gitSync(wt, ['status', '--porcelain', '--untracked-files=all']).split('\n').filter((l) => l.startsWith('??'))).toEqual([])

    // Committed unresolved and put on the ref: every command still works and names the file.
    gitSync(wt, ['add', path])
    gitSync(wt, ['commit', '-q', '--no-edit'])
    gitSync(b, ['update-ref', REF, gitSync(wt, ['rev-parse', 'HEAD']).trim(), tipOf(b)!])
    const listed = await runJson(b, ['list', '--offline'], B)
    expect(listed.broken).toEqual([{path, error: expect.stringMatching(/unresolved merge conflict markers at line \d+/)}])
    const doctor = await run(b, ['doctor', '--json'], B)
    expect(doctor.code, doctor.stderr).toBe(5)
    expect(JSON.parse(doctor.stdout).broken).toEqual([{path, error: expect.stringMatching(/unresolved merge conflict/)}])
    const show = await run(b, ['show', id, '--offline', '--json'], B)
    expect(show.code).toBe(5)
    expect(JSON.parse(show.stderr).error).toMatchObject({code: 'broken_task_file', path})
    // Resolved by hand (both lines kept, markers gone): readable again.
    const resolved = file.replace(/^<{7} ours\n([^]*?)={7}\n([^]*?)>{7} theirs\n/m, 'line one changed by a\nline two changed by b\n')
    expect(resolved).not.toMatch(/^<{7}/m)
    writeFileSync(join(wt, path), resolved)
    gitSync(wt, ['commit', '-q', '-am', 'resolve'])
    gitSync(b, ['update-ref', REF, gitSync(wt, ['rev-parse', 'HEAD']).trim()])
    const shown = await runJson(b, ['show', id, '--offline'], B)
    expect(shown.task).toMatchObject({title: 'title from b', priority: 0})
    expect(shown.body).toBe('line one changed by a\nline two changed by b\nline three\n')
    expect((await run(b, ['doctor', '--json'], B)).code).toBe(0)
  })

  it('two different tasks created with one id are left in conflict for `tasks sync` (their comments cannot move)', async () => {
    const dir = tempDir('driver-')
    const id = 'tsk-0123456789'
    const ours = join(dir, 'ours')
    const theirs = join(dir, 'theirs')
    const oursText = serialiseTask(task({id, title: 'Ours'}), 'ours body\n')
    writeFileSync(join(dir, 'base'), '')
    writeFileSync(ours, oursText)
    writeFileSync(theirs, serialiseTask(task({id, title: 'Theirs'}), 'theirs body\n'))
    const r = await run(dir, ['merge-driver', join(dir, 'base'), ours, theirs, `tasks/ab/${id}/task.md`, '--json'])
    expect(r.code, r.stderr).toBe(1)
    expect(JSON.parse(r.stdout)).toMatchObject({clean: false})
    expect(JSON.parse(r.stdout).notes.join(' ')).toMatch(/tasks sync/)
    expect(readFileSync(ours, 'utf8')).toBe(oursText) // untouched: git records the conflict
  })
})
