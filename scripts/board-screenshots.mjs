// Pictures of the board for docs/people.md: `npm run build && node scripts/board-screenshots.mjs`.
// Builds a list of 16 cards across every column in a throwaway repository through the CLI (agents
// claiming, finishing, blocking; a check pending; a thread on one card), starts `tasks board`, and
// photographs the kanban and one card page at 1400×900 and 390×844 with Debian's Chromium through
// playwright-core. Writes docs/img/board-1400.png, board-390.png, card-1400.png, card-390.png and
// prints, per picture, the page's scrollWidth (at most the window's width: nothing overflows sideways).
import {execFileSync, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const OUT = join(root, 'docs', 'img')
const {chromium} = createRequire(import.meta.url)('playwright-core')
const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-board-shots-'))
const gitconfig = join(tmp, 'gitconfig')
writeFileSync(gitconfig, '[user]\n\tname = Lead\n\temail = lead@example.com\n[commit]\n\tgpgsign = false\n[gc]\n\tauto = 0\n[init]\n\tdefaultBranch = main\n')
const env = {PATH: process.env.PATH, HOME: tmp, LANG: 'C.UTF-8', NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: gitconfig, TASKS_ACTOR: 'lead'}
const repo = join(tmp, 'demo')
execFileSync('git', ['init', '-q', repo], {env})

const tasks = (args, actor = 'lead') => JSON.parse(execFileSync(process.execPath, [BIN, ...args, '--json'], {cwd: repo, env: {...env, TASKS_ACTOR: actor}, encoding: 'utf8'}))
const add = (title, flags = [], actor = 'lead') => tasks(['add', title, ...flags], actor).task.id

tasks(['init'])
const protocol = add('Design the claim protocol', ['--tag', 'backend', '-p', '1', '--body', 'Claims are a **compare-and-swap** on `refs/tasks/main`.\n\n- one winner per item\n- leases expire and are renewed by heartbeats\n- epochs fence late writers\n\nThe ref is the lock: no lock files, nothing outside git.'])
const cas = add('Implement compare-and-swap claims', ['--tag', 'backend', '-p', '1', '-d', protocol, '--body', 'Take a card with one compare-and-swap of `refs/tasks/main`: read the tip, write the claim, update the ref only if it still points where it did.\n\n1. a lost race is retried with a fresh read\n2. the winner records its epoch\n3. a late writer with an older epoch is refused', '--test', 'npm test -- claims', '--acceptance', 'two agents never hold one card'])
const lease = add('Lease renewal (heartbeat)', ['--tag', 'backend', '-d', cas])
const sync = add('Sync through a shared remote', ['--tag', 'backend', '-d', protocol])
add('Merge driver for task files', ['--tag', 'backend', '-d', sync])
const epic = add('Web board', ['--tag', 'ui', '-p', '1'])
const kanban = add('Kanban columns', ['--tag', 'ui', '--parent', epic])
const live = add('Live updates over Server-Sent Events', ['--tag', 'ui', '--parent', epic, '-d', kanban])
const dnd = add('Drag cards between columns', ['--tag', 'ui', '--parent', epic])
const docs = add('Write the user guide', ['--tag', 'docs', '-p', '3'])
add('Release notes', ['--tag', 'docs', '-p', '3', '-d', docs])
const bench = add('Benchmark 10,000 tasks', ['--tag', 'perf', '-p', '2'])
add('Shell completion', ['--tag', 'cli', '-p', '3'])
const flaky = add('Fix flaky push test', ['--tag', 'ci', '-p', '0'])
add('Reserve items for an agent', ['--tag', 'backend', '--assignee', 'agent-3'])
const mermaid = add('Graph export to Mermaid', ['--tag', 'ui', '-p', '2'])
tasks(['claim', protocol], 'agent-1')
tasks(['comment', protocol, 'Decided: the ref is the lock; no lock files.', '--kind', 'decision'], 'agent-1')
tasks(['done', protocol], 'agent-1')
tasks(['comment', cas, 'Is a lost compare-and-swap retried, or reported?'], 'lead')
tasks(['claim', cas], 'agent-1')
tasks(['comment', cas, 'Retried with a fresh read, three times; then `cas_exhausted`.'], 'agent-1')
tasks(['checkpoint', cas, '--summary', 'claims land; the race test is next', '--next', 'run two agents against one card'], 'agent-1')
tasks(['claim', kanban], 'agent-2')
tasks(['done', kanban], 'agent-2')
tasks(['claim', live], 'agent-2')
tasks(['claim', dnd], 'lead')
tasks(['claim', flaky], 'agent-4')
tasks(['block', flaky, 'needs a second remote to reproduce'], 'agent-4')
tasks(['claim', mermaid], 'agent-3')
tasks(['done', mermaid], 'agent-3')
tasks(['claim', bench], 'agent-3')
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
mkdirSync(OUT, {recursive: true})
try {
  const origin = `http://127.0.0.1:${board.port}`
  for (const [width, height] of [[1400, 900], [390, 844]]) {
    const phone = width < 600
    const page = await browser.newPage({viewport: {width, height}, deviceScaleFactor: 1, isMobile: phone, hasTouch: phone})
    await page.goto(board.url)
    await page.locator('.kanban').waitFor()
    const boardWidth = await page.evaluate(() => document.documentElement.scrollWidth)
    await page.screenshot({path: join(OUT, `board-${width}.png`)})
    await page.goto(`${origin}/task/${cas}`)
    await page.locator('.task-layout').waitFor()
    const cardWidth = await page.evaluate(() => document.documentElement.scrollWidth)
    await page.screenshot({path: join(OUT, `card-${width}.png`), fullPage: phone})
    console.log(`${width}x${height}: board scrollWidth ${boardWidth}, card scrollWidth ${cardWidth}`)
    await page.close()
  }
  console.log('wrote docs/img/board-1400.png, board-390.png, card-1400.png, card-390.png')
} finally {
  await browser.close()
  board.child.removeAllListeners('exit')
  board.child.kill('SIGTERM')
  rmSync(tmp, {recursive: true, force: true})
}
