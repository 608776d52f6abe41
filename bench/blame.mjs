// `tasks blame ID` at depth (issue 34: at 300,000 commits it answers in
// about a second, ≤ 1.5 s). Makes a list with a long history quickly and
// times whole `tasks blame` processes on it:
//
//   1. a store of BLAME_TASKS cards (bench/seed.ts, one commit);
//   2. BLAME_COMMITS more commits through `git fast-import`
//      (bench/history-gen.ts: the real ops, serialisers, messages and
//      trailers, in the real layout, 12 actors), one card in every
//      BLAME_EVERY draws being the blamed card (its task.md then changes
//      every few hundred commits; the rest touch other cards);
//   3. the commit-graph with changed-path filters, as the tool's
//      background refresh writes it (refstore/housekeeping.ts
//      `refreshCommitGraph`: `git commit-graph write --reachable
//      --changed-paths`);
//   4. `tasks blame ID --json` BLAME_RUNS times (median), each paired with a
//      bare `node -e 0`; then once with GIT_TRACE2_PERF to count what the
//      Bloom filters answered, and (for comparison) with core.commitGraph
//      off.
//
// The blamed card was made in the seed commit and its created_at never
// changes, so the walk always goes back through the whole history: the
// worst case. Run alone (`node bench/blame.mjs`, after `npm run build`) or
// from `npm run bench` with BENCH_BLAME=300000.
//
// Environment: BLAME_COMMITS=300000, BLAME_TASKS=2000, BLAME_EVERY=100,
// BLAME_RUNS=7, BLAME_KEEP=1 (keep the repository; its path is printed).
import {createHash} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {BIN, isolatedEnv, loadBench, timed} from './support.mjs'

/** The target: seconds for `tasks blame` at 300,000 commits. */
export const BLAME_TARGET_SECONDS = 1.5

const log = (msg) => process.stderr.write(`bench blame: ${msg}\n`)
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** What git's Bloom filters answered during one command (GIT_TRACE2_PERF's bloom/statistics, summed over its git processes). */
function bloomStatistics(traceFile) {
  const sum = {filter_not_present: 0, maybe: 0, definitely_not: 0, false_positive: 0}
  let seen = false
  for (const line of readFileSync(traceFile, 'utf8').split('\n')) {
    const m = /\|\s*bloom\s*\|\s*statistics:(\{.*\})/.exec(line)
    if (!m) continue
    seen = true
    const s = JSON.parse(m[1])
    for (const k of Object.keys(sum)) sum[k] += Number(s[k] ?? 0)
  }
  return seen ? sum : null
}

export async function benchBlame({commits = 300_000, tasks = 2_000, every = 100, runs = 7, keep = false} = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-blame-'))
  const env = isolatedEnv(tmp)
  const repo = join(tmp, 'repo')
  try {
    const lib = await loadBench(tmp, ['seed', 'history-gen'])
    timed('git', ['init', '-q', repo], {env})
    timed(process.execPath, [BIN, 'init', '--json'], {cwd: repo, env})
    const now = Date.now()
    const seeded = await lib.seed({cwd: repo, count: tasks, actor: 'bench-agent', reserve: 1, now: new Date(now - commits * 10_000 - 86_400_000).toISOString()})
    const id = seeded.showTarget
    log(`seeded ${tasks} cards; generating ${commits} commits (the blamed card ${id} drawn every ${every})`)
    const made = await lib.generateHistory({cwd: repo, count: commits, seed: 34, start: new Date(now - commits * 10_000).toISOString(), focus: {id, every}, progress: (n) => n % 50_000 === 0 && log(`${n} of ${commits}`)})
    log(`generated in ${round(made.ms / 1000)} s`)
    const path = `tasks/${createHash('sha1').update(id).digest('hex').slice(0, 2)}/${id}/task.md`
    const total = Number(timed('git', ['rev-list', '--count', 'refs/tasks/main'], {cwd: repo, env}).out.trim())
    const touching = Number(timed('git', ['rev-list', '--count', 'refs/tasks/main', '--', path], {cwd: repo, env}).out.trim())
    const graph = timed('git', ['commit-graph', 'write', '--reachable', '--changed-paths'], {cwd: repo, env})
    log(`${total} commits, ${touching} of them change ${path}; commit-graph with changed paths written in ${round(graph.ms / 1000)} s`)
    // The index cache brought up to date (the first command after a fetch of this history pays it once), and the walk checked.
    timed(process.execPath, [BIN, 'list', '--json', '--limit', '1'], {cwd: repo, env})
    const answer = JSON.parse(timed(process.execPath, [BIN, 'blame', id, '--json'], {cwd: repo, env}).out)
    const times = []
    const base = []
    for (let i = 0; i < runs; i++) {
      base.push(timed('node', ['-e', '0'], {env}).ms)
      times.push(timed(process.execPath, [BIN, 'blame', id, '--json'], {cwd: repo, env}).ms)
    }
    const trace = join(tmp, 'trace2.perf')
    timed(process.execPath, [BIN, 'blame', id, '--json'], {cwd: repo, env: {...env, GIT_TRACE2_PERF: trace}})
    const bloom = bloomStatistics(trace)
    const noGraph = timed(process.execPath, [BIN, 'blame', id, '--json'], {cwd: repo, env: {...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.commitGraph', GIT_CONFIG_VALUE_0: 'false'}}).ms
    const result = {
      commits: total,
      tasks,
      card: id,
      card_commits: touching,
      walked: answer.walked,
      fields: answer.fields.length,
      lines: answer.description.length,
      generate_s: round(made.ms / 1000),
      commit_graph_s: round(graph.ms / 1000),
      median_ms: round(median(times)),
      min_ms: round(Math.min(...times)),
      node_ms: round(median(base)),
      no_commit_graph_ms: round(noGraph),
      bloom,
      target_s: BLAME_TARGET_SECONDS,
      pass: median(times) / 1000 <= BLAME_TARGET_SECONDS,
      load: loadavg()[0],
    }
    log(`blame: median ${result.median_ms} ms (min ${result.min_ms}, node -e 0 ${result.node_ms} ms) over ${runs} runs; without the commit-graph ${result.no_commit_graph_ms} ms; walked ${result.walked} of ${touching} card commits; bloom ${JSON.stringify(bloom)}; ${result.pass ? 'pass' : 'FAIL'} (target ${BLAME_TARGET_SECONDS} s)`)
    return result
  } finally {
    if (keep) log(`kept ${repo}`)
    else rmSync(tmp, {recursive: true, force: true})
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const int = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback)
  const r = await benchBlame({commits: int('BLAME_COMMITS', 300_000), tasks: int('BLAME_TASKS', 2_000), every: int('BLAME_EVERY', 100), runs: int('BLAME_RUNS', 7), keep: process.env.BLAME_KEEP === '1'})
  process.stdout.write(`${JSON.stringify(r, null, 1)}\n`)
  process.exitCode = r.pass ? 0 : 1
}
