// The board and the graph at size: `npm run build && nice -n 5 node bench/board.mjs`.
// Seeds lists of BOARD_SIZES tasks (default 1000,10000) with bench/seed.ts, then measures
//   - `tasks graph` (SVG, Mermaid, DOT) over the open items: median wall time of 3 runs;
//   - the board's first paint in Chromium (first-contentful-paint after navigation),
//     cold (the first page after start: the server builds its view of the list) and warm.
// Prints one table and the load average; nothing here runs in CI.
import {execFileSync, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const SIZES = (process.env.BOARD_SIZES ?? '1000,2000,10000').split(',').map(Number)
const ACTOR = 'bench@example.com'
const require = createRequire(import.meta.url)
const {chromium} = require('playwright-core')

const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-board-bench-'))
const gitconfig = join(tmp, 'gitconfig')
writeFileSync(gitconfig, '[user]\n\tname = Bench\n\temail = bench@example.com\n[commit]\n\tgpgsign = false\n[gc]\n\tauto = 0\n')
const env = {...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: gitconfig, TASKS_ACTOR: ACTOR, NO_COLOR: '1'}
for (const k of Object.keys(env)) if (k.startsWith('GIT_DIR') || k === 'GIT_WORK_TREE') delete env[k]
Object.assign(process.env, env)

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
function timed(args, cwd) {
  const t = process.hrtime.bigint()
  const out = execFileSync(process.execPath, [BIN, ...args], {cwd, env, encoding: 'utf8', maxBuffer: 1 << 28})
  return {ms: Number(process.hrtime.bigint() - t) / 1e6, out}
}

function startBoard(cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'board', '--port', '0', '--json'], {cwd, env, stdio: ['ignore', 'pipe', 'inherit']})
    let out = ''
    child.on('exit', (code) => reject(new Error(`board exited ${code}`)))
    child.stdout.on('data', (b) => {
      out += b
      if (out.includes('\n')) resolve({child, ...JSON.parse(out.slice(0, out.indexOf('\n')))})
    })
  })
}

async function firstPaint(page, url) {
  await page.goto(url, {waitUntil: 'load'})
  return page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]
    const nav = performance.getEntriesByType('navigation')[0]
    return {fcp: fcp ? fcp.startTime : nav.domContentLoadedEventEnd - nav.startTime, response: nav.responseEnd - nav.startTime, bytes: nav.transferSize || nav.encodedBodySize}
  })
}

const outfile = join(tmp, 'seed.cjs')
await build({entryPoints: [join(root, 'bench', 'seed.ts')], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning'})
const {seed} = require(outfile)
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
})
const rows = []
const load0 = loadavg()[0]
try {
  for (const size of SIZES) {
    const repo = join(tmp, `tasks-${size}`)
    mkdirSync(repo)
    execFileSync('git', ['init', '-q'], {cwd: repo, env})
    await seed({cwd: repo, count: size, actor: ACTOR, reserve: 3})
    timed(['list', '--json', '--limit', '1'], repo) // bring the index cache up to date
    const g = JSON.parse(timed(['graph', '--json'], repo).out)
    for (const format of ['svg', 'mermaid', 'dot']) {
      const file = join(tmp, `g-${size}.${format}`)
      const ms = median([0, 1, 2].map(() => timed(['graph', '--format', format, '--out', file], repo).ms))
      rows.push([`${size} tasks`, `graph --format ${format} (${g.nodes.length} open items, ${g.edges.length} edges)`, `${ms.toFixed(0)} ms`])
    }
    {
      const file = join(tmp, `g-${size}-all.svg`)
      const ms = median([0, 1, 2].map(() => timed(['graph', '--all', '--out', file], repo).ms))
      const all = JSON.parse(timed(['graph', '--all', '--json'], repo).out)
      rows.push([`${size} tasks`, `graph --all --format svg (${all.nodes.length} items, ${all.edges.length} edges)`, `${ms.toFixed(0)} ms`])
    }
    const version = median([0, 1, 2].map(() => timed(['--version'], repo).ms))
    rows.push([`${size} tasks`, 'tasks --version (process floor, same moment)', `${version.toFixed(0)} ms`])
    const t0 = Date.now()
    const board = await startBoard(repo)
    rows.push([`${size} tasks`, 'tasks board: start until the address is printed (the list\'s view built)', `${Date.now() - t0} ms`])
    try {
      const context = await browser.newContext({viewport: {width: 1400, height: 900}})
      const page = await context.newPage()
      const cold = await firstPaint(page, board.url)
      const warm = median(await (async () => {
        const xs = []
        for (let i = 0; i < 3; i++) xs.push((await firstPaint(page, `http://127.0.0.1:${board.port}/`)).fcp)
        return xs
      })())
      const cards = await page.locator('article.card').count()
      rows.push([`${size} tasks`, `board first paint, first page after start (${cards} cards shown, ${Math.round(cold.bytes / 1024)} KiB)`, `${cold.fcp?.toFixed(0)} ms`])
      rows.push([`${size} tasks`, 'board first paint, warm (median of 3 reloads)', `${warm?.toFixed(0)} ms`])
      await context.close()
    } finally {
      board.child.removeAllListeners('exit')
      board.child.kill('SIGTERM')
    }
  }
} finally {
  await browser.close()
  rmSync(tmp, {recursive: true, force: true})
}
const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)))
for (const r of rows) console.log(`${r[0].padEnd(w[0])}  ${r[1].padEnd(w[1])}  ${r[2].padStart(w[2])}`)
console.log(`load average ${load0.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end; ${new Date().toISOString()}`)
