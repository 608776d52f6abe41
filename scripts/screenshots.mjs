// Pictures of the board and the graph for the docs: `npm run build && node scripts/screenshots.mjs [FILTER…]`.
// Builds a realistic 26-card plan (scripts/graph-plan.mjs: several agents claiming, finishing and
// blocking items) in a throwaway repository through the CLI, starts `tasks board`, and photographs
// each entry of SHOTS with Debian's Chromium through playwright-core. With FILTER words, only the
// shots whose file name contains one of them (`node scripts/screenshots.mjs graph`).
// Not part of CI: the PNGs are committed; run this again after the board's look changes.
//
// A shot: {path: the board address ('/graph', '/task/$cas': `$name` is the id of the plan's card
// of that name), file: where under the repository, viewport: {width, height}, fullPage?: true,
// ready?: a CSS selector to wait for, before?: async (page) => {…} to act first}.
import {execFileSync, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {realisticPlan, writePlan} from './graph-plan.mjs'

export const SHOTS = [
  {path: '/', file: 'docs/board.png', viewport: {width: 1360, height: 760}},
  {path: '/task/$spec', file: 'docs/card.png', viewport: {width: 1360, height: 760}, fullPage: true},
  // docs/graph.png: the README's picture of the graph (the same view at the board's usual size).
  {path: '/graph', file: 'docs/graph.png', viewport: {width: 1360, height: 760}, ready: '[data-graph-canvas][data-fitted]'},
  {path: '/graph', file: 'docs/img/graph-1400.png', viewport: {width: 1400, height: 900}, ready: '[data-graph-canvas][data-fitted]'},
  {path: '/graph', file: 'docs/img/graph-390.png', viewport: {width: 390, height: 844}, fullPage: true, ready: '.graph-layers'},
]

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
const repo = join(tmp, 'demo')
execFileSync('git', ['init', '-q', repo], {env})
const tasks = async (args, actor = 'lead', input) =>
  JSON.parse(execFileSync(process.execPath, [BIN, ...args, '--json'], {cwd: repo, env: {...env, TASKS_ACTOR: actor}, input, encoding: 'utf8'}))

let board
let browser
try {
  await tasks(['init'])
  const ids = await writePlan(realisticPlan(), tasks)
  await tasks(['comment', ids.spec, 'Decided: the ref is the lock; no lock files.', '--kind', 'decision'], 'agent-1')

  board = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'board', '--port', '0', '--json'], {cwd: repo, env, stdio: ['ignore', 'pipe', 'inherit']})
    let out = ''
    child.on('exit', (code) => reject(new Error(`board exited ${code}`)))
    child.stdout.on('data', (b) => {
      out += b
      if (out.includes('\n')) resolve({child, ...JSON.parse(out.slice(0, out.indexOf('\n')))})
    })
  })
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  })
  // The token moves from the address into a cookie on the first visit; later pages need only the path.
  const context = await browser.newContext({deviceScaleFactor: 1})
  const first = await context.newPage()
  await first.goto(board.url)
  await first.close()
  for (const shot of shots) {
    const page = await context.newPage()
    await page.setViewportSize(shot.viewport)
    const path = shot.path.replace(/\$([A-Za-z0-9_]+)/g, (_, name) => ids[name] ?? name)
    await page.goto(`http://127.0.0.1:${board.port}${path}`)
    if (shot.ready) await page.locator(shot.ready).first().waitFor()
    if (shot.before) await shot.before(page)
    mkdirSync(dirname(join(root, shot.file)), {recursive: true})
    await page.screenshot({path: join(root, shot.file), fullPage: Boolean(shot.fullPage)})
    await page.close()
    console.log(`wrote ${shot.file} (${shot.viewport.width}x${shot.viewport.height} of ${shot.path})`)
  }
} finally {
  await browser?.close()
  if (board) {
    board.child.removeAllListeners('exit')
    board.child.kill('SIGTERM')
  }
  rmSync(tmp, {recursive: true, force: true})
}
