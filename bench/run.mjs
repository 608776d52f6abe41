// Benchmark harness for git-tasks (see bench/README.md).
//
// `npm run bench` builds the CLI, then runs this file. For each store size it
// seeds a fresh repository in one commit through the library (bench/seed.ts,
// bundled here with esbuild), packs it with `git gc`, and times whole
// processes of `node bin/tasks …` against a bare `node -e 0` started in the
// same loop (interleaved, so machine noise hits both). It prints medians,
// the ratio to the baseline and the issue's targets, the bytes of new git
// objects one mutation writes, and saves everything to .bench/results.json.
//
// Environment:
//   BENCH_RUNS=9            timed runs per command (after BENCH_WARMUP warm-ups)
//   BENCH_WARMUP=1          untimed warm-up runs per command
//   BENCH_SIZES=1000,10000  store sizes (number of tasks)
//   BENCH_KEEP=1            keep the temporary repositories (path is printed)
//   BENCH_AGENTS=16,32,64   also run the many-agents drains (bench/drain.mjs) against the serial floor
//   BENCH_SYNC=1000         on the largest store: sync merging this many commits on each side (bench/scale.mjs)
//   BENCH_HISTORY=300000    on the largest store: this many more commits (bench/history-gen.ts, git fast-import), then git gc, bytes by object kind, log ID, show --history
//   BENCH_HISTORY_REPACK=250/50,aggressive  with BENCH_HISTORY: also `git repack -adf --depth=250 --window=50`, `git gc --aggressive`
//   BENCH_HISTORY_INBOX=1   with BENCH_HISTORY: the commits also carry the inbox records a command adds
//   BENCH_DIFF=0            skip `tasks diff` over a day of 1,000 changes on the largest store (bench/diff.mjs; on by default from 10,000 tasks: a smaller store has too few free cards)
//   BENCH_BLAME=300000      tasks blame ID on a list with this many commits (bench/blame.mjs; target 1.5 s at 300,000)
//   BENCH_SEARCH=1          on the largest store: `tasks search` queries against node -e 0 (bench/search.mjs)
//   BENCH_PLAN=1000         on the largest store: `tasks plan merge` of a plan changing this many cards (bench/plan.mjs); 0: not run
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {cpus, loadavg, tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {drain} from './drain.mjs'
import {measureHistory, measureSync} from './scale.mjs'
import {benchSearch} from './search.mjs'
import {measurePlanMerge, planMergeLine} from './plan.mjs'
import {measureDiff} from './diff.mjs'
import {loadBench} from './support.mjs'
import {benchBlame} from './blame.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const ACTOR = 'bench-agent'

function intEnv(name, fallback, min) {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${raw}: expected an integer >= ${min}`)
  return n
}
const RUNS = intEnv('BENCH_RUNS', 9, 1)
const WARMUP = intEnv('BENCH_WARMUP', 1, 0)
const SIZES = (process.env.BENCH_SIZES || '1000,10000').split(',').filter((s) => s.trim() !== 'none').map((s) => {
  const n = Number(s.trim())
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_SIZES: "${s}" is not a positive integer`)
  return n
})
const KEEP = process.env.BENCH_KEEP === '1'
/** Agent counts for the many-agents drain (e.g. 16,32,64); empty: no drain (the default run stays short). */
const AGENTS = (process.env.BENCH_AGENTS || '').split(',').filter((s) => s.trim() !== '').map((s) => {
  const n = Number(s.trim())
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_AGENTS: "${s}" is not a positive integer`)
  return n
})
/** The issue's target for a drain: wall time ≤ this × the serial push floor. */
const DRAIN_TARGET = {maxRatio: 1.5}

/**
 * The issues' targets, by store size: at 10,000 tasks (issue 5) and at
 * 100,000 (issue 9). `target(key, size)` is the ratio to bare node a
 * command must stay under at that size, or null (printed for comparison).
 */
const TARGETS = {
  version: [{minSize: 0, max: 1.8}],
  add: [{minSize: 10_000, max: 2.5}],
  claim: [{minSize: 10_000, max: 2.5}],
  done: [{minSize: 10_000, max: 2.5}],
  show: [{minSize: 100_000, max: 2.5}, {minSize: 10_000, max: 2.0}],
  next: [{minSize: 100_000, max: 2.5}],
  list: [{minSize: 100_000, max: null}, {minSize: 10_000, max: 4.0}],
  page: [{minSize: 100_000, max: 3.0}],
  // Issue 34: reading a past state (--at the seed commit, dozens of commits behind the tip by then).
  show_at: [{minSize: 10_000, max: 2.5}],
  list_at: [{minSize: 10_000, max: 5.0}],
}
function target(key, size) {
  for (const t of TARGETS[key] ?? []) if (size >= t.minSize) return t.max
  return null
}
/** `list --all --json` must stream at least this many tasks per second of output (issue 9, at 100,000 tasks). */
const STREAM_TARGET = {minSize: 100_000, tasksPerSecond: 100_000}
/** ... and in constant memory: the peak at the largest size at most this times the smallest size's (two sizes needed). */
const STREAM_MEMORY_SLACK = 1.05
/**
 * Bringing the index up to date (issue 9: ≤ 1 s at 10,000 tasks and ≤ 10 s at 100,000, peak memory under
 * 500 MB): seconds and peak memory of the whole process, judged at these sizes.
 */
const INDEX_TARGETS = [
  {size: 10_000, seconds: 1, peakMiB: 500},
  {size: 100_000, seconds: 10, peakMiB: 500},
]
/**
 * Peers measured on this kind of machine at 10,000 tasks (issue 9), printed
 * beside our rows where the operation matches: Taskwarrior 2.6 and Backlog.md.
 */
const PEERS = {
  add: 'Taskwarrior create 342 ms',
  list: 'Taskwarrior list 484 ms; Backlog.md list 8.1 s',
  show: 'Taskwarrior show 421 ms',
  claim: 'Taskwarrior start 402 ms',
}
const PEER_SIZE = 10_000
const BYTES_TARGET = {max: 32 * 1024, minSize: 10_000}

// ------------------------------------------------------------------ helpers

const log = (msg) => process.stderr.write(`bench: ${msg}\n`)

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d

/** An isolated environment: no system/user git config, no inherited git or tasks settings. */
function makeEnv(tmp) {
  const globalConfig = join(tmp, 'gitconfig')
  writeFileSync(
    globalConfig,
    ['[user]', '\tname = Bench', '\temail = bench@example.com', '[commit]', '\tgpgsign = false', '[gc]', '\tauto = 0', '[init]', '\tdefaultBranch = main', ''].join('\n'),
  )
  const env = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('GIT_') || k.startsWith('TASKS_') || k === 'NODE_OPTIONS') continue
    env[k] = v
  }
  Object.assign(env, {GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: globalConfig, TASKS_ACTOR: ACTOR, NO_COLOR: '1'})
  return env
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, {encoding: 'utf8', maxBuffer: 1 << 30, ...opts})
  if (r.error) throw r.error
  return r
}

function mustRun(cmd, args, opts) {
  const r = run(cmd, args, opts)
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stderr}${r.stdout}`)
  return r
}

/** Wall time of one whole process, in ms. Output stays in Buffers (no decoding inside the timed span). */
function timeProcess(cmd, args, opts) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {maxBuffer: 1 << 30, ...opts})
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.error) throw r.error
  return {ms, r}
}

/**
 * Wall time and peak memory (maximum resident set, from /usr/bin/time when
 * the system has it) of one process whose stdout is thrown away.
 */
function peakOf(cmd, args, opts) {
  const hasTime = existsSync('/usr/bin/time')
  const t0 = process.hrtime.bigint()
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-f', 'peak-kib=%M cpu=%U+%S', cmd, ...args], {...opts, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8'})
    : spawnSync(cmd, args, {...opts, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8'})
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}:\n${r.stderr}`)
  const kib = /peak-kib=(\d+)/.exec(r.stderr ?? '')
  // CPU time (user + sys) as well: on a shared machine it moves less with the load than the wall time.
  const cpu = /cpu=([\d.]+)\+([\d.]+)/.exec(r.stderr ?? '')
  return {ms: round(ms), peak_mib: kib ? round(Number(kib[1]) / 1024) : null, cpu_ms: cpu ? round((Number(cpu[1]) + Number(cpu[2])) * 1000) : null}
}

/** Loose objects of a repository: path → size in bytes. */
function looseObjects(gitDir) {
  const objects = join(gitDir, 'objects')
  const out = new Map()
  for (const d of readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$/.test(d)) continue
    for (const f of readdirSync(join(objects, d))) {
      if (f.startsWith('tmp_')) continue
      out.set(`${d}/${f}`, statSync(join(objects, d, f)).size)
    }
  }
  return out
}

// ------------------------------------------------------------------ benchmark

const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-bench-'))
const env = makeEnv(tmp)
// The seeder runs git in this process: give it the same isolated environment.
for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k]
Object.assign(process.env, env)

const gitVersion = mustRun('git', ['--version'], {env}).stdout.trim().replace(/^git version /, '')
const meta = {
  date: new Date().toISOString(),
  node: process.version,
  git: gitVersion,
  platform: `${process.platform} ${process.arch}`,
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model ?? 'unknown',
  runs: RUNS,
  warmup: WARMUP,
  sizes: SIZES,
  loadavg_start: loadavg()[0],
  loadavg_end: null,
  node_extra_ca_certs: env.NODE_EXTRA_CA_CERTS ?? null,
}

// Every node process start pays for what its environment asks of it. NODE_EXTRA_CA_CERTS (set on this
// project's machines) makes node read a CA bundle before any code runs: ~30 ms, in `node -e 0` and in
// `tasks` alike, which shrinks every ratio below. Measured and printed so the ratios can be read both ways.
if (env.NODE_EXTRA_CA_CERTS) {
  const bare = (e) => {
    const runs = []
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now()
      spawnSync(process.execPath, ['-e', '0'], {env: e})
      runs.push(performance.now() - t0)
    }
    return median(runs)
  }
  const {NODE_EXTRA_CA_CERTS: _ca, ...clean} = env
  meta.node_start_ms = {with_extra_ca_certs: bare(env), without: bare(clean)}
}

const started = Date.now()
const results = []
const drains = []
let syncResult = null
let historyResult = null
let searchResult = null
let planResult = null
let diffResult = null
let blameResult = null
try {
  if (!existsSync(join(root, 'dist', 'tasks.js'))) throw new Error('dist/tasks.js is missing: run `npm run build` (or `npm run bench`) first')
  const {seed} = await loadBench(tmp, ['seed'])

  for (const size of SIZES) {
    const repo = join(tmp, `tasks-${size}`)
    mkdirSync(repo)
    mustRun('git', ['init', '-q'], {cwd: repo, env})
    // Each mutation kind needs a fresh target per run (warm-ups too), plus a few for the size measurement.
    const reserve = RUNS + WARMUP + 3
    log(`${size} tasks: seeding ${repo}`)
    const seeded = await seed({cwd: repo, count: size, actor: ACTOR, reserve})
    const t0 = Date.now()
    mustRun('git', ['gc', '-q'], {cwd: repo, env})
    const gcMs = Date.now() - t0
    const gitDir = join(repo, '.git')
    log(`${size} tasks: seeded in ${seeded.ms} ms (${seeded.comments} comments, ${Math.round(seeded.bytesWritten / 1024)} KiB loose), git gc ${gcMs} ms`)

    const opts = {cwd: repo, env}
    const claimTargets = [...seeded.claimTargets]
    const doneTargets = [...seeded.doneTargets]
    let addCounter = 0
    const nextClaim = () => claimTargets.shift() ?? fail('out of claim targets')
    const nextDone = () => doneTargets.shift() ?? fail('out of done targets')

    // Bringing the index up to date: the seeder's first load left the cache of the empty list,
    // so the first read catches up from a cache 'size' changes behind; then a cold build (no cache).
    const cache = join(gitDir, 'git-tasks', 'index-main')
    const catchUp = peakOf(process.execPath, [BIN, 'list', '--json', '--limit', '1'], opts)
    rmSync(cache, {force: true})
    const cold = peakOf(process.execPath, [BIN, 'list', '--json', '--limit', '1'], opts)
    const index = {catch_up: catchUp, cold}
    log(`${size} tasks: index from a cache ${size} changes behind ${catchUp.ms} ms (peak ${catchUp.peak_mib ?? '?'} MiB), cold ${cold.ms} ms (peak ${cold.peak_mib ?? '?'} MiB)`)

    // Sanity check, and warm the cache (.git/git-tasks/) the way a first read does.
    const first = JSON.parse(mustRun(process.execPath, [BIN, 'list', '--all', '--json', '--limit', '0'], opts).stdout)
    if (first.tasks.length !== size || first.broken.length !== 0) {
      throw new Error(`seeded store reads back ${first.tasks.length} tasks and ${first.broken.length} broken files; expected ${size} and 0`)
    }

    const commands = [
      {key: 'version', label: 'tasks --version', args: () => ['--version']},
      {key: 'list', label: 'tasks list --json', args: () => ['list', '--json']},
      {key: 'page', label: 'tasks list --json --limit 50', args: () => ['list', '--json', '--limit', '50', '--offset', '100']},
      {key: 'show', label: 'tasks show ID', args: () => ['show', seeded.showTarget]},
      {key: 'add', label: 'tasks add TITLE', args: () => ['add', `Benchmark item ${size}-${++addCounter}: measure start-up`]},
      {key: 'claim', label: 'tasks claim ID', args: () => ['claim', nextClaim()]},
      {key: 'next', label: 'tasks next', args: () => ['next', '--another']},
      {key: 'done', label: 'tasks done ID', args: () => ['done', nextDone()]},
      // Time travel (issue 34): the commit halfway between the seed (the cache file's commit) and the tip the
      // mutations above left (the delta's): its state is neither file nor delta, so half the changes are undone.
      {key: 'show_at', label: 'tasks show ID --at C', args: () => ['show', seeded.showTarget, '--at', halfway()]},
      {key: 'list_at', label: 'tasks list --json --at C', args: () => ['list', '--json', '--at', halfway()]},
    ]

    let middle = null
    const halfway = () => {
      if (middle) return middle
      const behind = Number(mustRun('git', ['rev-list', '--count', `${seeded.commit}..refs/tasks/main`], opts).stdout.trim())
      middle = mustRun('git', ['rev-parse', `refs/tasks/main~${Math.floor(behind / 2)}`], opts).stdout.trim()
      return middle
    }
    const rows = []
    for (const c of commands) {
      // Every series starts from a cache that is current (a read persists it; mutations
      // only persist after a large catch-up), so results do not depend on the order of
      // the commands; within a series the mutations leave it up to WARMUP+RUNS commits behind.
      mustRun(process.execPath, [BIN, 'list', '--json'], opts)
      const cmdMs = []
      const baseMs = []
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const base = timeProcess(process.execPath, ['-e', '0'], opts)
        const args = c.args()
        const t = timeProcess(process.execPath, [BIN, ...args], opts)
        if (t.r.status !== 0) throw new Error(`tasks ${args.join(' ')} exited ${t.r.status}:\n${t.r.stderr.toString('utf8')}`)
        if (i >= WARMUP) {
          baseMs.push(base.ms)
          cmdMs.push(t.ms)
        }
      }
      const med = median(cmdMs)
      const baseMed = median(baseMs)
      const ratio = med / baseMed
      const max = target(c.key, size)
      const judged = max !== null
      const row = {
        command: c.label,
        key: c.key,
        median_ms: round(med),
        baseline_median_ms: round(baseMed),
        ratio: round(ratio, 2),
        /** Fastest run / fastest baseline: a cross-check that noise (which only adds time) affects less. */
        min_ratio: round(Math.min(...cmdMs) / Math.min(...baseMs), 2),
        target_ratio: judged ? max : null,
        pass: judged ? ratio <= max : null,
        peer: size === PEER_SIZE ? (PEERS[c.key] ?? null) : null,
        runs_ms: cmdMs.map((x) => round(x)),
        baseline_runs_ms: baseMs.map((x) => round(x)),
      }
      rows.push(row)
      log(`${size} tasks: ${c.label.padEnd(18)} ${row.median_ms} ms (node -e 0: ${row.baseline_median_ms} ms, ${row.ratio}x)`)
    }

    // Bytes of new loose objects written by one mutation of each kind (untimed).
    const mutationBytes = {}
    for (const [key, args] of [
      ['claim', () => ['claim', nextClaim()]],
      ['add', () => ['add', `Benchmark size probe ${size}`]],
      ['done', () => ['done', nextDone()]],
    ]) {
      const before = looseObjects(gitDir)
      mustRun(process.execPath, [BIN, ...args()], opts)
      const after = looseObjects(gitDir)
      let bytes = 0
      let objects = 0
      for (const [p, s] of after) {
        if (!before.has(p)) {
          bytes += s
          objects++
        }
      }
      const judged = size >= BYTES_TARGET.minSize
      mutationBytes[key] = {objects, bytes, target_bytes: judged ? BYTES_TARGET.max : null, pass: judged ? bytes < BYTES_TARGET.max : null}
    }

    // The whole list streamed: tasks per second of output and peak memory (fewer runs: seconds each at 100,000).
    mustRun(process.execPath, [BIN, 'list', '--json'], opts)
    const streamRuns = []
    for (let i = 0; i < Math.min(RUNS, 3); i++) streamRuns.push(peakOf(process.execPath, [BIN, 'list', '--all', '--json', '--limit', '0'], opts))
    const streamMs = median(streamRuns.map((r) => r.ms))
    const streamJudged = size >= STREAM_TARGET.minSize
    const stream = {
      median_ms: round(streamMs),
      tasks_per_second: Math.round(size / (streamMs / 1000)),
      peak_mib: median(streamRuns.map((r) => r.peak_mib ?? 0)) || null,
      cpu_ms: median(streamRuns.map((r) => r.cpu_ms ?? 0)) || null,
      target_tasks_per_second: streamJudged ? STREAM_TARGET.tasksPerSecond : null,
      pass: streamJudged ? size / (streamMs / 1000) >= STREAM_TARGET.tasksPerSecond : null,
    }
    log(`${size} tasks: list --all --json ${stream.median_ms} ms (cpu ${stream.cpu_ms ?? '?'} ms), ${stream.tasks_per_second} tasks/s, peak ${stream.peak_mib ?? '?'} MiB`)

    results.push({
      size,
      index,
      stream,
      seed: {ms: seeded.ms, gc_ms: gcMs, commit: seeded.commit, comments: seeded.comments, by_status: seeded.byStatus, loose_bytes: seeded.bytesWritten},
      commands: rows,
      mutation_bytes: mutationBytes,
    })
  }
  const largest = SIZES.length > 0 ? Math.max(...SIZES) : null
  if (largest !== null && largest >= 10_000 && process.env.BENCH_DIFF !== '0') {
    // On a copy of the largest store, so what it writes (1,000 changes) changes no other measurement.
    log(`${largest} tasks: diff over a day of 1,000 changes (bench/diff.mjs)`)
    const copy = join(tmp, `diff-${largest}`)
    cpSync(join(tmp, `tasks-${largest}`), copy, {recursive: true})
    diffResult = {size: largest, ...measureDiff({store: copy, env, runs: RUNS, size: largest})}
    log(`${largest} tasks: diff ${diffResult.median_ms} ms (node -e 0: ${diffResult.baseline_median_ms} ms, ${diffResult.ratio}x) over ${diffResult.cards} cards`)
  }
  if (largest !== null && Number(process.env.BENCH_SYNC ?? 0) > 0) {
    log(`${largest} tasks: sync merging ${process.env.BENCH_SYNC} commits on each side`)
    syncResult = await measureSync({store: join(tmp, `tasks-${largest}`), env, changes: Number(process.env.BENCH_SYNC), tmp})
    syncResult.size = largest
  }
  if (largest !== null && process.env.BENCH_SEARCH === '1') {
    log(`${largest} tasks: search queries against node -e 0`)
    const store = join(tmp, `tasks-${largest}`)
    mustRun(process.execPath, [BIN, 'search', 'warm', '--json'], {cwd: store, env})
    searchResult = {size: largest, ...benchSearch({search: {root, repo: store}}, RUNS, env)}
  }
  if (largest !== null && process.env.BENCH_PLAN !== '0') {
    log(`${largest} tasks: plan merge of a plan changing ${process.env.BENCH_PLAN || 1000} cards`)
    planResult = {size: largest, ...measurePlanMerge({store: join(tmp, `tasks-${largest}`), env, cards: Number(process.env.BENCH_PLAN || 1000), tmp})}
  }
  if (largest !== null && Number(process.env.BENCH_HISTORY ?? 0) > 0) {
    log(`${largest} tasks: ${process.env.BENCH_HISTORY} more commits, then git gc, log and show --history`)
    historyResult = await measureHistory({store: join(tmp, `tasks-${largest}`), env, count: Number(process.env.BENCH_HISTORY), tmp})
    historyResult.size = largest
  }
  if (Number(process.env.BENCH_BLAME ?? 0) > 0) {
    log(`blame at ${process.env.BENCH_BLAME} commits (bench/blame.mjs)`)
    blameResult = await benchBlame({commits: Number(process.env.BENCH_BLAME), runs: RUNS})
  }
  for (const agents of AGENTS) {
    log(`drain: ${agents} agents, ${agents * 5} items, then the serial floor (one agent, same pushes)`)
    const d = await drain({dir: join(tmp, 'drains'), bin: BIN, env, agents})
    d.pass = d.gave_up.length === 0 && d.done === d.items && d.leftover_refs.length === 0 ? d.ratio <= DRAIN_TARGET.maxRatio : false
    drains.push(d)
    log(`drain: ${agents} agents ${round(d.seconds)} s, floor ${round(d.floor_seconds)} s, ${round(d.ratio, 2)}x (cpu ${d.cpu_ratio === null ? '?' : round(d.cpu_ratio, 2)}x), load ${d.load.map((l) => round(l)).join(' ')}, gave up: ${d.gave_up.length}`)
  }
} finally {
  if (KEEP) log(`kept repositories under ${tmp}`)
  else rmSync(tmp, {recursive: true, force: true})
}

function fail(msg) {
  throw new Error(msg)
}

// ------------------------------------------------------------------ report

meta.loadavg_end = loadavg()[0]

const verdict = (pass) => (pass === null ? '' : pass ? 'pass' : 'FAIL')
const lines = []
lines.push('')
lines.push(`git-tasks benchmark: node ${meta.node}, git ${meta.git}, ${meta.cpus} CPU (${meta.cpu_model}), ${RUNS} runs + ${WARMUP} warm-up, medians`)
lines.push('ratio = median of the command / median of `node -e 0` timed in the same loop; min ratio = fastest / fastest (noise cross-check)')
// Judged on the load before the run: during it, the benchmark's own node and git processes add about 1.
const busy = meta.loadavg_start > meta.cpus / 2
lines.push(`load average before the run ${meta.loadavg_start.toFixed(2)} (after: ${meta.loadavg_end.toFixed(2)})${busy ? ' — the machine was busy: expect noisy ratios' : ''}`)
if (meta.node_start_ms) {
  const {with_extra_ca_certs: w, without: wo} = meta.node_start_ms
  lines.push(`NODE_EXTRA_CA_CERTS is set: \`node -e 0\` takes ${w.toFixed(1)} ms with it, ${wo.toFixed(1)} ms without; every process below (bare node and tasks alike) pays the ${(w - wo).toFixed(0)} ms difference, so without it each ratio is (median - ${(w - wo).toFixed(0)}) / (node - ${(w - wo).toFixed(0)})`)
}
const header = ['tasks', 'command', 'median ms', 'node -e 0 ms', 'ratio', 'target', 'result', 'min ratio', 'peer at 10,000 (issue 9)']
const table = [header]
for (const r of results) {
  for (const c of r.commands) {
    table.push([
      r.size.toLocaleString('en-US'),
      c.command,
      c.median_ms.toFixed(1),
      c.baseline_median_ms.toFixed(1),
      `${c.ratio.toFixed(2)}x`,
      c.target_ratio === null ? '' : `<= ${c.target_ratio}x`,
      verdict(c.pass),
      `${c.min_ratio.toFixed(2)}x`,
      c.peer ?? '',
    ])
  }
}
const bytesTable = [['tasks', 'one mutation', 'new objects', 'bytes', 'target', 'result']]
for (const r of results) {
  for (const [k, b] of Object.entries(r.mutation_bytes)) {
    bytesTable.push([r.size.toLocaleString('en-US'), `tasks ${k}`, String(b.objects), `${b.bytes} (${(b.bytes / 1024).toFixed(1)} KiB)`, b.target_bytes === null ? '' : `< ${b.target_bytes / 1024} KiB`, verdict(b.pass)])
  }
}
function render(rowsIn, rightAligned) {
  const widths = rowsIn[0].map((_, i) => Math.max(...rowsIn.map((row) => row[i].length)))
  const fmt = (row) => row.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd()
  return [fmt(rowsIn[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rowsIn.slice(1).map(fmt)]
}
lines.push('')
lines.push(...render(table, new Set([0, 2, 3, 4, 7])))
lines.push('')
lines.push(...render(bytesTable, new Set([0, 2, 3])))
const indexTable = [['tasks', 'bringing the index up to date', 'ms', 'peak MiB', 'target', 'result']]
for (const r of results) {
  const target = INDEX_TARGETS.find((t) => t.size === r.size)
  for (const [label, m] of [['from a cache as old as init', r.index.catch_up], ['cold (no cache)', r.index.cold]]) {
    m.pass = target ? m.ms <= target.seconds * 1000 && (m.peak_mib === null || m.peak_mib < target.peakMiB) : null
    indexTable.push([r.size.toLocaleString('en-US'), label, m.ms.toFixed(0), m.peak_mib === null ? '?' : m.peak_mib.toFixed(0), target ? `<= ${target.seconds} s, < ${target.peakMiB} MiB` : '', verdict(m.pass)])
  }
  const st = r.stream
  indexTable.push([r.size.toLocaleString('en-US'), 'list --all --json (streamed)', st.median_ms.toFixed(0), st.peak_mib === null ? '?' : st.peak_mib.toFixed(0), st.target_tasks_per_second ? `>= ${st.target_tasks_per_second} tasks/s (got ${st.tasks_per_second})` : `${st.tasks_per_second} tasks/s`, verdict(st.pass)])
}
lines.push('')
lines.push(...render(indexTable, new Set([0, 2, 3])))
// Constant memory of the streamed listing (issue 9): judged from two sizes, the larger at least the stream
// target's size, as the larger's peak within STREAM_MEMORY_SLACK of the smaller's.
let streamMemory = null
const streamed = results.filter((r) => r.stream.peak_mib !== null).sort((a, b) => a.size - b.size)
if (streamed.length >= 2 && streamed.at(-1).size >= STREAM_TARGET.minSize) {
  const [a, b] = [streamed[0], streamed.at(-1)]
  const kib = ((b.stream.peak_mib - a.stream.peak_mib) * 1024) / (b.size - a.size)
  streamMemory = {from_size: a.size, to_size: b.size, from_peak_mib: a.stream.peak_mib, to_peak_mib: b.stream.peak_mib, kib_per_task: round(kib), pass: b.stream.peak_mib <= a.stream.peak_mib * STREAM_MEMORY_SLACK}
  lines.push(`list --all --json memory: ${a.stream.peak_mib} MiB peak at ${a.size.toLocaleString('en-US')} tasks, ${b.stream.peak_mib} MiB at ${b.size.toLocaleString('en-US')}: ${round(kib)} KiB more a task; target constant (within ${Math.round((STREAM_MEMORY_SLACK - 1) * 100)}%): ${verdict(streamMemory.pass)}`)
}

if (syncResult) {
  const r = syncResult
  lines.push('')
  lines.push(`sync at ${r.size.toLocaleString('en-US')} tasks, ${r.changes_each_side} commits on each side: ${(r.sync_ms / 1000).toFixed(2)} s wall${r.cpu_s === null || r.cpu_s === undefined ? '' : `, ${r.cpu_s.toFixed(2)} s CPU (sync and its git processes)`} at load ${r.loadavg ?? '?'} (node -e 0: ${r.node_ms} ms), merge commit with ${r.merge_parents} parents, pushed: ${r.pushed}; target <= ${r.target_s} s: ${verdict(r.pass)}`)
}
if (planResult) {
  lines.push('')
  lines.push(planMergeLine(planResult))
}
if (diffResult) {
  const d = diffResult
  lines.push('')
  lines.push(`diff at ${d.size.toLocaleString('en-US')} tasks over a day of ${d.changes} changes (${d.cards} cards, ${d.field_changes} field changes, ${d.comments} comments): ${d.median_ms} ms, node -e 0 ${d.baseline_median_ms} ms, ${d.ratio.toFixed(2)}x (min ${d.min_ratio.toFixed(2)}x)${d.target_ratio === null ? '' : `; target <= ${d.target_ratio}x: ${verdict(d.pass)}`}`)
}
if (searchResult) {
  console.log('')
  console.log(`search at ${searchResult.size.toLocaleString('en-US')} tasks (bench/search.mjs; load ${searchResult.load.map((l) => l.toFixed(2)).join(' -> ')}): median ms, ratio to node -e 0`)
  for (const r of searchResult.rows) console.log(`  ${r.label.padEnd(36)} ${r.median_ms.toFixed(1).padStart(8)}  ${r.ratio.toFixed(2)}x`)
}
if (historyResult) {
  const h = historyResult
  const b = h.breakdown
  lines.push('')
  lines.push(`history at ${h.size.toLocaleString('en-US')} tasks + ${h.mutations.toLocaleString('en-US')} commits (${h.commits_on_ref} on the ref, generated in ${(h.generate_ms / 1000).toFixed(0)} s${h.inbox ? ', with inbox records' : ''}): git gc ${(h.gc_ms / 1000).toFixed(1)} s, size-pack ${h.after_gc.pack_mib} MiB (target < ${h.gc_target_mib} MB at 300,000 commits${h.mutations >= 300_000 ? `: ${verdict(h.after_gc.pack_mib * 1.048576 < h.gc_target_mib)}` : ', not judged for fewer'})`)
  lines.push(`  pack ${b.pack_bytes} + idx ${b.idx_bytes} bytes; history ${b.history_bytes_per_commit} bytes per commit in the pack + ${b.idx_bytes_per_object} idx bytes per object; index cache ${h.index_cache_bytes.before} -> ${h.index_cache_bytes.after} bytes (first command after the history: ${(h.index_catch_up_ms / 1000).toFixed(1)} s)`)
  for (const [kind, r] of Object.entries(b.rows).sort((x, y) => y[1].history_bytes - x[1].history_bytes)) lines.push(`    ${kind.padEnd(36)} ${String(r.history_objects).padStart(8)} objects ${String(r.history_bytes).padStart(11)} bytes ${String(r.bytes_per_commit).padStart(7)} per commit`)
  for (const v of h.repacks) lines.push(`  ${v.command}: ${(v.ms / 1000).toFixed(1)} s, size-pack ${v.pack_mib} MiB, ${v.breakdown.history_bytes_per_commit} bytes per commit`)
  for (const [label, m] of [['no commit-graph', h.plain], ['git gc\'s commit-graph', h.gc_commit_graph], ['changed-path filters', h.with_changed_path_filters]]) {
    if (m) lines.push(`  ${label}: tasks log ID ${m.log.median_ms} ms (${m.log.ratio}x node), show ID --history ${m.show_history.median_ms} ms (${m.show_history.ratio}x)`)
  }
}
if (blameResult) {
  const r = blameResult
  lines.push('')
  lines.push(`blame at ${r.commits.toLocaleString('en-US')} commits, ${r.tasks.toLocaleString('en-US')} cards (the card changed in ${r.card_commits} of them, walked ${r.walked}): median ${r.median_ms} ms, node -e 0 ${r.node_ms} ms, without the commit-graph ${r.no_commit_graph_ms} ms; target <= ${r.target_s} s${r.commits >= 300_000 ? `: ${verdict(r.pass)}` : ', not judged for fewer'}`)
}
if (drains.length > 0) {
  const drainTable = [['agents', 'items', 'pushes', 'drain s', 'serial floor s', 'ratio', 'target', 'cpu ratio', 'load (drain, floor)', 'gave up', 'left pending', 'result']]
  for (const d of drains) {
    const load = d.load.map((l) => l.toFixed(1))
    drainTable.push([
      String(d.agents),
      String(d.items),
      String(d.pushes),
      d.seconds.toFixed(1),
      d.floor_seconds.toFixed(1),
      `${d.ratio.toFixed(2)}x`,
      `<= ${DRAIN_TARGET.maxRatio}x`,
      d.cpu_ratio === null ? '?' : `${d.cpu_ratio.toFixed(2)}x`,
      `${load[0]}->${load[1]}, ${load[2]}->${load[3]}`,
      String(d.gave_up.length),
      String(d.leftover_refs.length),
      verdict(d.pass),
    ])
  }
  lines.push('')
  lines.push(...render(drainTable, new Set([0, 1, 2, 3, 4, 5, 7, 9, 10])))
  lines.push('cpu ratio: CPU seconds of every process the drain ran ÷ the floor\'s (contention\'s wasted work; hardly affected by other load). On a loaded machine the wall ratio flatters the drain: N agents get a larger share of the CPU than one.')
}

const judged = [
  ...drains,
  ...results.flatMap((r) => r.commands),
  ...results.flatMap((r) => Object.values(r.mutation_bytes)),
  ...results.flatMap((r) => [r.index.catch_up, r.index.cold, r.stream]),
  ...(syncResult ? [syncResult] : []),
  ...(planResult ? [planResult] : []),
  ...(diffResult ? [diffResult] : []),
  ...(streamMemory ? [streamMemory] : []),
  ...(blameResult && blameResult.commits >= 300_000 ? [blameResult] : []),
  ...(historyResult && historyResult.mutations >= 300_000 ? [{pass: historyResult.after_gc.pack_mib * 1.048576 < historyResult.gc_target_mib}] : []),
].filter((x) => x.pass !== null && x.pass !== undefined)
const failed = judged.filter((x) => !x.pass).length
lines.push('')
lines.push(`targets: ${judged.length - failed} of ${judged.length} met${failed ? ` (${failed} missed)` : ''}; total ${Math.round((Date.now() - started) / 1000)} s`)

const outDir = join(root, '.bench')
mkdirSync(outDir, {recursive: true})
const outFile = join(outDir, 'results.json')
writeFileSync(outFile, `${JSON.stringify({meta, targets: {...TARGETS, mutation_bytes: BYTES_TARGET, stream: STREAM_TARGET, index: INDEX_TARGETS, drain: DRAIN_TARGET}, peers: PEERS, results, stream_memory: streamMemory, drains, sync: syncResult, history: historyResult, search: searchResult, diff: diffResult, blame: blameResult, plan_merge: planResult}, null, 2)}\n`)
lines.push(`results: ${outFile}`)
process.stdout.write(`${lines.join('\n')}\n`)
