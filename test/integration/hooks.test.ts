/**
 * The client hooks (issue 10): installed beside a user's own hooks and
 * core.hooksPath, shared by worktrees, removed exactly; commits linked to
 * cards once (branch name, Task: trailer), Closes: finishing a card on push
 * or saying why not; and hooks that never get in the way: no store, a
 * broken store, a remote that never answers. Real git, real hook processes,
 * the real detached worker.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TEST_ENV, cleanupAll, gitSync, makeBareRepo, makeRepo, run, runJson, tempDir} from '../helpers/cli'
import {type HungServer, hungServer} from '../remote/support'

const ALICE = {TASKS_ACTOR: 'alice'}
const BOB = {TASKS_ACTOR: 'bob'}

let server: HungServer
beforeAll(async () => {
  server = await hungServer()
})
afterAll(async () => {
  await server.close()
  cleanupAll()
})

function git(cwd: string, args: string[], env: Record<string, string> = ALICE): string {
  return execFileSync('git', args, {cwd, env: {...TEST_ENV, ...env}, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe']})
}

function commitFile(cwd: string, name: string, message: string[], env: Record<string, string> = ALICE): string {
  writeFileSync(join(cwd, name), `${name} ${Math.random()}\n`)
  git(cwd, ['add', name], env)
  git(cwd, ['commit', '-q', ...message.flatMap((m) => ['-m', m])], env)
  return git(cwd, ['rev-parse', 'HEAD']).trim()
}

/** Wait until the background worker has drained the queue (no queue, no lock, no work file). */
async function workerIdle(repo: string): Promise<void> {
  const dir = join(repo, '.git', 'git-tasks')
  for (let i = 0; i < 300; i++) {
    const busy = existsSync(join(dir, 'hook-queue')) || existsSync(join(dir, 'hook-queue.lock'))
    if (!busy) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`the hooks worker did not finish within 15 s: ${execFileSync('sh', ['-c', 'ls -la; cat hook-queue* hooks.log; ps -ef | grep -v grep | grep -E "hooks run|git"'], {cwd: dir, encoding: 'utf8'})}`)
}

async function commitComments(repo: string, id: string): Promise<Array<{body: string}>> {
  const shown = await runJson(repo, ['show', id], {env: ALICE})
  return shown.comments.filter((c: {kind: string}) => c.kind === 'commit')
}

async function repoWithList(): Promise<{repo: string; id: string}> {
  const repo = makeRepo()
  git(repo, ['commit', '-q', '--allow-empty', '-m', 'root'])
  await runJson(repo, ['init'], {env: ALICE})
  const id = (await runJson(repo, ['add', 'Wire the claim CAS'], {env: ALICE})).task.id as string
  return {repo, id}
}

describe('tasks hooks install / uninstall / status', {timeout: 60_000}, () => {
  it('chains to an existing hook, which keeps running, and uninstall restores it byte for byte and mode', async () => {
    const repo = makeRepo()
    const hooks = join(repo, '.git', 'hooks')
    const mark = join(repo, 'user-hook-ran')
    const userHook = `#!/bin/sh\necho "$1" >> '${mark}'\nexit 0\n`
    writeFileSync(join(hooks, 'post-commit'), userHook)
    chmodSync(join(hooks, 'post-commit'), 0o751)
    const r = await runJson(repo, ['hooks', 'install'])
    expect(r.hooks_path_config).toBe(false)
    const pc = r.hooks.find((h: {name: string}) => h.name === 'post-commit')
    expect(pc.state).toBe('ours')
    expect(pc.chained).toBe(join(hooks, 'post-commit.git-tasks-chained'))
    // Installing twice keeps the one chained hook (ours is recognised and rewritten).
    await runJson(repo, ['hooks', 'install'])
    commitFile(repo, 'a', ['one'])
    expect(readFileSync(mark, 'utf8')).toBe('\n')
    const status = await runJson(repo, ['hooks', 'status'])
    expect(status.hooks.map((h: {state: string}) => h.state)).toEqual(['ours', 'ours', 'ours'])
    expect(status.command).toContain('bin/tasks')
    const un = await runJson(repo, ['hooks', 'uninstall'])
    expect(un.hooks.map((h: {state: string}) => h.state)).toEqual(['absent', 'foreign', 'absent'])
    expect(readFileSync(join(hooks, 'post-commit'), 'utf8')).toBe(userHook)
    expect(statSync(join(hooks, 'post-commit')).mode & 0o777).toBe(0o751)
    expect(existsSync(join(hooks, 'post-commit.git-tasks-chained'))).toBe(false)
    expect(existsSync(join(hooks, 'pre-push'))).toBe(false)
  })

  it('honours core.hooksPath (as husky sets it), and a linked worktree runs the same hooks', async () => {
    const {repo, id} = await repoWithList()
    git(repo, ['config', 'core.hooksPath', '.husky'])
    mkdirSync(join(repo, '.husky'))
    writeFileSync(join(repo, '.husky', 'pre-push'), '#!/bin/sh\nexit 0\n', {mode: 0o755})
    const r = await runJson(repo, ['hooks', 'install'])
    expect(r.hooks_dir).toBe(join(repo, '.husky'))
    expect(r.hooks_path_config).toBe(true)
    expect(existsSync(join(repo, '.git', 'hooks', 'post-commit'))).toBe(false)
    expect(r.hooks.find((h: {name: string}) => h.name === 'pre-push').chained).toBe(join(repo, '.husky', 'pre-push.git-tasks-chained'))
    // husky's directory is part of the work tree: committed, every worktree has it. A worktree on a
    // task branch: its commit is linked by the same hooks.
    git(repo, ['add', '.husky'])
    git(repo, ['commit', '-q', '-m', 'hooks'])
    const wt = join(tempDir('wt-'), 'w')
    git(repo, ['worktree', 'add', '-q', '-b', `feat/${id}-in-a-worktree`, wt])
    const sha = commitFile(wt, 'w', ['from the worktree'])
    await workerIdle(repo)
    const links = await commitComments(repo, id)
    expect(links.map((c) => c.body.split('\n')[0])).toEqual([`commit ${sha}`])
    await runJson(repo, ['hooks', 'uninstall'])
    expect(readFileSync(join(repo, '.husky', 'pre-push'), 'utf8')).toBe('#!/bin/sh\nexit 0\n')
  })
})

describe('linking commits to cards', {timeout: 60_000}, () => {
  it('a commit on a task branch and one with a Task: trailer each comment the card once; other branches are skipped', async () => {
    const {repo, id} = await repoWithList()
    await runJson(repo, ['hooks', 'install'])
    const b = await runJson(repo, ['branch', id], {env: ALICE})
    expect(b.branch).toMatch(/^task\/tsk-[0-9a-z]{4,}-wire-the-claim-cas$/)
    expect(b.task.status).toBe('in_progress')
    expect(git(repo, ['branch', '--show-current']).trim()).toBe(b.branch)
    const onBranch = commitFile(repo, 'x', ['work on the branch'])
    // prepare-commit-msg added the trailer to a -m message.
    expect(git(repo, ['log', '-1', '--format=%(trailers:key=Task,valueonly)']).trim()).toBe(b.branch.split('/')[1].split('-').slice(0, 2).join('-'))
    git(repo, ['checkout', '-q', '-b', 'unrelated-work'])
    commitFile(repo, 'y', ['nothing to do with a card'])
    const viaTrailer = commitFile(repo, 'z', ['named by trailer', `Refs: ${id}`])
    await workerIdle(repo)
    let links = await commitComments(repo, id)
    expect(links.map((c) => c.body.split('\n')[0]).sort()).toEqual([`commit ${onBranch}`, `commit ${viaTrailer}`].sort())
    expect(links.find((c) => c.body.includes(onBranch))!.body).toContain(`branch: ${b.branch}`)
    // The hook runs again for the same commits (a re-run, a rebase that keeps the sha): still linked once.
    writeFileSync(join(repo, '.git', 'git-tasks', 'hook-queue'), `commit ${onBranch} ${b.branch}\ncommit ${viaTrailer} unrelated-work\n`)
    const again = await runJson(repo, ['hooks', 'run'])
    // A worker the last commit's hook started may still be about: it can take these lines first, or hold the
    // lock (busy). Whoever processes them, nothing is linked twice.
    expect(again).toMatchObject({linked: 0, failures: 0})
    expect([0, 2]).toContain(again.processed)
    await workerIdle(repo)
    links = await commitComments(repo, id)
    expect(links).toHaveLength(2)
    const status = await runJson(repo, ['hooks', 'status'])
    expect(status.failures).toEqual([])
  })

  it('tasks branch refuses, creating nothing, when the claim is refused', async () => {
    const {repo, id} = await repoWithList()
    await runJson(repo, ['claim', id], {env: BOB})
    const r = await run(repo, ['branch', id, '--json'], {env: ALICE})
    expect(r.code).toBe(4)
    expect(git(repo, ['for-each-ref', '--format=%(refname)', 'refs/heads/task/']).trim()).toBe('')
  })

  it('Closes: finishes the card when the commit is pushed; when the rules refuse, the card says why', async () => {
    const {repo, id} = await repoWithList()
    const other = (await runJson(repo, ['add', 'Held by bob'], {env: ALICE})).task.id as string
    await runJson(repo, ['claim', other], {env: BOB})
    const bare = makeBareRepo()
    git(repo, ['remote', 'add', 'origin', bare])
    await runJson(repo, ['hooks', 'install'])
    commitFile(repo, 'c', ['fix the thing', `Closes: ${id}\nFixes: ${other}`])
    await workerIdle(repo)
    // Committing alone does not finish it.
    expect((await runJson(repo, ['show', id])).task.status).toBe('todo')
    git(repo, ['push', '-q', 'origin', 'HEAD:refs/heads/main'])
    await workerIdle(repo)
    expect((await runJson(repo, ['show', id])).task.status).toBe('done')
    const held = await runJson(repo, ['show', other])
    expect(held.task.status).toBe('in_progress')
    const why = held.comments.find((c: {kind: string}) => c.kind === 'problem')
    expect(why.body).toMatch(/was not finished: .*held by bob.*\[not_owner\]/)
  })
})

describe('hooks never get in the way', {timeout: 90_000}, () => {
  it('no store yet: commit and push go through, nothing is logged', async () => {
    const repo = makeRepo()
    const bare = makeBareRepo()
    git(repo, ['remote', 'add', 'origin', bare])
    await runJson(repo, ['hooks', 'install'])
    git(repo, ['checkout', '-q', '-b', 'task/tsk-abcd-no-store'])
    commitFile(repo, 'a', ['on a task-looking branch', 'Closes: tsk-abcd'])
    git(repo, ['push', '-q', 'origin', 'HEAD'])
    await workerIdle(repo)
    expect((await runJson(repo, ['hooks', 'status'])).failures).toEqual([])
  })

  it('a detached HEAD, a rebase in progress and malformed messages: commits go through; trailers still link', async () => {
    const {repo, id} = await repoWithList()
    await runJson(repo, ['hooks', 'install'])
    git(repo, ['checkout', '-q', '--detach'])
    const detached = commitFile(repo, 'd', ['on a detached HEAD', `Task: ${id}`])
    commitFile(repo, 'm', ['malformed trailers', 'Task: ???\nCloses: \nRefs: tsk-'])
    // A rebase stopped on a conflict; the commit that resolves it runs the hooks mid-rebase.
    git(repo, ['checkout', '-q', '-b', 'base'])
    writeFileSync(join(repo, 'c'), 'base\n')
    git(repo, ['add', 'c'])
    git(repo, ['commit', '-q', '-m', 'base'])
    git(repo, ['checkout', '-q', '-b', `task/${id}-rebased`, 'HEAD~1'])
    writeFileSync(join(repo, 'c'), 'mine\n')
    git(repo, ['add', 'c'])
    git(repo, ['commit', '-q', '-m', 'mine'])
    try {
      git(repo, ['rebase', '-q', 'base'])
    } catch {
      // stopped on the conflict, as intended
    }
    writeFileSync(join(repo, 'c'), 'resolved\n')
    git(repo, ['add', 'c'])
    git(repo, ['-c', 'core.editor=true', 'rebase', '--continue'])
    await workerIdle(repo)
    const links = (await commitComments(repo, id)).map((c) => c.body.split('\n')[0])
    expect(links).toContain(`commit ${detached}`)
    expect(links).toContain(`commit ${git(repo, ['rev-parse', 'HEAD']).trim()}`)
    expect((await runJson(repo, ['hooks', 'status'])).failures).toEqual([])
  })

  it('a broken store: the commit goes through and the failure is in the log that status shows', async () => {
    const {repo, id} = await repoWithList()
    await runJson(repo, ['hooks', 'install'])
    // Break the card by hand on the ref.
    const tip = git(repo, ['rev-parse', 'refs/tasks/main']).trim()
    const path = git(repo, ['ls-tree', '-r', '--name-only', tip]).split('\n').find((p) => p.endsWith(`${id}/task.md`))!
    const env = {...ALICE, GIT_INDEX_FILE: join(repo, '.git', 'forge-index')}
    git(repo, ['read-tree', tip], env)
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {cwd: repo, env: {...TEST_ENV, ...env}, input: '---\nid: [broken\n---\n', encoding: 'utf8'}).trim()
    git(repo, ['update-index', '--cacheinfo', `100644,${blob},${path}`], env)
    const tree = git(repo, ['write-tree'], env).trim()
    const forged = git(repo, ['commit-tree', tree, '-p', tip, '-m', 'hand edit'], env).trim()
    git(repo, ['update-ref', 'refs/tasks/main', forged])
    const r = execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'still commits', '-m', `Task: ${id}`], {cwd: repo, env: {...TEST_ENV, ...ALICE}, encoding: 'utf8'})
    expect(r).toBe('')
    await workerIdle(repo)
    const status = await runJson(repo, ['hooks', 'status'])
    expect(status.failures).toHaveLength(1)
    expect(status.failures[0]).toMatchObject({hook: 'post-commit', code: 'broken_task_file'})
    const text = await run(repo, ['hooks', 'status'])
    expect(text.stdout).toContain('last failures:')
  })

  it('a tasks remote that never answers: commit and push return at once, the worker times out in the background and logs it', async () => {
    const {repo, id} = await repoWithList()
    const bare = makeBareRepo()
    git(repo, ['remote', 'add', 'origin', bare])
    git(repo, ['remote', 'add', 'hung', `git://127.0.0.1:${server.port}/x`])
    git(repo, ['config', 'tasks.remote', 'hung'])
    git(repo, ['config', 'tasks.remoteTimeout', '4s'])
    await runJson(repo, ['hooks', 'install'])
    commitFile(repo, 'a', ['linked while the remote hangs', `Closes: ${id}`])
    git(repo, ['push', '-q', 'origin', 'HEAD:refs/heads/main'])
    // git commit and git push have returned while the worker still waits on the hung remote (4 s deadline):
    // neither waited for it. (bench/hooks.mjs measures what the hooks add.)
    const dir = join(repo, '.git', 'git-tasks')
    expect(existsSync(join(dir, 'hook-queue.lock')) || existsSync(join(dir, 'hook-queue'))).toBe(true)
    await workerIdle(repo)
    const status = await runJson(repo, ['hooks', 'status'])
    expect(status.failures.length).toBeGreaterThanOrEqual(1)
    expect(status.failures[0].code).toBe('remote_timeout')
    // One wait on the hung remote per run; what it could not do is kept for the next run, not lost.
    expect(status.failures).toHaveLength(1)
    expect(status.queued).toBe(2)
  })
})
