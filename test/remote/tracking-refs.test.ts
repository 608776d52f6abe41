/**
 * Git hygiene of the tracking ref: the copy of the remote's list lives at
 * refs/tasks-remote/<remote>/<list>, so plain git's branch commands never
 * see it, `git fetch --prune` keeps it, and a clone that an older version
 * set up (tracking ref under refs/remotes/) is moved over on first use.
 */
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, run, runJson} from '../helpers/cli'
import {REF, gitTry, shared, tipOf} from './support'

const TRACKING = 'refs/tasks-remote/origin/main'
const LEGACY = 'refs/remotes/origin/tasks/main'
const ME = {env: {TASKS_ACTOR: 'alice'}}

afterAll(() => cleanupAll())

describe('the tracking ref', () => {
  it('is refs/tasks-remote/origin/main: not a remote branch, kept by fetch --prune, not checked out by name', async () => {
    const {clones} = await shared(1)
    const repo = clones[0]!
    gitSync(repo, ['commit', '-q', '--allow-empty', '-m', 'a branch commit'])
    const added = await runJson(repo, ['add', 'Hygiene'], ME)
    expect(tipOf(repo, TRACKING)).toBe(added.commit)
    expect(tipOf(repo, LEGACY)).toBeNull()
    expect(gitSync(repo, ['branch', '-r'])).not.toMatch(/tasks/)
    expect(gitSync(repo, ['branch', '-a'])).not.toMatch(/tasks/)

    gitSync(repo, ['fetch', '-q', '--prune', 'origin'])
    expect(tipOf(repo, TRACKING)).toBe(added.commit)

    // The documented graph view without the task refs.
    const all = gitSync(repo, ['log', '--format=%s', '--all'])
    expect(all).toContain('add ')
    const plain = gitSync(repo, ['log', '--format=%s', '--exclude=refs/tasks*', '--all'])
    expect(plain).not.toContain('add ')
    expect(plain).toContain('a branch commit')

    // git's checkout looks for a remote branch named tasks/main to make a local branch of: there is none.
    // (The name still resolves to refs/tasks/main itself, git's `refs/<name>` rule: a detached HEAD, no branch.)
    gitTry(repo, ['checkout', '-q', 'tasks/main'])
    expect(gitSync(repo, ['branch', '--list', 'tasks/*'])).toBe('')
    gitSync(repo, ['checkout', '-q', 'main'])
  })

  it('an old-style ref under refs/remotes/ is moved once, and a branch named tasks/x is left alone', async () => {
    const {clones} = await shared(1)
    const repo = clones[0]!
    const tip = tipOf(repo)!
    // The layout an older version left: the copy under refs/remotes/, none under refs/tasks-remote/.
    gitSync(repo, ['update-ref', LEGACY, tip])
    gitSync(repo, ['update-ref', '-d', TRACKING])
    rmSync(join(repo, '.git', 'git-tasks', 'tracking-refs-moved'), {force: true})
    const branchCommit = gitSync(repo, ['commit-tree', '-m', 'not a list', gitSync(repo, ['hash-object', '-t', 'tree', '-w', '/dev/null']).trim()]).trim()
    gitSync(repo, ['update-ref', 'refs/remotes/origin/tasks/feature', branchCommit])
    const other = gitSync(repo, ['rev-parse', 'refs/remotes/origin/tasks/feature']).trim()

    // A read with a remote configured is a first use (it compares with the tracking ref): no fetch, the move alone.
    const r = await run(repo, ['list', '--json'], ME)
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    expect(tipOf(repo, LEGACY)).toBeNull()
    expect(tipOf(repo, TRACKING)).toBe(tip)
    expect(tipOf(repo, 'refs/remotes/origin/tasks/feature')).toBe(other)

    // Once: a ref put back by hand later is not moved again.
    gitSync(repo, ['update-ref', LEGACY, tip])
    await runJson(repo, ['sync'], ME)
    expect(tipOf(repo, LEGACY)).toBe(tip)
    expect(tipOf(repo, TRACKING)).toBe(tipOf(repo, REF))
  })
})
