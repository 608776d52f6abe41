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
import {createHash} from 'node:crypto'
import {copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {BIN, loadBench, timed} from './support.mjs'

const log = (msg) => process.stderr.write(`bench: ${msg}\n`)
const SYNC_TARGET_S = 5
const GC_TARGET_MB = 100

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

/** A repository that shares `store`'s objects (alternates) and has its list ref and current index cache. */
function shallowCopy(store, dir, env, bare = false) {
  timed('git', ['init', '-q', ...(bare ? ['--bare'] : []), dir], {env})
  const gitDir = bare ? dir : join(dir, '.git')
  writeFileSync(join(gitDir, 'objects', 'info', 'alternates'), `${join(store, '.git', 'objects')}\n`)
  const tip = timed('git', ['rev-parse', 'refs/tasks/main'], {cwd: store, env}).out.trim()
  timed('git', ['update-ref', 'refs/tasks/main', tip], {cwd: dir, env})
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
  const {makeHistory} = await loadBench(tmp, ['history'])
  const dir = join(tmp, 'sync')
  mkdirSync(dir, {recursive: true})
  const remote = join(dir, 'remote.git')
  shallowCopy(store, remote, env, true)
  const sides = {}
  for (const name of ['a', 'b']) {
    const repo = join(dir, name)
    shallowCopy(store, repo, env)
    timed('git', ['remote', 'add', 'origin', remote], {cwd: repo, env})
    timed('git', ['config', 'tasks.remote', 'origin'], {cwd: repo, env})
    timed('git', ['fetch', '-q', 'origin', '+refs/tasks/main:refs/tasks-remote/origin/main'], {cwd: repo, env})
    sides[name] = repo
  }
  const made = {}
  for (const [name, seed] of [['a', 11], ['b', 22]]) {
    log(`sync: ${changes} commits on side ${name}`)
    made[name] = await makeHistory({cwd: sides[name], count: changes, actor: `agent-${name}`, seed})
  }
  timed('git', ['push', '-q', 'origin', 'refs/tasks/main:refs/tasks/main'], {cwd: sides.a, env})
  const base = timed('node', ['-e', '0'], {env})
  const load = loadavg()[0]
  // Through sh, whose `times` gives the CPU of the sync process and the git processes under it.
  const s = timed('/bin/sh', ['-c', '"$@"; status=$?; times >&2; exit $status', 'sh', process.execPath, BIN, 'sync', '--json'], {cwd: sides.b, env: {...env, TASKS_ACTOR: 'agent-b'}})
  const result = JSON.parse(s.out)
  const cpu = childCpuSeconds(s.err)
  const parents = timed('git', ['rev-list', '--parents', '-n1', 'refs/tasks/main'], {cwd: sides.b, env}).out.trim().split(' ').length - 1
  const remoteTip = timed('git', ['rev-parse', 'refs/tasks/main'], {cwd: remote, env}).out.trim()
  const localTip = timed('git', ['rev-parse', 'refs/tasks/main'], {cwd: sides.b, env}).out.trim()
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
  const out = timed('git', ['count-objects', '-v'], {cwd: repo, env}).out
  const kib = (k) => Number(new RegExp(`^${k}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0)
  return {pack_mib: round(kib('size-pack') / 1024), loose_mib: round(kib('size') / 1024), loose_objects: kib('count')}
}

/**
 * Bytes in the repository's packs by object kind: commits, trees by level
 * (root, tasks/, a shard, a card's directory, its comments/), blobs by file
 * kind; split into the objects of `base` (the seeded list) and the rest
 * (the history). From `git verify-pack -v` (compressed size in the pack,
 * header included) joined with `git rev-list --objects` (each object's path).
 */
export function packBreakdown(repo, env, base) {
  const idxs = readdirSync(join(repo, '.git', 'objects', 'pack')).filter((f) => f.endsWith('.idx')).map((f) => join(repo, '.git', 'objects', 'pack', f))
  const size = new Map()
  const type = new Map()
  const depths = []
  for (const idx of idxs) {
    for (const line of timed('git', ['verify-pack', '-v', idx], {cwd: repo, env}).out.split('\n')) {
      const p = line.split(/\s+/)
      if (p.length >= 5 && /^[0-9a-f]{40}$/.test(p[0]) && (p[1] === 'commit' || p[1] === 'tree' || p[1] === 'blob')) {
        size.set(p[0], Number(p[3]))
        type.set(p[0], p[1])
        depths.push(p.length > 6 ? Number(p[5]) : 0)
      }
    }
  }
  const paths = new Map()
  for (const line of timed('git', ['rev-list', '--objects', 'refs/tasks/main'], {cwd: repo, env}).out.split('\n')) {
    if (!line) continue
    const sp = line.indexOf(' ')
    const oid = sp === -1 ? line : line.slice(0, sp)
    if (!paths.has(oid)) paths.set(oid, sp === -1 ? '' : line.slice(sp + 1))
  }
  const inBase = new Set(timed('git', ['rev-list', '--objects', base], {cwd: repo, env}).out.split('\n').map((l) => l.slice(0, 40)))
  const kindOf = (oid) => {
    const t = type.get(oid)
    if (t === 'commit') return 'commit'
    const path = paths.get(oid) ?? '?'
    const parts = path ? path.split('/') : []
    if (t === 'tree') {
      if (parts.length === 0) return 'tree: root'
      if (parts[0] === 'tasks') return ['tree: tasks/', 'tree: tasks/<shard>/', 'tree: tasks/<shard>/<id>/', 'tree: tasks/<shard>/<id>/comments/'][Math.min(parts.length - 1, 3)]
      return `tree: ${parts[0]}/…`
    }
    if (parts[0] === 'tasks') return parts.at(-1) === 'task.md' ? 'blob: task.md' : parts[3] === 'comments' ? 'blob: comment' : 'blob: other card file'
    return `blob: ${parts[0] ?? '?'}`
  }
  const rows = {}
  for (const [oid, bytes] of size) {
    const k = kindOf(oid)
    const r = (rows[k] ??= {history_objects: 0, history_bytes: 0, base_objects: 0, base_bytes: 0})
    if (inBase.has(oid)) {
      r.base_objects++
      r.base_bytes += bytes
    } else {
      r.history_objects++
      r.history_bytes += bytes
    }
  }
  const commits = rows.commit?.history_objects ?? 0
  for (const r of Object.values(rows)) r.bytes_per_commit = commits ? round(r.history_bytes / commits, 1) : null
  const packBytes = idxs.reduce((n, i) => n + statSync(i.replace(/\.idx$/, '.pack')).size, 0)
  const idxBytes = idxs.reduce((n, i) => n + statSync(i).size, 0)
  const historyBytes = Object.values(rows).reduce((n, r) => n + r.history_bytes, 0)
  const baseBytes = Object.values(rows).reduce((n, r) => n + r.base_bytes, 0)
  return {
    pack_bytes: packBytes,
    idx_bytes: idxBytes,
    objects: size.size,
    max_depth: depths.reduce((a, b) => Math.max(a, b), 0),
    history_commits: commits,
    base_bytes: baseBytes,
    history_bytes: historyBytes,
    history_bytes_per_commit: commits ? round(historyBytes / commits, 1) : null,
    idx_bytes_per_object: round(idxBytes / Math.max(size.size, 1), 1),
    rows,
  }
}

/**
 * History: `count` more commits on a full copy of the store (generated
 * through `git fast-import`: bench/history-gen.ts writes what the CLI would
 * commit), then gc (and, with BENCH_HISTORY_REPACK, the heavier repacks),
 * the bytes by object kind, `tasks log ID` and `show --history`.
 */
export async function measureHistory({store, env, count, tmp, runs = 5, inbox = env.BENCH_HISTORY_INBOX === '1', repacks = (env.BENCH_HISTORY_REPACK ?? '').split(',').filter(Boolean)}) {
  const {generateHistory} = await loadBench(tmp, ['history-gen'])
  const repo = join(tmp, 'history')
  log(`history: copying ${store}`)
  cpSync(store, repo, {recursive: true})
  const base = timed('git', ['rev-parse', 'refs/tasks/main'], {cwd: repo, env}).out.trim()
  const cache = join(repo, '.git', 'git-tasks', 'index-main')
  const cacheBefore = existsSync(cache) ? statSync(cache).size : null
  // The history ends now: one mutation every 10 s on average before it.
  const start = new Date(Date.now() - count * 10_000).toISOString()
  const made = await generateHistory({cwd: repo, count, seed: 33, start, inbox, progress: (n) => log(`history: ${n} of ${count} commits`)})
  log(`history: ${made.commits} commits in ${(made.ms / 1000).toFixed(1)} s`)
  const commits = Number(timed('git', ['rev-list', '--count', 'refs/tasks/main'], {cwd: repo, env}).out.trim())
  // The first command after the history arrived brings the index cache forward (linear in changed tasks).
  const catchUp = timed(process.execPath, [BIN, 'list', '--json', '--limit', '1'], {cwd: repo, env})
  const cacheAfter = existsSync(cache) ? statSync(cache).size : null
  const before = sizePackMiB(repo, env)
  const gc = timed('git', ['gc', '-q'], {cwd: repo, env})
  const after = sizePackMiB(repo, env)
  log(`history: git gc ${(gc.ms / 1000).toFixed(1)} s, size-pack ${after.pack_mib} MiB`)
  const breakdown = packBreakdown(repo, env, base)
  const variants = []
  for (const spec of repacks) {
    // "aggressive" is `git gc --aggressive`; "D/W" is `git repack -adf --depth=D --window=W`.
    const args = spec === 'aggressive' ? ['gc', '-q', '--aggressive'] : ['repack', '-adfq', `--depth=${spec.split('/')[0]}`, `--window=${spec.split('/')[1]}`]
    const r = timed('git', args, {cwd: repo, env})
    const sz = sizePackMiB(repo, env)
    variants.push({spec, command: `git ${args.join(' ')}`, ms: round(r.ms), ...sz, breakdown: packBreakdown(repo, env, base)})
    log(`history: ${spec}: ${(r.ms / 1000).toFixed(1)} s, size-pack ${sz.pack_mib} MiB`)
  }
  // The card with the most commits among the last 2,000: the slowest `log ID`.
  const touched = timed('git', ['log', '-n', '2000', '--format=%(trailers:key=Task,valueonly)', 'refs/tasks/main'], {cwd: repo, env}).out.split('\n').filter(Boolean)
  const counts = new Map()
  for (const t of touched) counts.set(t, (counts.get(t) ?? 0) + 1)
  const id = [...counts].sort((a, b) => b[1] - a[1])[0][0]
  const cardCommits = Number(timed('git', ['rev-list', '--count', 'refs/tasks/main', '--', `tasks/${createHash('sha1').update(id).digest('hex').slice(0, 2)}/${id}`], {cwd: repo, env}).out.trim())
  const timeCmd = (args) => {
    const cmd = []
    const base = []
    for (let i = 0; i < runs; i++) {
      base.push(timed('node', ['-e', '0'], {env}).ms)
      cmd.push(timed(process.execPath, [BIN, ...args], {cwd: repo, env}).ms)
    }
    return {median_ms: round(median(cmd)), node_ms: round(median(base)), ratio: round(median(cmd) / median(base), 2)}
  }
  const measure = () => ({log: timeCmd(['log', id, '--json']), show_history: timeCmd(['show', id, '--history', '--json'])})
  const info = join(repo, '.git', 'objects', 'info')
  const hadGraph = existsSync(join(info, 'commit-graph')) || existsSync(join(info, 'commit-graphs'))
  // 1. git uses no commit-graph (and tasks starts none): every commit's trees on the path are read.
  timed('git', ['config', 'core.commitGraph', 'false'], {cwd: repo, env})
  const plain = measure()
  timed('git', ['config', '--unset', 'core.commitGraph'], {cwd: repo, env})
  // 2. The graph `git gc` wrote (no changed-path filters); tasks' own refresh held back by its stamp.
  const stamp = join(repo, '.git', 'git-tasks', 'commit-graph-started')
  writeFileSync(stamp, 'bench\n')
  const gcGraph = hadGraph ? measure() : null
  // 3. With changed-path filters: what tasks' background refresh writes (timed here in the foreground).
  const write = timed('git', ['commit-graph', 'write', '--reachable', '--changed-paths'], {cwd: repo, env})
  const bloom = measure()
  const out = {
    mutations: made.commits,
    generate_ms: made.ms,
    by_op: made.byOp,
    files_written: made.files,
    inbox,
    commits_on_ref: commits,
    index_catch_up_ms: round(catchUp.ms),
    before_gc: before,
    gc_ms: round(gc.ms),
    after_gc: after,
    gc_target_mib: GC_TARGET_MB,
    breakdown,
    repacks: variants,
    index_cache_bytes: {before: cacheBefore, after: cacheAfter},
    card: id,
    card_commits: cardCommits,
    gc_wrote_commit_graph: hadGraph,
    plain,
    gc_commit_graph: gcGraph,
    commit_graph_write_ms: round(write.ms),
    with_changed_path_filters: bloom,
  }
  if (env.BENCH_KEEP !== '1') rmSync(repo, {recursive: true, force: true})
  else out.kept = repo
  return out
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
