#!/usr/bin/env node
// Sync and history at scale, on a seeded store (issue 9, deliverables 2 and 3):
//   - sync: two clones of the store each make BENCH_SYNC single-change commits
//     (default 1,000) through the library; one pushes, the other runs a whole
//     `tasks sync` process that merges both sides; its wall time is the figure
//     (target: <= 5 s at 100,000 tasks);
//   - history: a full copy of the store gets BENCH_HISTORY more commits
//     (default 0: skipped); then `git gc` (time, size-pack: target < 100 MB for
//     100,000 tasks and 300,000 mutations), `tasks log ID` and
//     `tasks show ID --history` (wall time against `node -e 0`, with and
//     without git's changed-path Bloom filters), and the index cache's size
//     before and after.
// Usage: BENCH_STORE=/path/to/kept/tasks-100000 node bench/scale.mjs
// (run.mjs with BENCH_KEEP=1 prints where the kept stores are). Also run by
// run.mjs when BENCH_SYNC or BENCH_HISTORY is set.
import {spawnSync} from 'node:child_process'
import {copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const log = (msg) => process.stderr.write(`bench: ${msg}\n`)
const SYNC_TARGET_S = 5
const GC_TARGET_MB = 100

function run(cmd, args, opts) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {encoding: 'utf8', maxBuffer: 1 << 30, ...opts})
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stderr}${(r.stdout ?? '').slice(0, 500)}`)
  return {ms, out: r.stdout, err: r.stderr ?? ''}
}

/** User + system seconds of the children, from the second line of sh's `times` (e.g. "0m1.230s 0m0.450s"), or null. */
function childCpuSeconds(stderr) {
  const lines = stderr.trim().split('\n')
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines[lines.length - 1] ?? '')
  return m ? Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) : null
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d

async function loadHistory(tmp) {
  const outfile = join(tmp, 'history.cjs')
  await build({entryPoints: [join(root, 'bench', 'history.ts')], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning'})
  return createRequire(import.meta.url)(outfile)
}

/** A repository that shares `store`'s objects (alternates) and has its list ref and current index cache. */
function shallowCopy(store, dir, env, bare = false) {
  run('git', ['init', '-q', ...(bare ? ['--bare'] : []), dir], {env})
  const gitDir = bare ? dir : join(dir, '.git')
  writeFileSync(join(gitDir, 'objects', 'info', 'alternates'), `${join(store, '.git', 'objects')}\n`)
  const tip = run('git', ['rev-parse', 'refs/tasks/main'], {cwd: store, env}).out.trim()
  run('git', ['update-ref', 'refs/tasks/main', tip], {cwd: dir, env})
  const cache = join(store, '.git', 'git-tasks', 'index-main')
  if (!bare && existsSync(cache)) {
    mkdirSync(join(gitDir, 'git-tasks'), {recursive: true})
    copyFileSync(cache, join(gitDir, 'git-tasks', 'index-main'))
  }
  return tip
}

/**
 * Sync: 2 × `changes` commits, then one `tasks sync` process; returns the
 * figures. `env` must carry an isolated git configuration.
 */
export async function measureSync({store, env, changes, tmp}) {
  const {makeHistory} = await loadHistory(tmp)
  const dir = join(tmp, 'sync')
  mkdirSync(dir, {recursive: true})
  const remote = join(dir, 'remote.git')
  shallowCopy(store, remote, env, true)
  const sides = {}
  for (const name of ['a', 'b']) {
    const repo = join(dir, name)
    shallowCopy(store, repo, env)
    run('git', ['remote', 'add', 'origin', remote], {cwd: repo, env})
    run('git', ['config', 'tasks.remote', 'origin'], {cwd: repo, env})
    run('git', ['fetch', '-q', 'origin', '+refs/tasks/main:refs/tasks-remote/origin/main'], {cwd: repo, env})
    sides[name] = repo
  }
  const made = {}
  for (const [name, seed] of [['a', 11], ['b', 22]]) {
    log(`sync: ${changes} commits on side ${name}`)
    made[name] = await makeHistory({cwd: sides[name], count: changes, actor: `agent-${name}`, seed})
  }
  run('git', ['push', '-q', 'origin', 'refs/tasks/main:refs/tasks/main'], {cwd: sides.a, env})
  const base = run('node', ['-e', '0'], {env})
  const load = loadavg()[0]
  // Through sh, whose `times` gives the CPU of the sync process and the git processes under it.
  const s = run('/bin/sh', ['-c', '"$@"; status=$?; times >&2; exit $status', 'sh', process.execPath, BIN, 'sync', '--json'], {cwd: sides.b, env: {...env, TASKS_ACTOR: 'agent-b'}})
  const result = JSON.parse(s.out)
  const cpu = childCpuSeconds(s.err)
  const parents = run('git', ['rev-list', '--parents', '-n1', 'refs/tasks/main'], {cwd: sides.b, env}).out.trim().split(' ').length - 1
  const remoteTip = run('git', ['rev-parse', 'refs/tasks/main'], {cwd: remote, env}).out.trim()
  const localTip = run('git', ['rev-parse', 'refs/tasks/main'], {cwd: sides.b, env}).out.trim()
  return {
    changes_each_side: changes,
    commit_ms: {a: made.a.ms, b: made.b.ms},
    sync_ms: round(s.ms),
    cpu_s: cpu === null ? null : round(cpu, 2),
    loadavg: round(load, 2),
    node_ms: round(base.ms),
    merge_parents: parents,
    pushed: remoteTip === localTip,
    action: result.action ?? result.sync ?? null,
    target_s: SYNC_TARGET_S,
    pass: s.ms <= SYNC_TARGET_S * 1000 && parents === 2 && remoteTip === localTip,
  }
}

function sizePackMiB(repo, env) {
  const out = run('git', ['count-objects', '-v'], {cwd: repo, env}).out
  const kib = (k) => Number(new RegExp(`^${k}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0)
  return {pack_mib: round(kib('size-pack') / 1024), loose_mib: round(kib('size') / 1024), loose_objects: kib('count')}
}

/** History: `count` more commits on a full copy of the store, then gc, log and show --history. */
export async function measureHistory({store, env, count, tmp, runs = 5}) {
  const {makeHistory} = await loadHistory(tmp)
  const repo = join(tmp, 'history')
  log(`history: copying ${store}`)
  cpSync(store, repo, {recursive: true})
  const cache = join(repo, '.git', 'git-tasks', 'index-main')
  const cacheBefore = existsSync(cache) ? statSync(cache).size : null
  const made = await makeHistory({cwd: repo, count, actor: 'agent-h', seed: 33, progress: (n) => log(`history: ${n} of ${count} commits`)})
  const commits = Number(run('git', ['rev-list', '--count', 'refs/tasks/main'], {cwd: repo, env}).out.trim())
  run(process.execPath, [BIN, 'list', '--json', '--limit', '1'], {cwd: repo, env})
  const cacheAfter = existsSync(cache) ? statSync(cache).size : null
  const before = sizePackMiB(repo, env)
  const gc = run('git', ['gc', '-q'], {cwd: repo, env})
  const after = sizePackMiB(repo, env)
  // The card with the most commits among a few touched ones: the slowest `log ID`.
  const touched = run('git', ['log', '-n', '200', '--format=%(trailers:key=Task,valueonly)', 'refs/tasks/main'], {cwd: repo, env})
    .out.split('\n')
    .filter(Boolean)
  const id = touched[0]
  const timeCmd = (args) => {
    const cmd = []
    const base = []
    for (let i = 0; i < runs; i++) {
      base.push(run('node', ['-e', '0'], {env}).ms)
      cmd.push(run(process.execPath, [BIN, ...args], {cwd: repo, env}).ms)
    }
    return {median_ms: round(median(cmd)), node_ms: round(median(base)), ratio: round(median(cmd) / median(base), 2)}
  }
  // `show --history` where this build has it (another capability adds it); `log ID` always.
  const hasShowHistory = /--history/.test(run(process.execPath, [BIN, 'show', '--help'], {cwd: repo, env}).out)
  const measure = () => ({log: timeCmd(['log', id, '--json']), show_history: hasShowHistory ? timeCmd(['show', id, '--history', '--json']) : null})
  const plain = measure()
  run('git', ['commit-graph', 'write', '--reachable', '--changed-paths'], {cwd: repo, env})
  const bloom = measure()
  rmSync(repo, {recursive: true, force: true})
  return {
    mutations: made.commits,
    commit_ms: made.ms,
    by_op: made.byOp,
    commits_on_ref: commits,
    before_gc: before,
    gc_ms: round(gc.ms),
    after_gc: after,
    gc_target_mib: GC_TARGET_MB,
    index_cache_bytes: {before: cacheBefore, after: cacheAfter},
    card: id,
    plain,
    with_changed_path_filters: bloom,
  }
}

// Standalone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const store = process.env.BENCH_STORE
  if (!store || !existsSync(join(store, '.git'))) throw new Error('BENCH_STORE: the path of a seeded store (run.mjs with BENCH_KEEP=1 keeps them)')
  const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-scale-'))
  const gitconfig = join(tmp, 'gitconfig')
  writeFileSync(gitconfig, ['[user]', '\tname = Bench', '\temail = bench@example.com', '[commit]', '\tgpgsign = false', '[gc]', '\tauto = 0', '[init]', '\tdefaultBranch = main', ''].join('\n'))
  const env = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && !k.startsWith('TASKS_') && k !== 'NODE_OPTIONS') env[k] = v
  Object.assign(env, {GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: gitconfig, TASKS_ACTOR: 'bench-agent', NO_COLOR: '1'})
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k]
  Object.assign(process.env, env)
  const out = {store, loadavg_start: loadavg()[0]}
  try {
    const syncChanges = Number(env.BENCH_SYNC ?? 1000)
    if (syncChanges > 0) {
      out.sync = await measureSync({store, env, changes: syncChanges, tmp})
      log(`sync: ${JSON.stringify(out.sync)}`)
    }
    const historyCount = Number(env.BENCH_HISTORY ?? 0)
    if (historyCount > 0) {
      out.history = await measureHistory({store, env, count: historyCount, tmp})
      log(`history: ${JSON.stringify(out.history)}`)
    }
  } finally {
    out.loadavg_end = loadavg()[0]
    if (env.BENCH_KEEP !== '1') rmSync(tmp, {recursive: true, force: true})
    else log(`kept ${tmp}`)
  }
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`)
}
