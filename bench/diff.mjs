// `tasks diff` over one day of 1,000 changes (issue 34): on a bench store
// (run.mjs calls `measureDiff` on its largest store; or
// `node bench/diff.mjs STORE` on a kept one, which is copied first), make
// 1,000 changes a minute after the store's tip (priority and title edits and
// comments, as four `tasks batch` commits over 600 cards), then time
// `tasks diff --json` a day after the tip (FROM's default, 1d, names the tip
// before the changes) against a bare `node -e 0`, interleaved in one loop.
//
// Environment (standalone): DIFF_RUNS=9 timed runs after one warm-up.
import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
/** The target: diff ≤ 4 × node -e 0 at 10,000 tasks. */
export const DIFF_TARGET = {minSize: 10_000, maxRatio: 4}
export const DIFF_CHANGES = 1000

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d

function mustRun(cmd, args, opts) {
  const r = spawnSync(cmd, args, {encoding: 'utf8', maxBuffer: 1 << 30, ...opts})
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stderr}${r.stdout}`)
  return r.stdout
}

function timed(cmd, args, opts) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {maxBuffer: 1 << 30, ...opts})
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stderr}`)
  return ms
}

/**
 * Make the day's changes on `store` (written to) and time the diff.
 * Returns medians, the ratio, and what the diff reported (a sanity check).
 */
export function measureDiff({store, env, runs = 9, size = null}) {
  const tip = Number(mustRun('git', ['log', '-1', '--format=%ct', 'refs/tasks/main'], {cwd: store, env}).trim())
  const at = (seconds) => ({...env, TASKS_NOW: new Date((tip + seconds) * 1000).toISOString()})
  // Cards nobody holds (an edit of a claimed card would be refused): open, unassigned, not claimed.
  const rows = JSON.parse(mustRun(process.execPath, [BIN, 'list', '--status', 'todo', '--json', '--limit', '3000'], {cwd: store, env: at(30)})).tasks
  const free = rows.filter((t) => !t.owner && !t.assignee).map((t) => t.id)
  if (free.length < 600) throw new Error(`bench/diff: only ${free.length} free cards to change`)
  const ops = []
  for (let i = 0; i < 400; i++) ops.push({op: 'edit', id: free[i], priority: (i % 4) + 0})
  for (let i = 0; i < 300; i++) ops.push({op: 'edit', id: free[i + 300], title: `Renamed in the day's work ${i}`})
  for (let i = 0; i < 300; i++) ops.push({op: 'comment', id: free[i * 2], text: `Looked at this today (${i})\nnothing more`})
  if (ops.length !== DIFF_CHANGES) throw new Error('bench/diff: internal: wrong number of changes')
  const chunk = DIFF_CHANGES / 4
  for (let b = 0; b < 4; b++) mustRun(process.execPath, [BIN, 'batch', '-', '--json'], {cwd: store, env: at(60 + b * 60), input: JSON.stringify(ops.slice(b * chunk, (b + 1) * chunk))})
  // A day after the tip: FROM (1d) is the tip before the changes.
  const opts = {cwd: store, env: at(86_400 + 30)}
  const out = JSON.parse(mustRun(process.execPath, [BIN, 'diff', '--json'], opts))
  const cards = out.cards.length
  const fieldChanges = out.cards.reduce((n, c) => n + c.fields.length, 0)
  const cmdMs = []
  const baseMs = []
  for (let i = 0; i <= runs; i++) {
    const base = timed(process.execPath, ['-e', '0'], opts)
    const t = timed(process.execPath, [BIN, 'diff', '--json'], opts)
    if (i === 0) continue // warm-up
    baseMs.push(base)
    cmdMs.push(t)
  }
  const med = median(cmdMs)
  const baseMed = median(baseMs)
  const judged = size !== null && size >= DIFF_TARGET.minSize
  return {
    changes: DIFF_CHANGES,
    cards,
    field_changes: fieldChanges,
    comments: out.summary.comments,
    median_ms: round(med),
    baseline_median_ms: round(baseMed),
    ratio: round(med / baseMed, 2),
    min_ratio: round(Math.min(...cmdMs) / Math.min(...baseMs), 2),
    target_ratio: judged ? DIFF_TARGET.maxRatio : null,
    pass: judged ? med / baseMed <= DIFF_TARGET.maxRatio : null,
    runs_ms: cmdMs.map((x) => round(x)),
  }
}

// Standalone: node bench/diff.mjs STORE (a kept store, copied first).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const store = process.argv[2]
  if (!store) {
    process.stderr.write('usage: node bench/diff.mjs STORE (BENCH_KEEP=1 npm run bench prints one)\n')
    process.exit(2)
  }
  const scratch = mkdtempSync(join(tmpdir(), 'git-tasks-diff-bench-'))
  try {
    const copy = join(scratch, 'store')
    cpSync(store, copy, {recursive: true})
    const env = {}
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && !k.startsWith('TASKS_') && k !== 'NODE_OPTIONS') env[k] = v
    Object.assign(env, {NO_COLOR: '1', TASKS_ACTOR: 'bench-agent', GIT_CONFIG_NOSYSTEM: '1'})
    const size = Number(/tasks-(\d+)/.exec(store)?.[1] ?? NaN)
    console.log(JSON.stringify(measureDiff({store: copy, env, runs: Number(process.env.DIFF_RUNS || 9), size: Number.isFinite(size) ? size : null}), null, 2))
  } finally {
    rmSync(scratch, {recursive: true, force: true})
  }
}
