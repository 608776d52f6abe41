// Pictures of the board and the graph for the docs: `npm run screenshots`, or after `npm run build`
// `node scripts/screenshots.mjs [FILTER…]`. Each entry of SHOTS photographs one of two lists:
//  - `plan`: a realistic 26-card plan (scripts/graph-plan.mjs: several agents claiming, finishing
//    and blocking items), for the README's pictures and the graph's in docs/people.md;
//  - `people`: 16 cards across every column (agents claiming, finishing, blocking; a check
//    pending; a thread on one card), for the board's and the card page's pictures in docs/people.md.
// Each list a shot needs is built in a throwaway repository through the CLI, `tasks board` serves it,
// and Debian's Chromium (through playwright-core) photographs it. With FILTER words, only the shots
// whose file name contains one of them (`node scripts/screenshots.mjs graph`). Prints, per picture,
// the page's scrollWidth (at most the window's width: nothing overflows sideways).
// Not part of CI: the PNGs are committed; run this again after the board's look changes.
//
// A shot: {list: 'plan' | 'people', path: the board address ('/graph', '/task/$cas': `$name` is the
// id of the list's card of that name), file: where under the repository, viewport: {width, height},
// phone?: true (a touch screen: isMobile, hasTouch), fullPage?: true, ready?: a CSS selector to wait
// for, before?: async (page) => {…} to act first}.
import {execFileSync, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {realisticPlan, writePlan} from './graph-plan.mjs'

const WIDE = {width: 1400, height: 900}
const PHONE = {width: 390, height: 844}
export const SHOTS = [
  {list: 'plan', path: '/', file: 'docs/board.png', viewport: {width: 1360, height: 760}},
  {list: 'plan', path: '/task/$spec', file: 'docs/card.png', viewport: {width: 1360, height: 760}, fullPage: true},
  // docs/graph.png: the README's picture of the graph (the same view at the board's usual size).
  {list: 'plan', path: '/graph', file: 'docs/graph.png', viewport: {width: 1360, height: 760}, ready: '[data-graph-canvas][data-fitted]'},
  {list: 'plan', path: '/graph', file: 'docs/img/graph-1400.png', viewport: WIDE, ready: '[data-graph-canvas][data-fitted]'},
  {list: 'plan', path: '/graph', file: 'docs/img/graph-390.png', viewport: PHONE, fullPage: true, ready: '.graph-layers'},
  {list: 'people', path: '/', file: 'docs/img/board-1400.png', viewport: WIDE, ready: '.kanban'},
  {list: 'people', path: '/task/$cas', file: 'docs/img/card-1400.png', viewport: WIDE, ready: '.task-layout'},
  {list: 'people', path: '/', file: 'docs/img/board-390.png', viewport: PHONE, phone: true, ready: '.kanban'},
  {list: 'people', path: '/task/$cas', file: 'docs/img/card-390.png', viewport: PHONE, phone: true, fullPage: true, ready: '.task-layout'},
]

/** How each list is written: `tasks(args, actor)` runs the CLI in the list's repository; the answer names the cards ($name). */
const LISTS = {
  async plan(tasks) {
    const ids = await writePlan(realisticPlan(), tasks)
    await tasks(['comment', ids.spec, 'Decided: the ref is the lock; no lock files.', '--kind', 'decision'], 'agent-1')
    return ids
  },
  async people(tasks) {
    const add = async (title, flags = [], actor = 'lead') => (await tasks(['add', title, ...flags], actor)).task.id
    const protocol = await add('Design the claim protocol', ['--tag', 'backend', '-p', '1', '--body', 'Claims are a **compare-and-swap** on `refs/tasks/main`.\n\n- one winner per item\n- leases expire and are renewed by heartbeats\n- epochs fence late writers\n\nThe ref is the lock: no lock files, nothing outside git.'])
    const cas = await add('Implement compare-and-swap claims', ['--tag', 'backend', '-p', '1', '-d', protocol, '--body', 'Take a card with one compare-and-swap of `refs/tasks/main`: read the tip, write the claim, update the ref only if it still points where it did.\n\n1. a lost race is retried with a fresh read\n2. the winner records its epoch\n3. a late writer with an older epoch is refused', '--test', 'npm test -- claims', '--acceptance', 'two agents never hold one card'])
    const lease = await add('Lease renewal (heartbeat)', ['--tag', 'backend', '-d', cas])
    const sync = await add('Sync through a shared remote', ['--tag', 'backend', '-d', protocol])
    await add('Merge driver for task files', ['--tag', 'backend', '-d', sync])
    const epic = await add('Web board', ['--tag', 'ui', '-p', '1'])
    const kanban = await add('Kanban columns', ['--tag', 'ui', '--parent', epic])
    const live = await add('Live updates over Server-Sent Events', ['--tag', 'ui', '--parent', epic, '-d', kanban])
    const dnd = await add('Drag cards between columns', ['--tag', 'ui', '--parent', epic])
    const docs = await add('Write the user guide', ['--tag', 'docs', '-p', '3'])
    await add('Release notes', ['--tag', 'docs', '-p', '3', '-d', docs])
    const bench = await add('Benchmark 10,000 tasks', ['--tag', 'perf', '-p', '2'])
    await add('Shell completion', ['--tag', 'cli', '-p', '3'])
    const flaky = await add('Fix flaky push test', ['--tag', 'ci', '-p', '0'])
    await add('Reserve items for an agent', ['--tag', 'backend', '--assignee', 'agent-3'])
    const mermaid = await add('Graph export to Mermaid', ['--tag', 'ui', '-p', '2'])
    await tasks(['claim', protocol], 'agent-1')
    await tasks(['comment', protocol, 'Decided: the ref is the lock; no lock files.', '--kind', 'decision'], 'agent-1')
    await tasks(['done', protocol], 'agent-1')
    await tasks(['comment', cas, 'Is a lost compare-and-swap retried, or reported?'], 'lead')
    await tasks(['claim', cas], 'agent-1')
    await tasks(['comment', cas, 'Retried with a fresh read, three times; then `cas_exhausted`.'], 'agent-1')
    await tasks(['checkpoint', cas, '--summary', 'claims land; the race test is next', '--next', 'run two agents against one card'], 'agent-1')
    await tasks(['claim', kanban], 'agent-2')
    await tasks(['done', kanban], 'agent-2')
    await tasks(['claim', live], 'agent-2')
    await tasks(['claim', dnd], 'lead')
    await tasks(['claim', flaky], 'agent-4')
    await tasks(['block', flaky, 'needs a second remote to reproduce'], 'agent-4')
    await tasks(['claim', mermaid], 'agent-3')
    await tasks(['done', mermaid], 'agent-3')
    await tasks(['claim', bench], 'agent-3')
    return {protocol, cas, lease, sync, epic, kanban, live, dnd, docs, bench, flaky, mermaid}
  },
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'bin', 'tasks')
const filters = process.argv.slice(2)
const shots = SHOTS.filter((s) => filters.length === 0 || filters.some((f) => s.file.includes(f)))
if (shots.length === 0) throw new Error(`no shot matches ${filters.join(', ')}: ${SHOTS.map((s) => s.file).join(', ')}`)

const {chromium} = createRequire(import.meta.url)('playwright-core')
const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-shots-'))
const gitconfig = join(tmp, 'gitconfig')
writeFileSync(gitconfig, '[user]\n\tname = Lead\n\temail = lead@example.com\n[commit]\n\tgpgsign = false\n[gc]\n\tauto = 0\n[init]\n\tdefaultBranch = main\n')
const env = {PATH: process.env.PATH, HOME: tmp, LANG: 'C.UTF-8', NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: gitconfig, TASKS_ACTOR: 'lead'}

/** A repository holding the list `name` (LISTS), and `tasks board` serving it. */
async function serve(name) {
  const repo = join(tmp, name)
  execFileSync('git', ['init', '-q', repo], {env})
  const tasks = async (args, actor = 'lead', input) =>
    JSON.parse(execFileSync(process.execPath, [BIN, ...args, '--json'], {cwd: repo, env: {...env, TASKS_ACTOR: actor}, input, encoding: 'utf8'}))
  await tasks(['init'])
  const ids = await LISTS[name](tasks)
  const board = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'board', '--port', '0', '--json'], {cwd: repo, env, stdio: ['ignore', 'pipe', 'inherit']})
    let out = ''
    child.on('exit', (code) => reject(new Error(`board exited ${code}`)))
    child.stdout.on('data', (b) => {
      out += b
      if (out.includes('\n')) resolve({child, ...JSON.parse(out.slice(0, out.indexOf('\n')))})
    })
  })
  return {ids, board}
}

const boards = []
let browser
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  })
  for (const name of Object.keys(LISTS).filter((n) => shots.some((s) => s.list === n))) {
    const {ids, board} = await serve(name)
    boards.push(board)
    for (const shot of shots.filter((s) => s.list === name)) {
      const context = await browser.newContext({viewport: shot.viewport, deviceScaleFactor: 1, isMobile: Boolean(shot.phone), hasTouch: Boolean(shot.phone)})
      const page = await context.newPage()
      // The token moves from the address into a cookie on the first visit (which shows the board); then the shot's page.
      await page.goto(board.url)
      const path = shot.path.replace(/\$([A-Za-z0-9_]+)/g, (_, card) => ids[card] ?? card)
      if (path !== '/') await page.goto(`http://127.0.0.1:${board.port}${path}`)
      if (shot.ready) await page.locator(shot.ready).first().waitFor()
      if (shot.before) await shot.before(page)
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth)
      mkdirSync(dirname(join(root, shot.file)), {recursive: true})
      await page.screenshot({path: join(root, shot.file), fullPage: Boolean(shot.fullPage)})
      await context.close()
      console.log(`wrote ${shot.file} (${shot.viewport.width}x${shot.viewport.height} of ${shot.path}, ${name} list; scrollWidth ${scrollWidth})`)
    }
  }
} finally {
  await browser?.close()
  for (const board of boards) {
    board.child.removeAllListeners('exit')
    board.child.kill('SIGTERM')
  }
  rmSync(tmp, {recursive: true, force: true})
}
