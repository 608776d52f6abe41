// `tasks search` at scale: whole processes against a bare `node -e 0`, in
// one interleaved loop (each round runs every row once, so machine noise
// hits all of them), medians and ratios to the baseline of the same loop.
//
//   node bench/search.mjs STORE [BEFORE_ROOT]
//
// STORE is a kept bench store (`BENCH_SIZES=10000 BENCH_KEEP=1 npm run
// bench` prints where); it is copied first, never written. BEFORE_ROOT is
// another build's checkout (its bin/ and dist/, e.g. a copy of main's),
// timed in the same loop as "before". `tasks show ID` is timed too: it
// pays the same store load as search, so search's own cost is the gap.
//
// Environment: SEARCH_RUNS=11 (timed rounds, after one warm-up round);
// SEARCH_CPU=1 also reports each row's CPU time (task-clock of the process
// and every process it starts, git included, from `perf stat`), which a
// busy machine disturbs far less than wall time.
import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const RUNS = Number(process.env.SEARCH_RUNS || 11)

/** The queries: a rare word, common words (on most cards), several words, a prefix, a filter, a typo. */
export const SEARCH_QUERIES = [
  ['rare word', ['lease']],
  ['common word', ['list']],
  ['most common', ['the']],
  ['two words', ['lease renewal']],
  ['two common', ['test docs']],
  ['prefix', ['pars']],
  ['--status open', ['list', '--status', 'open']],
  ['typo', ['renewl']],
]

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

function cleanEnv() {
  const out = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && !k.startsWith('TASKS_') && k !== 'NODE_OPTIONS') out[k] = v
  return {...out, NO_COLOR: '1', TASKS_ACTOR: 'bench-agent'}
}

const CPU = process.env.SEARCH_CPU === '1'

function timed(cmd, args, cwd, env = cleanEnv()) {
  // perf stat adds the same small cost to every row, the baseline's included.
  const [c, a] = CPU ? ['perf', ['stat', '-x,', '-e', 'task-clock', '--', cmd, ...args]] : [cmd, args]
  const t0 = process.hrtime.bigint()
  const r = spawnSync(c, a, {cwd, env, maxBuffer: 1 << 30})
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  const cpu = CPU ? Number(/^([\d.]+),msec,task-clock/m.exec(String(r.stderr))?.[1]) : NaN
  return {ms, cpu, out: r.stdout}
}

/**
 * Time `tasks search` per query against bare node, interleaved. `builds`
 * maps a label to {root: a checkout with bin/ and dist/, repo: its own copy
 * of the store} (builds with other cache formats must not share a cache).
 * `env`: the processes' environment (default: this one without GIT_ and
 * TASKS_ settings, TASKS_ACTOR=bench-agent).
 */
export function benchSearch(builds, runs = RUNS, env = cleanEnv()) {
  const bin = (b) => join(b.root, 'bin', 'tasks')
  const first = Object.values(builds)[0]
  const someId = JSON.parse(timed(process.execPath, [bin(first), 'search', 'lease', '--json', '-n', '1'], first.repo, env).out).results[0]?.task.id
  const rows = [{label: 'node -e 0', cmd: process.execPath, args: ['-e', '0'], cwd: first.repo}]
  for (const [name, b] of Object.entries(builds)) rows.push({label: `${name}: show ID`, cmd: process.execPath, args: [bin(b), 'show', someId, '--json'], cwd: b.repo})
  for (const [q, args] of SEARCH_QUERIES) for (const [name, b] of Object.entries(builds)) rows.push({label: `${name}: search ${q}`, cmd: process.execPath, args: [bin(b), 'search', ...args, '--json'], cwd: b.repo})
  const times = rows.map(() => [])
  const cpus = rows.map(() => [])
  const load = [loadavg()[0]]
  for (let round = 0; round <= runs; round++) {
    rows.forEach((row, i) => {
      const {ms, cpu} = timed(row.cmd, row.args, row.cwd, env)
      if (round > 0) {
        times[i].push(ms)
        cpus[i].push(cpu)
      }
    })
  }
  load.push(loadavg()[0])
  const base = median(times[0])
  const cpuBase = median(cpus[0])
  return {
    load,
    runs,
    rows: rows.map((row, i) => ({label: row.label, args: row.args.slice(1), median_ms: median(times[i]), ratio: median(times[i]) / base, cpu_ms: median(cpus[i]), cpu_ratio: median(cpus[i]) / cpuBase})),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [store, beforeRoot] = process.argv.slice(2)
  if (!store) {
    process.stderr.write('usage: node bench/search.mjs STORE [BEFORE_ROOT]\n')
    process.exit(2)
  }
  const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-search-bench-'))
  try {
    const roots = beforeRoot ? {before: beforeRoot, after: root} : {after: root}
    const builds = {}
    for (const [name, r] of Object.entries(roots)) {
      const repo = join(tmp, name)
      cpSync(store, repo, {recursive: true})
      builds[name] = {root: r, repo}
      // Warm this build's cache: the first search builds the index.
      timed(process.execPath, [join(r, 'bin', 'tasks'), 'search', 'warm', '--json'], repo)
    }
    const res = benchSearch(builds)
    console.log(`tasks search at ${store}: ${res.runs} interleaved rounds, medians; load average ${res.load.map((l) => l.toFixed(2)).join(' -> ')}`)
    for (const r of res.rows) {
      const cpu = Number.isNaN(r.cpu_ms) ? '' : `   cpu ${r.cpu_ms.toFixed(1).padStart(7)} ms  ${r.cpu_ratio.toFixed(2)}x`
      console.log(`${r.label.padEnd(36)} ${r.median_ms.toFixed(1).padStart(8)} ms  ${r.ratio.toFixed(2)}x${cpu}`)
    }
  } finally {
    rmSync(tmp, {recursive: true, force: true})
  }
}
