/// <reference lib="dom" />
/**
 * The board in a real browser (Debian's Chromium driven by playwright-core):
 * every column renders; claiming from the page moves the card and writes one
 * commit by the board's actor; a claim by another process shows up on the
 * open page without a reload; a conflicting claim is shown to the person; a
 * change without the token is refused and writes nothing; a description
 * holding script does not run; selected cards are finished in one commit,
 * and a refused bulk action is shown and writes nothing. One browser and one board for the file.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, TEST_ENV, gitSync, makeBareRepo, makeRepo, runJson} from '../helpers/cli'
import {type StartedBoard, launchChromium, startBoard} from '../helpers/board'

const BOARD = {TASKS_ACTOR: 'lead'}
const OTHER = {env: {TASKS_ACTOR: 'agent-2'}}

let repo: string
let browser: Browser
let board: StartedBoard
const ids: Record<string, string> = {}

const commits = () => Number(gitSync(repo, ['rev-list', '--count', 'refs/tasks/main']).trim())
const column = (page: Page, key: string, id: string) => page.locator(`section.column[data-column="${key}"] article.card[data-id="${id}"]`)

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'])
  const add = async (key: string, args: string[]) => (ids[key] = (await runJson(repo, ['add', ...args], OTHER)).task.id)
  await add('base', ['Lay the foundations', '--tag', 'core', '-p', '1'])
  await add('waits', ['Build on them', '-d', ids.base!])
  await add('toClaim', ['Claim me from the page'])
  await add('otherClaims', ['Someone else takes this'])
  await add('conflict', ['Two people want this'])
  await add('blocked', ['Stuck item'])
  await add('finished', ['Already finished'])
  await add('hostile', ['Card with a hostile description', '--body', '# Title\n\n<script>window.__pwned = 1</script>\n\n<img src="x" onerror="window.__pwned = 2">\n\n[click](javascript:window.__pwned=3)\n\n**bold** text'])
  await runJson(repo, ['claim', ids.blocked!], OTHER)
  await runJson(repo, ['block', ids.blocked!, 'waiting for a key'], OTHER)
  await runJson(repo, ['claim', ids.finished!], OTHER)
  await runJson(repo, ['done', ids.finished!], OTHER)
  await runJson(repo, ['claim', ids.base!], OTHER)
  ;[browser, board] = await Promise.all([launchChromium(), startBoard(BIN, repo, {...TEST_ENV, ...BOARD})])
})

afterAll(async () => {
  await board?.stop()
  await browser?.close()
})

describe('tasks board in Chromium', () => {
  it('renders every column with the cards in place, and the graph view as valid SVG', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    const keys = await page.locator('section.column').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.column))
    expect(keys).toEqual(['ready', 'waiting', 'in_progress', 'blocked', 'done'])
    await expect(column(page, 'ready', ids.toClaim!).count()).resolves.toBe(1)
    await expect(column(page, 'waiting', ids.waits!).count()).resolves.toBe(1)
    await expect(column(page, 'in_progress', ids.base!).count()).resolves.toBe(1)
    await expect(column(page, 'blocked', ids.blocked!).count()).resolves.toBe(1)
    await expect(column(page, 'done', ids.finished!).count()).resolves.toBe(1)
    // The token moved from the address into a cookie; the page may act.
    expect(page.url()).not.toContain('token=')
    expect(await page.locator('meta[name="board-token"]').getAttribute('content')).toBe(board.token)

    await page.goto(`${board.origin}/graph`)
    const svg = await page.evaluate(async () => {
      const text = await (await fetch('/graph.svg')).text()
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml')
      return {error: doc.querySelector('parsererror')?.textContent ?? null, nodes: doc.querySelectorAll('g.node').length}
    })
    expect(svg).toEqual({error: null, nodes: 7})
    await page.close()
  })

  it('claiming from the page moves the card and writes one commit by the board’s actor', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    const before = commits()
    await column(page, 'ready', ids.toClaim!).locator('button[data-action="claim"]').click()
    await column(page, 'in_progress', ids.toClaim!).waitFor()
    expect(await column(page, 'in_progress', ids.toClaim!).locator('.owner').textContent()).toContain('lead')
    expect(commits()).toBe(before + 1)
    expect(gitSync(repo, ['log', '-1', '--format=%an%n%B', 'refs/tasks/main'])).toMatch(/^lead\n[\s\S]*Tasks-Op: claim/)
    await page.close()
  })

  it('a claim by another process appears on the open page without a reload', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    await column(page, 'ready', ids.otherClaims!).waitFor()
    await page.evaluate(() => ((window as unknown as {__same: number}).__same = 42))
    await runJson(repo, ['claim', ids.otherClaims!], OTHER)
    await column(page, 'in_progress', ids.otherClaims!).waitFor({timeout: 10_000})
    expect(await page.evaluate(() => (window as unknown as {__same?: number}).__same)).toBe(42) // same document: no reload
    await page.close()
  })

  it('a live update never throws away text typed into a form; it waits until the form is sent or cleared', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    const title = page.locator('form[data-form="add"] input[name="title"]')
    await title.fill('half-typed idea')
    await page.locator('h2').first().click() // focus leaves the form; the text stays unsent
    const extra = (await runJson(repo, ['add', 'Added elsewhere'], OTHER)).task.id
    await page.locator('#live', {hasText: 'changes waiting'}).waitFor({timeout: 10_000})
    expect(await title.inputValue()).toBe('half-typed idea')
    expect(await column(page, 'ready', extra).count()).toBe(0)
    await title.fill('')
    await column(page, 'ready', extra).waitFor({timeout: 10_000})
    await page.close()
  })

  it('the add form writes the card with its acceptance and test checks, as a list with require_checks wants', async () => {
    await runJson(repo, ['config', 'set', 'require_checks', 'true'])
    try {
      const page = await browser.newPage()
      await page.goto(board.url)
      const form = page.locator('form[data-form="add"]')
      await form.locator('input[name="title"]').fill('Gated from the page')
      await form.locator('input[name="acceptance"]').fill('the page shows it')
      await form.locator('input[name="test"]').fill('npm test -- board')
      await form.locator('button[type="submit"]').click()
      await page.locator('.card', {hasText: 'Gated from the page'}).waitFor({timeout: 10_000})
      const made = (await runJson(repo, ['list', '--json'])).tasks.find((t: {title: string}) => t.title === 'Gated from the page')
      const checks = (await runJson(repo, ['check', 'list', made.id, '--json'])).checks as Array<{kind: string; text: string}>
      expect(checks.map((c) => [c.kind, c.text]).sort()).toEqual([['acceptance', 'the page shows it'], ['test', 'npm test -- board']])
      await page.close()
    } finally {
      await runJson(repo, ['config', 'unset', 'require_checks'])
    }
  })

  it('a conflicting claim is shown to the person, and nothing is written', async () => {
    const page = await browser.newPage()
    // This page does not follow the list, so it still offers the claim after another process won it.
    await page.route('**/events', (route) => route.abort())
    await page.goto(board.url)
    await column(page, 'ready', ids.conflict!).waitFor()
    await runJson(repo, ['claim', ids.conflict!], OTHER)
    const before = commits()
    await column(page, 'ready', ids.conflict!).locator('button[data-action="claim"]').click()
    const flash = page.locator('#flash')
    await flash.waitFor({state: 'visible'})
    // In the board's words (the CLI's message names flags the page has no place for); the code stays on the element.
    expect(await flash.textContent()).toBe('agent-2 holds this card')
    expect(await flash.getAttribute('data-code')).toBe('already_claimed')
    expect(commits()).toBe(before)
    await page.close()
  })

  it('a change without the token is refused (from a page that lacks it, or with a wrong one)', async () => {
    const page = await browser.newPage() // a fresh context would lack the cookie; the header is what counts
    await page.goto(`${board.origin}/`)
    const before = commits()
    const statuses = await page.evaluate(async (id) => {
      const post = (headers: Record<string, string>) => fetch('/api/claim', {method: 'POST', headers: {'Content-Type': 'application/json', ...headers}, body: JSON.stringify({id})}).then((r) => r.status)
      return [await post({}), await post({'X-Board-Token': 'wrong-token-wrong-token-wrong'})]
    }, ids.waits!)
    expect(statuses).toEqual([403, 403])
    expect(commits()).toBe(before)
    await page.close()
  })

  it('a description with script or raw HTML is shown as text and runs nothing', async () => {
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(board.url)
    await page.goto(`${board.origin}/task/${ids.hostile}`)
    const description = page.locator('.description')
    await description.waitFor()
    expect(await description.locator('h1').textContent()).toBe('Title')
    expect(await description.locator('strong').textContent()).toBe('bold')
    expect(await description.textContent()).toContain('<script>window.__pwned = 1</script>')
    expect(await description.locator('script, img').count()).toBe(0)
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0)
    await page.waitForTimeout(200)
    expect(await page.evaluate(() => (window as unknown as {__pwned?: number}).__pwned)).toBeUndefined()
    expect(errors).toEqual([])
    await page.close()
  })

  it('multi-select: a bulk done of three cards is one commit and moves them all', async () => {
    const three = [] as string[]
    for (const t of ['Bulk one', 'Bulk two', 'Bulk three']) three.push((await runJson(repo, ['add', t], OTHER)).task.id)
    const page = await browser.newPage()
    await page.goto(board.url)
    for (const id of three) await column(page, 'ready', id).locator('input.select').check()
    const bar = page.locator('[data-bulkbar]')
    expect(await bar.locator('.bulk-count').textContent()).toBe('3 selected')
    const before = commits()
    await bar.locator('button[data-bulk="done"]').click()
    for (const id of three) await column(page, 'done', id).waitFor()
    expect(commits()).toBe(before + 1)
    expect(gitSync(repo, ['log', '-1', '--format=%an%n%B', 'refs/tasks/main'])).toMatch(/^lead\n[\s\S]*Tasks-Op: batch/)
    expect(await bar.isHidden()).toBe(true) // the selection was cleared
    await page.close()
  })

  it('multi-select: a refused bulk claim shows the message, marks the card, and writes nothing', async () => {
    const [a, b] = [(await runJson(repo, ['add', 'Bulk free'], OTHER)).task.id, (await runJson(repo, ['add', 'Bulk taken'], OTHER)).task.id]
    const page = await browser.newPage()
    await page.route('**/events', (route) => route.abort()) // the page keeps offering b after another process claims it
    await page.goto(board.url)
    for (const id of [a, b]) await column(page, 'ready', id).locator('input.select').check()
    await runJson(repo, ['claim', b], OTHER)
    const before = commits()
    await page.locator('[data-bulkbar] button[data-bulk="claim"]').click()
    const flash = page.locator('#flash')
    await flash.waitFor({state: 'visible'})
    expect(await flash.textContent()).toMatch(/^[a-z0-9-]+: agent-2 holds this card — nothing was written$/)
    expect(await flash.textContent()).toContain(`${await column(page, 'ready', b).getAttribute('data-short')}:`)
    expect(await flash.getAttribute('data-code')).toBe('already_claimed')
    expect(await column(page, 'ready', b).getAttribute('class')).toContain('refused')
    expect(await page.locator('[data-bulkbar] .bulk-count').textContent()).toBe('2 selected')
    expect(commits()).toBe(before)
    await page.close()
  })

  it('with --sync-every, a claim published from another clone appears without a reload', async () => {
    const bare = makeBareRepo()
    const here = makeRepo()
    const there = makeRepo()
    for (const r of [here, there]) gitSync(r, ['remote', 'add', 'origin', bare])
    await runJson(here, ['init', '--remote', 'origin'])
    const item = (await runJson(here, ['add', 'Published from elsewhere'], OTHER)).task.id
    await runJson(there, ['init'])
    const remoteBoard = await startBoard(BIN, here, {...TEST_ENV, ...BOARD}, ['--sync-every', '1s'])
    const page = await browser.newPage()
    try {
      await page.goto(remoteBoard.url)
      await column(page, 'ready', item).waitFor()
      await runJson(there, ['claim', item], {env: {TASKS_ACTOR: 'agent-9'}}) // online: pushed to the remote, not here
      await column(page, 'in_progress', item).waitFor({timeout: 20_000})
      expect(await column(page, 'in_progress', item).locator('.owner').textContent()).toContain('agent-9')
    } finally {
      await page.close()
      await remoteBoard.stop()
    }
  })
})
