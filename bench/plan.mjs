// `tasks plan merge` of a 1,000-card plan (issue 34): on a copy of a seeded
// store (its objects shared through alternates), a plan is started, 1,000
// cards are changed on it through one `tasks --list PLAN batch` (half edits
// of existing cards: title and priority; 480 new cards; 20 claims, which
// never land), the live list moves meanwhile (100 edits, 50 of the planned
// cards: 25 a title too, which conflicts; 20 claims), then one `tasks plan
// merge` process is timed, next to a bare `node -e 0`. Target: <= 3 s wall.
//
// From bench/run.mjs (`npm run bench`, on the largest store; BENCH_PLAN=0
// leaves it out, BENCH_PLAN=N changes N cards), or alone:
//   node bench/plan.mjs [STORE_SIZE]   (seeds its own store; default 10000)
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {BIN, isolatedEnv, loadBench, timed} from './support.mjs'

const log = (msg) => process.stderr.write(`bench: ${msg}\n`)
export const PLAN_MERGE_TARGET_S = 3
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d

const tasks = (args, opts, input) => timed(process.execPath, [BIN, ...args], {...opts, input})

/** A repository sharing `store`'s objects, with its list ref and index cache. */
function copyOf(store, dir, env) {
  timed('git', ['init', '-q', dir], {env})
  writeFileSync(join(dir, '.git', 'objects', 'info', 'alternates'), `${join(store, '.git', 'objects')}\n`)
  const tip = timed('git', ['rev-parse', 'refs/tasks/main'], {cwd: store, env}).out.trim()
  timed('git', ['update-ref', 'refs/tasks/main', tip], {cwd: dir, env})
  const cache = join(store, '.git', 'git-tasks', 'index-main')
  if (existsSync(cache)) {
    mkdirSync(join(dir, '.git', 'git-tasks'), {recursive: true})
    copyFileSync(cache, join(dir, '.git', 'git-tasks', 'index-main'))
  }
}

/** Plan merge of a plan changing `cards` cards, on a copy of `store`; returns the figures. */
export function measurePlanMerge({store, env, cards = 1000, tmp}) {
  const repo = join(tmp, 'plan-merge')
  copyOf(store, repo, env)
  const opts = {cwd: repo, env}
  const open = JSON.parse(tasks(['list', '--json'], opts).out).tasks.filter((t) => t.status === 'todo')
  const edits = Math.min(Math.floor(cards / 2), open.length - 20)
  tasks(['plan', 'start', 'bench-plan'], {...opts, env: {...env, TASKS_ACTOR: 'planner'}})
  const planOps = [
    ...open.slice(0, edits).map((t, i) => ({op: 'edit', id: t.id, title: `${t.title} (planned)`, priority: (i % 4) + 1})),
    ...Array.from({length: cards - edits - 20}, (_, i) => ({op: 'add', title: `Planned card ${i}`, tags: ['planned']})),
    // Claims on the plan: never applied to the live list (kept_claims).
    ...open.slice(edits + 100, edits + 120).map((t) => ({op: 'claim', id: t.id})),
  ]
  const drafted = tasks(['--list', 'bench-plan', 'batch', '-', '--json'], {...opts, env: {...env, TASKS_ACTOR: 'planner'}}, JSON.stringify(planOps))
  log(`plan: ${planOps.length} operations on the plan in ${round(drafted.ms)} ms`)
  // The live list meanwhile: edits of other cards and of some of the planned ones (tags), and claims.
  const liveOps = [
    ...open.slice(edits - 50, edits).map((t, i) => (i % 2 ? {op: 'edit', id: t.id, add_tags: ['live']} : {op: 'edit', id: t.id, title: `${t.title} (live)`})),
    ...open.slice(edits, edits + 50).map((t) => ({op: 'edit', id: t.id, add_tags: ['live']})),
    ...open.slice(edits + 50, edits + 70).map((t) => ({op: 'claim', id: t.id})),
  ]
  tasks(['batch', '-', '--json'], {...opts, env: {...env, TASKS_ACTOR: 'live-agent'}}, JSON.stringify(liveOps))
  const base = timed('node', ['-e', '0'], {env})
  const load = loadavg()[0]
  const m = tasks(['plan', 'merge', 'bench-plan', '--json'], {...opts, env: {...env, TASKS_ACTOR: 'lead'}})
  const result = JSON.parse(m.out)
  const parents = timed('git', ['rev-list', '--parents', '-n1', 'refs/tasks/main'], opts).out.trim().split(' ').length - 1
  return {
    cards_on_plan: planOps.length,
    live_changes: liveOps.length,
    merge_ms: round(m.ms),
    node_ms: round(base.ms),
    loadavg: round(load, 2),
    cards_changed: result.cards_changed,
    kept_claims: result.kept_claims.length,
    notes: result.notes.length,
    merge_parents: parents,
    target_s: PLAN_MERGE_TARGET_S,
    pass: m.ms <= PLAN_MERGE_TARGET_S * 1000 && parents === 2 && result.action === 'merged',
  }
}

export function planMergeLine(r) {
  return `plan merge at ${r.size.toLocaleString('en-US')} tasks, a plan of ${r.cards_on_plan} card changes (${r.live_changes} live changes meanwhile): ${(r.merge_ms / 1000).toFixed(2)} s wall at load ${r.loadavg} (node -e 0: ${r.node_ms} ms), ${r.cards_changed} cards changed, ${r.kept_claims} claim moves kept, ${r.notes} notes; target <= ${r.target_s} s: ${r.pass ? 'ok' : 'MISSED'}`
}

// Alone: seed a store, then measure.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const size = Number(process.argv[2] ?? 10000)
  const tmp = mkdtempSync(join(tmpdir(), 'tasks-plan-bench-'))
  try {
    const env = isolatedEnv(tmp)
    const {seed} = await loadBench(tmp, ['seed'])
    const store = join(tmp, 'store')
    mkdirSync(store)
    timed('git', ['init', '-q'], {cwd: store, env})
    log(`seeding ${size} tasks`)
    await seed({cwd: store, count: size, actor: 'bench-agent', reserve: 5})
    timed('git', ['gc', '-q'], {cwd: store, env})
    tasks(['list', '--limit', '1', '--json'], {cwd: store, env})
    const r = {size, ...measurePlanMerge({store, env, cards: Number(process.env.BENCH_PLAN || 1000), tmp})}
    console.log(planMergeLine(r))
    console.log(JSON.stringify(r))
  } finally {
    rmSync(tmp, {recursive: true, force: true})
  }
}
