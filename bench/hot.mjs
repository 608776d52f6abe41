#!/usr/bin/env node
// The hot commands on a kept store, several builds side by side (issue 9,
// deliverable 2): `show`, `claim`, `next --another`, `add`, `done`, each a
// whole process, against a bare `node -e 0` timed right before it, runs of
// every build interleaved in one loop so they share the machine's load.
// Unlike run.mjs it seeds nothing: it copies a kept store (BENCH_KEEP=1 of
// run.mjs prints where; never written to) once per build and works on the
// copies, so a before/after comparison takes minutes, not a seed each.
//
//   BENCH_STORE=/path/to/tasks-100000            the kept store (required)
//   BENCH_BUILDS=main=/x/bin/tasks,this=bin/tasks builds to compare (default: this checkout)
//   BENCH_RUNS=9                                  timed runs per command and build (after one warm-up)
//   BENCH_COMMANDS=show,claim,next,add,done       also: list, list-all, search, log, version, show-at, list-at (--at BENCH_AT_BACK=16 commits behind the tip)
//   BENCH_NOW=ISO-TIME                            the pinned clock (default: a minute after the store's last commit)
//   BENCH_KEEP_COPIES=1                           leave the copies (their paths are printed)
//
// Each figure is the median wall time and the median CPU time (user + sys of
// the process and the git processes it waited for, from /usr/bin/time) and
// its ratio to `node -e 0`'s medians in the same loop. Prints a table with
// the load average before and after, and writes .bench/hot.json.
import {spawnSync} from 'node:child_process'
import {cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const STORE = process.env.BENCH_STORE
if (!STORE) {
  process.stderr.write('bench/hot.mjs: set BENCH_STORE to a kept store (BENCH_KEEP=1 npm run bench prints it)\n')
  process.exit(2)
}
const RUNS = Number(process.env.BENCH_RUNS || 9)
const COMMANDS = (process.env.BENCH_COMMANDS || 'show,claim,next,add,done').split(',')
const BUILDS = (process.env.BENCH_BUILDS || `this=${join(root, 'bin', 'tasks')}`).split(',').map((s) => {
  const [name, bin] = s.split('=')
  return {name, bin: resolve(bin)}
})
const ACTOR = 'bench-agent'
const log = (msg) => process.stderr.write(`bench: ${msg}\n`)
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ')

const scratch = mkdtempSync(join(tmpdir(), 'git-tasks-hot-bench-'))
process.on('exit', () => {
  if (process.env.BENCH_KEEP_COPIES === '1') log(`copies kept under ${scratch}`)
  else rmSync(scratch, {recursive: true, force: true})
})
const gitconfig = join(scratch, 'gitconfig')
writeFileSync(gitconfig, '[user]\n\tname = Bench\n\temail = bench@example.com\n[commit]\n\tgpgsign = false\n[gc]\n\tauto = 0\n[init]\n\tdefaultBranch = main\n')
const env = {}
for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && !k.startsWith('TASKS_') && k !== 'NODE_OPTIONS') env[k] = v
Object.assign(env, {GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: gitconfig, TASKS_ACTOR: ACTOR, NO_COLOR: '1'})
// The clock is pinned (TASKS_NOW) to a minute after the store's last commit: the seeded claims' leases
// run out an hour or two after seeding, and a store past that point would time the sweep of thousands
// of expired claims (one large commit, then none) instead of the command.
const tipTime = Number(mustRun('git', ['log', '-1', '--format=%ct', 'refs/tasks/main'], STORE).trim())
env.TASKS_NOW = process.env.BENCH_NOW || new Date((tipTime + 60) * 1000).toISOString()

function mustRun(cmd, args, cwd) {
  const r = spawnSync(cmd, args, {cwd, env, encoding: 'utf8', maxBuffer: 1 << 30})
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stderr}`)
  return r.stdout
}

/** One whole process under /usr/bin/time: wall ms (measured here) and CPU ms (user + sys, children included). */
function timed(cwd, argv) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync('/usr/bin/time', ['-f', 'cpu=%U+%S', ...argv], {cwd, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8'})
  const wall = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}:\n${r.stderr}`)
  const m = /cpu=([\d.]+)\+([\d.]+)\s*$/.exec(r.stderr)
  return {wall, cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN}
}

// One copy of the store per build: each build's mutations and its own cache file stay on its copy.
const copies = BUILDS.map((b) => {
  const dir = join(scratch, `store-${b.name}`)
  cpSync(STORE, dir, {recursive: true})
  return dir
})
log(`clock pinned at ${env.TASKS_NOW}`)
log(`copied ${STORE} for ${BUILDS.map((b) => b.name).join(', ')} under ${scratch}`)

// Targets, read once through the first build (the copies are identical): ready todo items nobody is
// assigned, for claim; live claims of the bench actor, for done; a card with dependencies, for show.
const q = (args) => JSON.parse(mustRun(process.execPath, [BUILDS[0].bin, ...args], copies[0]))
const need = RUNS + 2
const ready = q(['list', '--ready', '--status', 'todo', '--json', '--limit', '2000']).tasks.filter((t) => !t.assignee && t.depends_on.length === 0 && !t.parent)
// --another takes the first ready items in queue order: take the targets from further down.
const claimTargets = ready.slice(need * 2, need * 3).map((t) => t.id)
const doneTargets = ready.slice(need * 3, need * 4).map((t) => t.id)
// The done targets are claimed first (on every copy), so their claims are live.
for (const dir of copies) for (const id of doneTargets) mustRun(process.execPath, [BUILDS[0].bin, 'claim', id], dir)
const showTarget = q(['list', '--status', 'todo', '--json', '--limit', '400']).tasks.find((t) => t.depends_on.length > 0 && t.parent)?.id ?? ready[0].id
if (claimTargets.length < need || doneTargets.length < need) throw new Error(`store has too few targets: ${claimTargets.length} to claim, ${doneTargets.length} to finish`)

// Time travel (issue 34): BENCH_AT_BACK (default 16) commits behind the store's tip as copied (the tip itself
// when the history is shorter), further behind once timed mutations ran.
const atBack = Number(process.env.BENCH_AT_BACK || 16)
const atCommit = spawnSync('git', ['rev-parse', '--verify', '-q', `refs/tasks/main~${atBack}`], {cwd: copies[0], env, encoding: 'utf8'}).stdout.trim() || mustRun('git', ['rev-parse', 'refs/tasks/main'], copies[0]).trim()

const argsOf = {
  show: () => ['show', showTarget],
  claim: (i) => ['claim', claimTargets[i]],
  next: () => ['next', '--another'],
  add: (i) => ['add', `Hot bench item ${i}: measure start-up`],
  done: (i) => ['done', doneTargets[i]],
  // Reads beyond the five mutations (BENCH_COMMANDS=…,list,list-all,search,log,version).
  list: () => ['list', '--json', '--limit', '50'],
  // The default listing (open items, no --limit: one page of at most list_limit rows, streamed).
  'list-json': () => ['list', '--json'],
  'list-all': () => ['list', '--all', '--json'],
  search: () => ['search', 'measure', '--json'],
  log: () => ['log', '--json', '-n', '20'],
  version: () => ['--version'],
  'show-at': () => ['show', showTarget, '--at', atCommit],
  'list-at': () => ['list', '--json', '--at', atCommit],
}

const loadBefore = load()
const rows = []
for (const key of COMMANDS) {
  // Every series starts from a current cache (a read persists it), as in run.mjs.
  for (let b = 0; b < BUILDS.length; b++) mustRun(process.execPath, [BUILDS[b].bin, 'list', '--json', '--limit', '1'], copies[b])
  const base = []
  const per = BUILDS.map(() => ({wall: [], cpu: []}))
  for (let i = 0; i <= RUNS; i++) {
    for (let b = 0; b < BUILDS.length; b++) {
      const n = timed(copies[b], [process.execPath, '-e', '0'])
      const t = timed(copies[b], [process.execPath, BUILDS[b].bin, ...argsOf[key](i)])
      if (i === 0) continue // warm-up
      base.push(n)
      per[b].wall.push(t.wall)
      per[b].cpu.push(t.cpu)
    }
  }
  const bw = median(base.map((x) => x.wall))
  const bc = median(base.map((x) => x.cpu))
  const row = {command: key.endsWith('-at') ? `${argsOf[key](0)[0]} --at` : argsOf[key](0)[0], node_wall_ms: round(bw), node_cpu_ms: round(bc), builds: {}}
  for (let b = 0; b < BUILDS.length; b++) {
    const w = median(per[b].wall)
    const c = median(per[b].cpu)
    row.builds[BUILDS[b].name] = {wall_ms: round(w), cpu_ms: round(c), wall_ratio: round(w / bw, 2), cpu_ratio: round(c / bc, 2)}
  }
  rows.push(row)
  log(`${key}: ${BUILDS.map((b) => `${b.name} ${row.builds[b.name].wall_ratio}x wall / ${row.builds[b.name].cpu_ratio}x cpu`).join(', ')} (node -e 0: ${row.node_wall_ms} ms, ${row.node_cpu_ms} ms cpu; load ${load()})`)
}
const loadAfter = load()

const lines = [`hot commands on ${STORE}, ${RUNS} runs, medians; load before ${loadBefore}, after ${loadAfter}`]
lines.push(`| command | node -e 0 wall / cpu | ${BUILDS.map((b) => `${b.name}: wall ratio / cpu ratio (cpu ms)`).join(' | ')} |`)
lines.push(`| --- | --- | ${BUILDS.map(() => '---').join(' | ')} |`)
for (const r of rows) {
  lines.push(`| ${r.command} | ${r.node_wall_ms} / ${r.node_cpu_ms} ms | ${BUILDS.map((b) => `${r.builds[b.name].wall_ratio}× / ${r.builds[b.name].cpu_ratio}× (${r.builds[b.name].cpu_ms})`).join(' | ')} |`)
}
console.log(lines.join('\n'))
mkdirSync(join(root, '.bench'), {recursive: true})
writeFileSync(join(root, '.bench', 'hot.json'), `${JSON.stringify({store: STORE, runs: RUNS, load_before: loadBefore, load_after: loadAfter, rows}, null, 2)}\n`)
