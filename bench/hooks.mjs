// What the git-tasks hooks add to `git commit` and `git push`, and what the
// server guard (`tasks verify` as pre-receive) costs on a push of 100 task
// commits. Run after `npm run build`: `nice -n 5 node bench/hooks.mjs`.
//
// Commit: the same `git commit -q -m …` of a one-line change on a task branch,
// alternately with the hooks (prepare-commit-msg adds the Task: trailer,
// post-commit queues the sha and starts the worker detached) and without
// (`-c core.hooksPath=/dev/null`), interleaved so machine noise hits both.
// The worker is let finish between runs and is not counted: it runs after
// git has returned. Push: `git push` of one new commit to a local bare
// repository, with and without the pre-push hook. Verify: 100 task commits
// (adds, claims, comments, dones) pushed to a bare repository with and
// without the guard, and `tasks verify OLD NEW` on its own.
//
// Environment: BENCH_RUNS=21 (commit pairs), BENCH_PUSH_RUNS=9, BENCH_VERIFY_COMMITS=100,
// BENCH_VERIFY_CHECKS=1 (the 100 commits include checks added and passed, so every done reads its checks).
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const RUNS = Number(process.env.BENCH_RUNS || 21)
const PUSH_RUNS = Number(process.env.BENCH_PUSH_RUNS || 9)
const VERIFY_COMMITS = Number(process.env.BENCH_VERIFY_COMMITS || 100)
/** BENCH_VERIFY_CHECKS=1: each item gets a check, passed with evidence before its done (add, check add, claim, check pass, done). */
const CHECKS = process.env.BENCH_VERIFY_CHECKS === '1'

const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-bench-hooks-'))
const gitconfig = join(tmp, 'gitconfig')
writeFileSync(gitconfig, '[user]\n\tname = Bench\n\temail = bench@example.com\n[gc]\n\tauto = 0\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n')
const env = {PATH: process.env.PATH, HOME: tmp, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: gitconfig, TASKS_ACTOR: 'bench', NO_COLOR: '1', LANG: 'C.UTF-8'}

const git = (cwd, args) => execFileSync('git', args, {cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
const tasks = (cwd, args) => execFileSync(process.execPath, [BIN, ...args], {cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
const timed = (cwd, cmd, args) => {
  const t = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {cwd, env, stdio: 'ignore'})
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`)
  return Number(process.hrtime.bigint() - t) / 1e6
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d
async function workerIdle(repo) {
  const dir = join(repo, '.git', 'git-tasks')
  for (let i = 0; i < 600; i++) {
    if (!existsSync(join(dir, 'hook-queue')) && !existsSync(join(dir, 'hook-queue.lock'))) return
    await new Promise((r) => setTimeout(r, 25))
  }
}

const log = (s) => process.stderr.write(`${s}\n`)
const results = {load_before: loadavg()[0]}

// ---- git commit
const repo = join(tmp, 'repo')
git(tmp, ['init', '-q', repo])
git(repo, ['commit', '-q', '--allow-empty', '-m', 'root'])
tasks(repo, ['init'])
const id = JSON.parse(tasks(repo, ['add', 'Bench card', '--json'])).task.id
tasks(repo, ['hooks', 'install'])
tasks(repo, ['branch', id])
const withHooks = []
const without = []
for (let i = 0; i < RUNS + 2; i++) {
  for (const hooked of i % 2 ? [true, false] : [false, true]) {
    writeFileSync(join(repo, 'f'), `${i} ${hooked}\n`)
    git(repo, ['add', 'f'])
    const ms = timed(repo, 'git', [...(hooked ? [] : ['-c', 'core.hooksPath=/dev/null']), 'commit', '-q', '-m', `change ${i}`])
    if (i >= 2) (hooked ? withHooks : without).push(ms)
    await workerIdle(repo)
  }
}
const linked = JSON.parse(tasks(repo, ['show', id, '--json'])).comments.filter((c) => c.kind === 'commit').length
results.commit = {runs: withHooks.length, with_hooks_ms: round(median(withHooks)), without_ms: round(median(without)), added_ms: round(median(withHooks) - median(without)), ratio: round(median(withHooks) / median(without), 2), linked_comments: linked}
log(`git commit: ${results.commit.with_hooks_ms} ms with hooks, ${results.commit.without_ms} ms without: +${results.commit.added_ms} ms (${results.commit.ratio}x); ${linked} commits linked by the worker`)

// ---- the hook scripts alone, against starting sh to do nothing (what git pays for any hook)
{
  const hooks = join(repo, '.git', 'hooks')
  const msg = join(tmp, 'msg')
  const scriptEnv = {...env, GIT_INDEX_FILE: join(repo, '.git', 'index'), TASKS_HOOKS_DISABLE: ''}
  const run1 = (args, e) => {
    const t = process.hrtime.bigint()
    spawnSync('sh', args, {cwd: repo, env: e, stdio: 'ignore'})
    return Number(process.hrtime.bigint() - t) / 1e6
  }
  const shOnly = []
  const prepare = []
  const post = []
  for (let i = 0; i < RUNS * 2; i++) {
    shOnly.push(run1(['-c', 'exit 0'], scriptEnv))
    writeFileSync(msg, 'subject\n')
    prepare.push(run1([join(hooks, 'prepare-commit-msg'), msg, 'message'], scriptEnv))
    // The queue line is written; the worker is not started (TASKS_HOOKS_DISABLE stops before that).
    post.push(run1([join(hooks, 'post-commit')], {...scriptEnv, TASKS_HOOKS_DISABLE: '1'}))
  }
  results.scripts = {sh_only_ms: round(median(shOnly), 2), prepare_commit_msg_ms: round(median(prepare), 2), post_commit_no_spawn_ms: round(median(post), 2)}
  log(`hook scripts alone: prepare-commit-msg ${results.scripts.prepare_commit_msg_ms} ms, post-commit ${results.scripts.post_commit_no_spawn_ms} ms; sh doing nothing ${results.scripts.sh_only_ms} ms`)
}

// ---- git push
const bare = join(tmp, 'code.git')
git(tmp, ['init', '-q', '--bare', bare])
git(repo, ['remote', 'add', 'origin', bare])
git(repo, ['push', '-q', 'origin', 'HEAD'])
const pushWith = []
const pushWithout = []
for (let i = 0; i < PUSH_RUNS + 1; i++) {
  for (const hooked of i % 2 ? [true, false] : [false, true]) {
    writeFileSync(join(repo, 'f'), `push ${i} ${hooked}\n`)
    git(repo, ['add', 'f'])
    git(repo, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `push ${i}`])
    const ms = timed(repo, 'git', [...(hooked ? [] : ['-c', 'core.hooksPath=/dev/null']), 'push', '-q', 'origin', 'HEAD'])
    if (i >= 1) (hooked ? pushWith : pushWithout).push(ms)
    await workerIdle(repo)
  }
}
results.push = {runs: pushWith.length, with_hooks_ms: round(median(pushWith)), without_ms: round(median(pushWithout)), added_ms: round(median(pushWith) - median(pushWithout)), ratio: round(median(pushWith) / median(pushWithout), 2)}
log(`git push: ${results.push.with_hooks_ms} ms with hooks, ${results.push.without_ms} ms without: +${results.push.added_ms} ms (${results.push.ratio}x)`)

// ---- verify on a push of 100 task commits
const work = join(tmp, 'work')
git(tmp, ['init', '-q', work])
tasks(work, ['init'])
const start = git(work, ['rev-parse', 'refs/tasks/main']).trim()
const ids = []
for (let i = 0; ids.length * 0 + i < VERIFY_COMMITS; ) {
  const nid = JSON.parse(tasks(work, ['add', `Item ${i}`, '--json'])).task.id
  ids.push(nid)
  i++
  let chk = null
  if (CHECKS && i < VERIFY_COMMITS) (chk = JSON.parse(tasks(work, ['check', 'add', nid, '--test', `test ${i}`, '--json'])).check.id, i++)
  if (i < VERIFY_COMMITS) (tasks(work, ['claim', nid]), i++)
  if (chk && i < VERIFY_COMMITS) (tasks(work, ['check', 'pass', nid, chk, '--evidence', `run ${i}`]), i++)
  else if (i < VERIFY_COMMITS) (tasks(work, ['comment', nid, `note ${i}`]), i++)
  if (i < VERIFY_COMMITS) (tasks(work, ['done', nid]), i++)
}
const end = git(work, ['rev-parse', 'refs/tasks/main']).trim()
const count = Number(git(work, ['rev-list', '--count', `${start}..${end}`]).trim())
const verifyRuns = []
for (let i = 0; i < 5; i++) verifyRuns.push(timed(work, process.execPath, [BIN, 'verify', start, end]))
const guarded = join(tmp, 'guarded.git')
const plain = join(tmp, 'plain.git')
const pushTimes = {}
for (const [name, dir] of [['plain', plain], ['guarded', guarded]]) {
  git(tmp, ['init', '-q', '--bare', dir])
  if (name === 'guarded') tasks(tmp, ['server', 'install-hook', dir])
  git(work, ['push', '-q', dir, `${start}:refs/tasks/main`])
  pushTimes[name] = timed(work, 'git', ['push', '-q', dir, `${end}:refs/tasks/main`])
}
results.verify = {commits: count, verify_ms: round(median(verifyRuns)), push_plain_ms: round(pushTimes.plain), push_guarded_ms: round(pushTimes.guarded), per_commit_ms: round(median(verifyRuns) / count, 2)}
log(`verify: ${count} commits in ${results.verify.verify_ms} ms (${results.verify.per_commit_ms} ms a commit); push of them ${results.verify.push_guarded_ms} ms guarded, ${results.verify.push_plain_ms} ms unguarded`)
results.load_after = loadavg()[0]
log(`load average: ${round(results.load_before, 2)} before, ${round(results.load_after, 2)} after`)
process.stdout.write(`${JSON.stringify(results)}\n`)
rmSync(tmp, {recursive: true, force: true})
