// Inbox benchmark (`node bench/inbox.mjs` after `npm run build`; see bench/README.md).
//
// Seeds a store of BENCH_SIZES tasks (bench/seed.ts), gives one actor 1,000
// inbox records, then measures, against a bare `node -e 0` in the same loop:
//   - `tasks inbox --json` (1,000 unseen) and `tasks inbox --all --json`;
//   - `tasks comment` on a card whose comment notifies nobody but the
//     actor's last_seen, and on a card with five people on it (five records);
//   - in-process, the transaction's inbox step alone (registry read + rule)
//     for those two comments, and `tasks inbox ack --all` (1,000 markers).
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const RUNS = Number(process.env.BENCH_RUNS || 7)
const SIZES = (process.env.BENCH_SIZES || '10000').split(',').map(Number)
const RECORDS = Number(process.env.BENCH_RECORDS || 1000)
const KEEP = process.env.BENCH_KEEP === '1'

const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-inbox-bench-'))
const env = {PATH: process.env.PATH, HOME: tmp, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x', NO_COLOR: '1'}
for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k]
Object.assign(process.env, env)

async function bundle(name) {
  const outfile = join(tmp, `${name}.cjs`)
  await build({entryPoints: [join(root, 'bench', `${name}.ts`)], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning'})
  return createRequire(import.meta.url)(outfile)
}

function git(cwd, args) {
  const r = spawnSync('git', args, {cwd, env, encoding: 'utf8'})
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

function tasks(cwd, args, actor) {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, env: {...env, TASKS_ACTOR: actor}, encoding: 'utf8', maxBuffer: 1 << 28})
  if (r.status !== 0) throw new Error(`tasks ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Median wall ms of `fn` and of a bare node started right before it. */
function timed(fn) {
  const ours = []
  const bare = []
  fn() // warm-up
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now()
    spawnSync(process.execPath, ['-e', '0'])
    bare.push(performance.now() - t)
    t = performance.now()
    fn(i)
    ours.push(performance.now() - t)
  }
  return {ms: median(ours), node: median(bare)}
}

const {seed} = await bundle('seed')
const {seedInbox, timeInboxStep} = await bundle('inbox-seed')
for (const size of SIZES) {
  const repo = join(tmp, `repo-${size}`)
  spawnSync('mkdir', ['-p', repo])
  git(repo, ['init', '-q'])
  git(repo, ['config', 'gc.auto', '0'])
  const seeded = await seed({cwd: repo, count: size, actor: 'bench-agent', reserve: 4})
  git(repo, ['gc', '-q'])
  const lonely = seeded.claimTargets[0]
  const busy = seeded.claimTargets[1]
  tasks(repo, ['claim', busy], 'olga')
  tasks(repo, ['assign', busy, 'ann'], 'olga')
  for (const c of ['cole', 'cato']) tasks(repo, ['collab', 'add', busy, c], 'olga')
  for (const s of ['sue', 'sam']) tasks(repo, ['watch', busy], s)
  await seedInbox(repo, 'reader', busy, RECORDS, '2026-11-29T08:00:00.000Z')
  tasks(repo, ['list', '--limit', '1', '--json'], 'reader') // index up to date
  const rows = []
  const row = (name, r, extra = '') => rows.push(`${name.padEnd(44)} ${r.ms.toFixed(0).padStart(6)} ms  (node ${r.node.toFixed(0)} ms, ${(r.ms / r.node).toFixed(2)}x)${extra}`)
  let out = ''
  row(`inbox --json (${RECORDS} unseen)`, timed(() => (out = tasks(repo, ['inbox', '--json'], 'reader'))), `  ${JSON.parse(out).records.length} records`)
  row(`inbox --all --json (${RECORDS})`, timed(() => tasks(repo, ['inbox', '--all', '--json'], 'reader')))
  row('comment, nobody else on the card', timed((i) => tasks(repo, ['comment', lonely, `c${i ?? 'w'}`], 'writer')))
  row('comment, 5 people on the card', timed((i) => tasks(repo, ['comment', busy, `c${i ?? 'w'}`], 'writer')))
  const quiet = await timeInboxStep(repo, lonely, 'writer', 21)
  const loud = await timeInboxStep(repo, busy, 'writer', 21)
  rows.push(`inbox step in-process, 0 records            ${quiet.medianMs.toFixed(2)} ms (load of the list: ${quiet.loadMs.toFixed(0)} ms)`)
  rows.push(`inbox step in-process, ${loud.records} records            ${loud.medianMs.toFixed(2)} ms`)
  let t = performance.now()
  tasks(repo, ['inbox', 'ack', '--all', '--json'], 'reader')
  rows.push(`inbox ack --all (${RECORDS} markers, one run)     ${(performance.now() - t).toFixed(0)} ms`)
  console.log(`\n${size} tasks, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
  for (const r of rows) console.log(`  ${r}`)
}
if (!KEEP) rmSync(tmp, {recursive: true, force: true})
else console.log(`kept ${tmp}`)
