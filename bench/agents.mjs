// Benchmark of the agent interfaces (issue 12): `npm run bench:agents`.
//
// 1. Import: a generated export document of BENCH_TASKS cards (default
//    10,000; bodies, tags, ~10% with comments) into an empty list with
//    `tasks import` (whole process), then the same file again (must change
//    nothing).
// 2. Search: whole `tasks search WORD --json` processes on that list (warm
//    index cache) against a bare `node -e 0` started right before each, in
//    the same loop. Target: median ratio <= 2.
// 3. MCP claim, local: one long-lived `tasks mcp` (SDK client over stdio)
//    claims a different item per call; each call is paired with the floor,
//    one `git update-ref <ref> <new> <old>` compare-and-swap process on the
//    same repository. Target: median ratio <= 2.
// 4. MCP claim, online: the same through a bare remote on this machine,
//    against the floor of one fetch of the list's ref plus one push (with a
//    lease) of a new commit to the same remote. Target: median ratio <= 1.2.
//    Also against a second floor whose pushed commit changes one card's file
//    (new trees, as a claim's), printed beside it.
// Prints medians and ratios with the load average, and saves them to
// .bench/agents.json.
import {execFileSync, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const N = Number(process.env.BENCH_TASKS || 10_000)
const RUNS = Number(process.env.BENCH_RUNS || 15)
// BENCH_ONLY=mcp: only the MCP claim figures (the list is still imported, once); BENCH_ROUNDS: that many
// rounds of RUNS pairs each for the MCP figures, each round's medians and load average printed.
const ONLY = process.env.BENCH_ONLY || ''
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 1))
const scratch = mkdtempSync(join(tmpdir(), 'git-tasks-agents-bench-'))
const gitconfig = join(scratch, 'gitconfig')
writeFileSync(gitconfig, '[user]\n\tname = Bench\n\temail = bench@example.com\n[gc]\n\tauto = 0\n[init]\n\tdefaultBranch = main\n')
const env = {PATH: process.env.PATH, HOME: scratch, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: gitconfig, LANG: 'C.UTF-8', NO_COLOR: '1', TASKS_ACTOR: 'bench-agent'}

const git = (cwd, args) => execFileSync('git', args, {cwd, env, encoding: 'utf8'}).trim()
const tasks = (cwd, args, extra = {}) => {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, env: {...env, ...extra}, encoding: 'utf8', maxBuffer: 1 << 30})
  if (r.status !== 0) throw new Error(`tasks ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}
const timed = (fn) => {
  const t = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - t) / 1e6
}
const timedAsync = async (fn) => {
  const t = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - t) / 1e6
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const fmt = (ms) => `${ms.toFixed(1)} ms`

// ---------------------------------------------------------------- the document
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
// A vocabulary of 4,000 made-up words used with a skewed (roughly Zipf) frequency, plus some real
// ones, so that a query matches a realistic number of cards (a few to a few hundred), not all of them.
const REAL = 'lease claim ref merge index shard commit fetch push remote agent review parser cache token fence epoch queue backlog flaky timeout budget retry tree blob object packfile reader writer schema'.split(' ')
const SYLLABLES = 'ka lo mi ne su ta ri po ve da gu fe zi ho ba ny qu xe wo ly'.split(' ')
const VOCAB = [...REAL]
for (let i = 0; VOCAB.length < 4000; i++) VOCAB.push(SYLLABLES[i % 20] + SYLLABLES[Math.floor(i / 20) % 20] + (i >= 400 ? SYLLABLES[Math.floor(i / 400) % 20] : ''))
function words(i, n) {
  const out = []
  for (let k = 0; k < n; k++) {
    const h = createHash('sha256').update(`${i}:${k}`).digest()
    const r = h.readUInt32BE(0) / 2 ** 32
    out.push(VOCAB[Math.floor(VOCAB.length * r * r * r)])
  }
  return out.join(' ')
}
function idOf(i) {
  const h = createHash('sha256').update(`bench-${i}`).digest()
  let s = 'tsk-'
  for (let k = 0; k < 10; k++) s += ALPHABET[h[k] % 32]
  return s
}
function documentOf(n) {
  const t0 = Date.parse('2026-11-01T00:00:00.000Z')
  const list = []
  const ids = new Set()
  for (let i = 0; i < n; i++) {
    const id = idOf(i)
    if (ids.has(id)) continue
    ids.add(id)
    const at = new Date(t0 + i * 1000).toISOString()
    const t = {id, title: `Task ${i}: ${words(i, 4)}`, status: i % 3 === 0 ? 'done' : 'todo', priority: i % 5, tags: [`area-${i % 7}`], depends_on: [], created_at: at, created_by: 'seed', updated_at: at, updated_by: 'seed', revision: 1, body: `${words(i + 1, 30)}\n\n${words(i + 2, 20)}\n`, comments: []}
    if (t.status === 'done') t.closed_at = at
    if (i % 10 === 0) t.comments.push({id: `${at.replace(/[-:]/g, '')}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`, kind: 'note', author: 'seed', created_at: at, body: `checked ${words(i + 3, 12)} and a rare-word-${i}`})
    list.push(t)
  }
  list.sort((a, b) => (a.id < b.id ? -1 : 1))
  return {format: 'git-tasks/export', version: 1, list: 'main', commit: '0'.repeat(40), exported_at: new Date().toISOString(), tasks: list}
}

const results = {tasks: N, runs: RUNS, load_before: loadavg()}

// ---------------------------------------------------------------- 1. import
const repo = join(scratch, 'local')
mkdirSync(repo)
git(repo, ['init', '-q'])
tasks(repo, ['init'])
const docFile = join(scratch, 'doc.json')
writeFileSync(docFile, JSON.stringify(documentOf(N)))
const importMs = timed(() => tasks(repo, ['import', docFile, '--json']))
const reimportMs = ONLY === 'mcp' ? null : timed(() => {
  const r = JSON.parse(tasks(repo, ['import', docFile, '--json']))
  if (r.commit !== null) throw new Error('the second import changed something')
})
results.import = {ms: importMs, again_ms: reimportMs}
console.log(`import ${N} cards: ${fmt(importMs)} (whole process)${reimportMs === null ? '' : `; again (nothing to change): ${fmt(reimportMs)}`}`)
git(repo, ['gc', '-q'])

// ---------------------------------------------------------------- 2. search
if (ONLY !== 'mcp') {
tasks(repo, ['list', '--json', '--limit', '1'])
const cold = timed(() => tasks(repo, ['search', 'lease', '--json']))
const queries = ['lease claim', 'rare-word-420', 'packfile', 'flaky timeout', 'Task 77', 'kalo', 'mine suta']
const searchRuns = []
const nodeRuns = []
for (let i = 0; i < RUNS; i++) {
  nodeRuns.push(timed(() => spawnSync(process.execPath, ['-e', '0'], {env})))
  searchRuns.push(timed(() => tasks(repo, ['search', queries[i % queries.length], '--json'])))
}
results.search = {cold_build_ms: cold, median_ms: median(searchRuns), node_ms: median(nodeRuns), ratio: median(searchRuns) / median(nodeRuns), target: 2}
console.log(`search at ${N} tasks: ${fmt(median(searchRuns))} vs bare node ${fmt(median(nodeRuns))} = ${results.search.ratio.toFixed(2)}x (target <= 2); first search (index built): ${fmt(cold)}`)
}

// ---------------------------------------------------------------- start-up against a base build
// BENCH_BASE=DIR (a built checkout of the commit before this work): `--version` and `show ID` of both,
// interleaved, so the lazily loaded libraries are seen not to move other commands' start-up.
if (process.env.BENCH_BASE && ONLY !== 'mcp') {
  const baseBin = join(process.env.BENCH_BASE, 'bin', 'tasks')
  const showId = JSON.parse(tasks(repo, ['list', '--json', '--limit', '1'])).tasks[0].id
  const pairs = {version: [['--version'], []], show: [['show', showId], []]}
  const out = {}
  for (const [name, [args]] of Object.entries(pairs)) {
    const ours = []
    const base = []
    for (const bin of [BIN, baseBin]) spawnSync(process.execPath, [bin, ...args], {cwd: repo, env}) // warm the V8 caches
    for (let i = 0; i < RUNS; i++) {
      base.push(timed(() => spawnSync(process.execPath, [baseBin, ...args], {cwd: repo, env})))
      ours.push(timed(() => spawnSync(process.execPath, [BIN, ...args], {cwd: repo, env})))
    }
    out[name] = {ours_ms: median(ours), base_ms: median(base), ratio: median(ours) / median(base)}
    console.log(`start-up, ${name}: ${fmt(median(ours))} here vs ${fmt(median(base))} on the base build = ${out[name].ratio.toFixed(2)}x`)
  }
  results.startup = out
}

// ---------------------------------------------------------------- 3/4. MCP claims
async function mcpClient(cwd) {
  // BENCH_PROF=DIR: the server runs with --cpu-prof, its profile written to DIR when it exits.
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROF] : []
  const transport = new StdioClientTransport({command: process.execPath, args: [...prof, BIN, 'mcp'], cwd, env, stderr: 'ignore'})
  const client = new Client({name: 'bench', version: '1'})
  await client.connect(transport)
  return client
}
function readyIds(cwd, n) {
  return JSON.parse(tasks(cwd, ['list', '--ready', '--json', '--limit', String(n)])).tasks.map((t) => t.id)
}

// The CAS floor: one update-ref process moving a scratch ref from its value to a new commit.
const tip = git(repo, ['rev-parse', 'refs/tasks/main'])
const tree = git(repo, ['rev-parse', `${tip}^{tree}`])
let floorOld = tip
git(repo, ['update-ref', 'refs/bench/cas', tip])
let k = 0
const casFloor = () => {
  const next = git(repo, ['commit-tree', tree, '-p', floorOld, '-m', `floor ${k++}`])
  // Only the update-ref process is timed below: the commit is made first.
  const ms = timed(() => execFileSync('git', ['update-ref', 'refs/bench/cas', next, floorOld], {cwd: repo, env}))
  floorOld = next
  return ms
}
{
  const ids = readyIds(repo, RUNS * ROUNDS + 2)
  const client = await mcpClient(repo)
  const claim = async (id) => {
    const r = await client.callTool({name: 'claim', arguments: {id}})
    if (r.isError) throw new Error(r.content[0].text)
  }
  await claim(ids[0])
  const rounds = []
  for (let round = 0, n = 1; round < ROUNDS; round++) {
    const mcp = []
    const base = []
    for (let i = 1; i <= RUNS; i++, n++) {
      base.push(casFloor())
      mcp.push(await timedAsync(() => claim(ids[n])))
    }
    const r = {mcp_ms: median(mcp), floor_ms: median(base), ratio: median(mcp) / median(base), target: 2, load: loadavg()[0]}
    rounds.push(r)
    console.log(`MCP claim, local: ${fmt(r.mcp_ms)} vs git update-ref CAS ${fmt(r.floor_ms)} = ${r.ratio.toFixed(2)}x (target <= 2), load ${r.load.toFixed(2)}`)
  }
  await client.close()
  results.mcp_local = {...rounds[0], rounds}
}

// Online: a bare remote holding the list, a clone in online mode.
const bare = join(scratch, 'remote.git')
git(scratch, ['init', '-q', '--bare', bare])
git(repo, ['remote', 'add', 'origin', bare])
tasks(repo, ['remote', 'set', 'origin'])
tasks(repo, ['sync'])
const clone = join(scratch, 'clone')
git(scratch, ['clone', '-q', bare, clone])
tasks(clone, ['init', '--remote', 'origin'])
{
  let remoteOld = git(clone, ['rev-parse', 'refs/tasks/main'])
  const ctree = git(clone, ['rev-parse', `${remoteOld}^{tree}`])
  git(clone, ['push', '-q', 'origin', `${remoteOld}:refs/bench/online`])
  let j = 0
  const onlineFloor = () => {
    const next = git(clone, ['commit-tree', ctree, '-p', remoteOld, '-m', `floor ${j++}`])
    const ms = timed(() => {
      execFileSync('git', ['fetch', '-q', 'origin', '+refs/bench/online:refs/bench-fetched/online'], {cwd: clone, env})
      execFileSync('git', ['push', '-q', `--force-with-lease=refs/bench/online:${remoteOld}`, 'origin', `${next}:refs/bench/online`], {cwd: clone, env})
    })
    remoteOld = next
    return ms
  }
  // A second floor: the same fetch, then the push of a commit that changes one card's task.md, as a claim's
  // commit does (a blob and the four trees above it are new). A commit with its parent's tree (the floor
  // above) spares the remote's connectivity check (receive-pack's `rev-list --objects`) the walk of a new
  // tree, which every real change pays: measured 38-65 ms of that check at 10,000 cards against 15 ms.
  // The commits are made beforehand (a scratch index), so only the fetch and the push are timed.
  let changeOld = remoteOld
  git(clone, ['push', '-q', 'origin', `${changeOld}:refs/bench/change`])
  const scratchIndex = join(scratch, 'floor-index')
  const withIndex = {...env, GIT_INDEX_FILE: scratchIndex}
  execFileSync('git', ['read-tree', ctree], {cwd: clone, env: withIndex})
  const cardFile = git(clone, ['ls-tree', '-r', '--name-only', ctree]).split('\n').find((p) => p.endsWith('/task.md'))
  const changeFloor = () => {
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {cwd: clone, env, input: `floor change ${j++}\n`, encoding: 'utf8'}).trim()
    execFileSync('git', ['update-index', '--cacheinfo', `100644,${blob},${cardFile}`], {cwd: clone, env: withIndex})
    const tree = execFileSync('git', ['write-tree'], {cwd: clone, env: withIndex, encoding: 'utf8'}).trim()
    const next = git(clone, ['commit-tree', tree, '-p', changeOld, '-m', `change floor ${j}`])
    const ms = timed(() => {
      execFileSync('git', ['fetch', '-q', 'origin', '+refs/bench/change:refs/bench-fetched/change'], {cwd: clone, env})
      execFileSync('git', ['push', '-q', `--force-with-lease=refs/bench/change:${changeOld}`, 'origin', `${next}:refs/bench/change`], {cwd: clone, env})
    })
    changeOld = next
    return ms
  }
  const r = await (async () => {
    const ids = readyIds(clone, RUNS * ROUNDS + 2)
    const client = await mcpClient(clone)
    const claim = async (id) => {
      const res = await client.callTool({name: 'claim', arguments: {id}})
      if (res.isError) throw new Error(res.content[0].text)
    }
    await claim(ids[0])
    const rounds = []
    for (let round = 0, n = 1; round < ROUNDS; round++) {
      const mcp = []
      const base = []
      const change = []
      for (let i = 1; i <= RUNS; i++, n++) {
        base.push(onlineFloor())
        change.push(changeFloor())
        mcp.push(await timedAsync(() => claim(ids[n])))
      }
      const one = {mcp_ms: median(mcp), floor_ms: median(base), ratio: median(mcp) / median(base), target: 1.2, change_floor_ms: median(change), change_ratio: median(mcp) / median(change), load: loadavg()[0]}
      rounds.push(one)
      console.log(`MCP claim, online: ${fmt(one.mcp_ms)} vs one fetch + one push ${fmt(one.floor_ms)} = ${one.ratio.toFixed(2)}x (target <= 1.2); vs fetch + push of a one-card change ${fmt(one.change_floor_ms)} = ${one.change_ratio.toFixed(2)}x; load ${one.load.toFixed(2)}`)
    }
    await client.close()
    return {...rounds[0], rounds}
  })()
  results.mcp_online = r
}

results.load_after = loadavg()
console.log(`load average before ${results.load_before.map((x) => x.toFixed(2)).join(' ')}, after ${results.load_after.map((x) => x.toFixed(2)).join(' ')}`)
mkdirSync(join(root, '.bench'), {recursive: true})
writeFileSync(join(root, '.bench', 'agents.json'), `${JSON.stringify(results, null, 2)}\n`)
if (process.env.BENCH_KEEP !== '1') rmSync(scratch, {recursive: true, force: true})
else console.log(`kept ${scratch}`)
