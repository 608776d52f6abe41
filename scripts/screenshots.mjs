// The README's pictures of the board and the graph: `npm run build && node scripts/screenshots.mjs`.
// Builds a demo list in a throwaway repository through the CLI (several agents claiming,
// finishing and blocking items), starts `tasks board`, and photographs it with Debian's
// Chromium through playwright-core. Writes docs/board.png, docs/card.png, docs/graph.png.
// Not part of CI: the PNGs are committed; run this again after the board's look changes.
import {execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const {chromium} = createRequire(import.meta.url)('playwright-core')
const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-shots-'))
const gitconfig = join(tmp, 'gitconfig')
writeFileSync(gitconfig, '[user]\n\tname = Lead\n\temail = lead@example.com\n[commit]\n\tgpgsign = false\n[gc]\n\tauto = 0\n[init]\n\tdefaultBranch = main\n')
const env = {PATH: process.env.PATH, HOME: tmp, LANG: 'C.UTF-8', NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: gitconfig, TASKS_ACTOR: 'lead'}
const repo = join(tmp, 'demo')
execFileSync('git', ['init', '-q', repo], {env})

const tasks = (args, actor = 'lead') => JSON.parse(execFileSync(process.execPath, [BIN, ...args, '--json'], {cwd: repo, env: {...env, TASKS_ACTOR: actor}, encoding: 'utf8'}))
const add = (title, flags = [], actor = 'lead') => tasks(['add', title, ...flags], actor).task.id

tasks(['init'])
const schema = add('Design the claim protocol', ['--tag', 'backend', '-p', '1', '--body', 'Claims are a **compare-and-swap** on `refs/tasks/main`.\n\n- one winner per item\n- leases expire\n- epochs fence late writers'])
const cas = add('Implement compare-and-swap claims', ['--tag', 'backend', '-p', '1', '-d', schema])
const lease = add('Lease renewal (heartbeat)', ['--tag', 'backend', '-d', cas])
const sync = add('Sync through a shared remote', ['--tag', 'backend', '-d', cas])
const merge = add('Merge driver for task files', ['--tag', 'backend', '-d', sync])
const epic = add('Web board', ['--tag', 'ui', '-p', '1'])
const kanban = add('Kanban columns', ['--tag', 'ui', '--parent', epic])
const live = add('Live updates over SSE', ['--tag', 'ui', '--parent', epic, '-d', kanban])
add('Card page with Markdown', ['--tag', 'ui', '--parent', epic])
const docs = add('Write the user guide', ['--tag', 'docs', '-p', '3', '-d', merge])
add('Release notes', ['--tag', 'docs', '-p', '3', '-d', docs])
add('Benchmark 10,000 tasks', ['--tag', 'perf', '-p', '2'])
add('Shell completion', ['--tag', 'cli', '-p', '3'])
const flaky = add('Fix flaky push test', ['--tag', 'ci', '-p', '0'])
add('Reserve items for an agent', ['--tag', 'backend', '--assignee', 'agent-3'])
add('Graph export to Mermaid', ['--tag', 'ui', '-p', '2'])
tasks(['claim', schema], 'agent-1')
tasks(['comment', schema, 'Decided: the ref is the lock; no lock files.', '--kind', 'decision'], 'agent-1')
tasks(['done', schema], 'agent-1')
tasks(['claim', cas], 'agent-1')
tasks(['claim', kanban], 'agent-2')
tasks(['done', kanban], 'agent-2')
tasks(['claim', live], 'agent-2')
tasks(['claim', flaky], 'agent-4')
tasks(['block', flaky, 'needs a second remote to reproduce'], 'agent-4')
void lease

const board = await new Promise((resolve, reject) => {
  const child = spawn(process.execPath, [BIN, 'board', '--port', '0', '--json'], {cwd: repo, env, stdio: ['ignore', 'pipe', 'inherit']})
  let out = ''
  child.on('exit', (code) => reject(new Error(`board exited ${code}`)))
  child.stdout.on('data', (b) => {
    out += b
    if (out.includes('\n')) resolve({child, ...JSON.parse(out.slice(0, out.indexOf('\n')))})
  })
})
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--font-render-hinting=none'],
})
try {
  const page = await browser.newPage({viewport: {width: 1360, height: 760}, deviceScaleFactor: 1})
  await page.goto(board.url)
  await page.screenshot({path: join(root, 'docs', 'board.png')})
  await page.goto(`http://127.0.0.1:${board.port}/task/${schema}`)
  await page.screenshot({path: join(root, 'docs', 'card.png'), fullPage: true})
  await page.goto(`http://127.0.0.1:${board.port}/graph`)
  const size = await page.locator('.graph svg').evaluate((svg) => ({width: Number(svg.getAttribute('width')), height: Number(svg.getAttribute('height'))}))
  await page.setViewportSize({width: Math.max(800, size.width + 60), height: size.height + 200})
  await page.locator('.graph svg').screenshot({path: join(root, 'docs', 'graph.png')})
  console.log('wrote docs/board.png, docs/card.png, docs/graph.png')
} finally {
  await browser.close()
  board.child.removeAllListeners('exit')
  board.child.kill('SIGTERM')
  rmSync(tmp, {recursive: true, force: true})
}
