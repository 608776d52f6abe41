/**
 * Hooks a team commits (issue 33, item 6): `tasks hooks install --copy`
 * vendors the hooks into `.githooks/` and points core.hooksPath there; the
 * scripts start `tasks` from PATH (the same bytes on every clone); status and
 * uninstall understand it; a `Card: <id>` trailer links a commit like
 * `Task:`. Real git, real hook processes, the real detached worker.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT, TEST_ENV, cleanupAll, jsonError, makeRepo, run, runJson} from '../helpers/cli'

afterAll(() => cleanupAll())

// `tasks` on PATH, as a vendored hook expects it.
const ENV = {TASKS_ACTOR: 'alice', PATH: `${join(ROOT, 'bin')}:${TEST_ENV.PATH}`}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, {cwd, env: {...TEST_ENV, ...ENV}, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe']})
}

function commitFile(cwd: string, name: string, message: string[]): string {
  writeFileSync(join(cwd, name), `${name} ${Math.random()}\n`)
  git(cwd, ['add', name])
  git(cwd, ['commit', '-q', ...message.flatMap((m) => ['-m', m])])
  return git(cwd, ['rev-parse', 'HEAD']).trim()
}

async function workerIdle(repo: string): Promise<void> {
  const dir = join(repo, '.git', 'git-tasks')
  for (let i = 0; i < 300; i++) {
    if (!existsSync(join(dir, 'hook-queue')) && !existsSync(join(dir, 'hook-queue.lock'))) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('the hooks worker did not finish within 15 s')
}

function hooksPath(repo: string): string {
  try {
    return git(repo, ['config', 'core.hooksPath']).trim()
  } catch {
    return ''
  }
}

describe('tasks hooks install --copy', {timeout: 60_000}, () => {
  it('vendors portable hooks into .githooks, links a Card: trailer, and uninstall removes it all', async () => {
    const repo = makeRepo()
    git(repo, ['commit', '-q', '--allow-empty', '-m', 'root'])
    await runJson(repo, ['init'], {env: ENV})
    const id = (await runJson(repo, ['add', 'Vendored hooks'], {env: ENV})).task.id as string
    const r = await runJson(repo, ['hooks', 'install', '--copy'], {env: ENV})
    expect(r).toMatchObject({hooks_dir: join(repo, '.githooks'), hooks_path_config: true, vendored: true, command: 'tasks'})
    expect(r.hooks.map((h: {state: string}) => h.state)).toEqual(['ours', 'ours', 'ours'])
    expect(hooksPath(repo)).toBe('.githooks')
    // No path of this machine in a file the team commits.
    const postCommit = readFileSync(join(repo, '.githooks', 'post-commit'), 'utf8')
    expect(postCommit).toContain('exec setsid tasks hooks run')
    expect(postCommit).not.toContain(process.execPath)
    expect(postCommit).not.toContain(ROOT)
    // Installing again (another clone) writes the same bytes.
    await runJson(repo, ['hooks', 'install', '--copy'], {env: ENV})
    expect(readFileSync(join(repo, '.githooks', 'post-commit'), 'utf8')).toBe(postCommit)
    // A plain install now lands in the vendored directory too, still portable.
    expect((await runJson(repo, ['hooks', 'install'], {env: ENV})).command).toBe('tasks')
    expect(readFileSync(join(repo, '.githooks', 'post-commit'), 'utf8')).toBe(postCommit)

    // On a task branch, a message that names the card with Card: gets no Task: added; the commit is linked once.
    git(repo, ['checkout', '-q', '-b', `task/${id}-vendored`])
    const sha = commitFile(repo, 'a', ['with a Card trailer', `Card: ${id}`])
    expect(git(repo, ['log', '-1', '--format=%B']).trim()).toBe(`with a Card trailer\n\nCard: ${id}`)
    // On an unrelated branch, Card: alone links it.
    git(repo, ['checkout', '-q', '-b', 'unrelated'])
    const sha2 = commitFile(repo, 'b', ['unrelated branch', `card: ${id}`])
    await workerIdle(repo)
    const shown = await runJson(repo, ['show', id], {env: ENV})
    const links = shown.comments.filter((c: {kind: string}) => c.kind === 'commit').map((c: {body: string}) => c.body.split('\n')[0])
    expect(links.sort()).toEqual([`commit ${sha}`, `commit ${sha2}`].sort())

    const status = await runJson(repo, ['hooks', 'status'], {env: ENV})
    expect(status).toMatchObject({vendored: true, command: 'tasks', hooks_dir: join(repo, '.githooks'), failures: []})
    expect((await run(repo, ['hooks', 'status'], {env: ENV})).stdout).toContain('vendored')

    const un = await runJson(repo, ['hooks', 'uninstall'], {env: ENV})
    expect(un.hooks.map((h: {state: string}) => h.state)).toEqual(['absent', 'absent', 'absent'])
    expect(un.hooks_path_config).toBe(false)
    expect(existsSync(join(repo, '.githooks'))).toBe(false)
    expect(hooksPath(repo)).toBe('')
    expect((await runJson(repo, ['hooks', 'status'], {env: ENV})).vendored).toBe(false)
  })

  it('refuses, changing nothing, when hooks in the git dir would stop running or core.hooksPath names another directory', async () => {
    const repo = makeRepo()
    const userHook = join(repo, '.git', 'hooks', 'pre-push')
    writeFileSync(userHook, '#!/bin/sh\nexit 0\n')
    chmodSync(userHook, 0o755)
    const r = await run(repo, ['hooks', 'install', '--copy', '--json'], {env: ENV})
    expect(r.code).toBe(1)
    expect(jsonError(r).code).toBe('hook_conflict')
    expect(jsonError(r).message).toContain(userHook)
    expect(existsSync(join(repo, '.githooks'))).toBe(false)
    expect(hooksPath(repo)).toBe('')
    expect(readFileSync(userHook, 'utf8')).toBe('#!/bin/sh\nexit 0\n')

    const other = makeRepo()
    git(other, ['config', 'core.hooksPath', '.husky'])
    const h = await run(other, ['hooks', 'install', '--copy', '--json'], {env: ENV})
    expect(h.code).toBe(1)
    expect(jsonError(h).code).toBe('hook_conflict')
    expect(hooksPath(other)).toBe('.husky')
    expect(existsSync(join(other, '.githooks'))).toBe(false)

    // Our own hooks in the git dir (an earlier plain install) are moved out of the way, not refused.
    const mine = makeRepo()
    await runJson(mine, ['hooks', 'install'], {env: ENV})
    const moved = await runJson(mine, ['hooks', 'install', '--copy'], {env: ENV})
    expect(moved.vendored).toBe(true)
    expect(existsSync(join(mine, '.git', 'hooks', 'post-commit'))).toBe(false)
  })
})
