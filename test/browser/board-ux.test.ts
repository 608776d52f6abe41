/// <reference lib="dom" />
/**
 * The board as people use it, in a real browser (Debian's Chromium through
 * playwright-core): an empty list and a filter that matches nothing say what
 * to do next; a card dragged from Ready to In progress is claimed (one
 * commit on refs/tasks/main by the board's actor); a refused drag (done with
 * a pending check) puts the card back, explains in the board's words (no
 * CLI flags) and writes nothing; a drag to Blocked asks why; keyboard
 * shortcuts move the focus and claim, and never fire while typing; the card
 * page reads description, thread, composer with the properties beside them;
 * on a touch screen a long press and a drag claims too (no drag events there);
 * at 390 px nothing overflows sideways. One board and one browser.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, TEST_ENV, gitSync, makeRepo, runJson} from '../helpers/cli'
import {type StartedBoard, boxOf, launchChromium, startBoard} from '../helpers/board'

const LEAD = {env: {TASKS_ACTOR: 'lead'}}
const OTHER = {env: {TASKS_ACTOR: 'agent-2'}}

let repo: string
let browser: Browser
let board: StartedBoard
const ids: Record<string, string> = {}

const tip = () => gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
const commits = () => Number(gitSync(repo, ['rev-list', '--count', 'refs/tasks/main']).trim())
const column = (page: Page, key: string) => page.locator(`section.column[data-column="${key}"]`)
const cardIn = (page: Page, key: string, id: string) => page.locator(`section.column[data-column="${key}"] article.card[data-id="${id}"]`)
const show = async (id: string) => (await runJson(repo, ['show', id])).task as {status: string; owner: string | null; block_note?: string}

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'])
  ;[browser, board] = await Promise.all([launchChromium(), startBoard(BIN, repo, {...TEST_ENV, TASKS_ACTOR: 'lead'})])
})

afterAll(async () => {
  await board?.stop()
  await browser?.close()
})

describe('the board people use (Chromium)', () => {
  it('an empty list says "No tasks yet — add one", focuses the add form, and each column has a quiet hint', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    const empty = page.locator('[data-empty="list"]')
    expect(await empty.locator('h2').textContent()).toBe('No tasks yet — add one')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('add-title')
    expect(await page.locator('section.column .empty-hint').count()).toBe(5)
    expect(await column(page, 'in_progress').locator('.empty-hint').textContent()).toContain('drag a ready card here to claim it')
    // The link focuses the form again after focus went elsewhere.
    await page.locator('#filter-q').focus()
    await empty.locator('a[data-focus="add-title"]').click()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('add-title')
    await page.close()

    // Seed the list the rest of the file works on.
    const add = async (key: string, args: string[], who = OTHER) => (ids[key] = (await runJson(repo, ['add', ...args], who)).task.id)
    await add('dragMe', ['Drag me to In progress', '--tag', 'ui'])
    await add('keyed', ['Claim me with the keyboard', '--tag', 'ui'])
    await add('gated', ['Finish me too early', '--test', 'npm test passes'])
    await add('toBlock', ['Block me by dragging'])
    await add('held', ['Held by agent-2'])
    await add('touched', ['Carry me on a touch screen'])
    await add('described', ['A card with a story', '--body', '## What\n\nThe **description** comes first.'])
    await runJson(repo, ['claim', ids.gated!], LEAD)
    await runJson(repo, ['claim', ids.toBlock!], LEAD)
    await runJson(repo, ['claim', ids.held!], OTHER)
    await runJson(repo, ['comment', ids.described!, 'A first word in the thread'], OTHER)
  })

  it('a filter that matches nothing says so, with a link that clears it; per column the hint is quiet', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    await page.locator('#filter-q').fill('no-such-words')
    await page.locator('#filter-q').press('Enter')
    const empty = page.locator('[data-empty="filter"]')
    await empty.waitFor()
    expect(await empty.textContent()).toMatch(/Nothing matches[\s\S]*Clear the filter/)
    expect(await column(page, 'ready').locator('.empty-hint').textContent()).toBe('None match the filter')
    await empty.locator('a[data-clear-filter]').click()
    await cardIn(page, 'ready', ids.dragMe!).waitFor()
    expect(new URL(page.url()).search).toBe('')
    expect(await page.locator('[data-empty]').count()).toBe(0)
    // A column with no card shows a hint, not a bare count.
    expect(await column(page, 'blocked').locator('.empty-hint').isVisible()).toBe(true)
    expect(await column(page, 'ready').locator('.empty-hint').isVisible()).toBe(false)
    await page.close()
  })

  it('dragging a card from Ready to In progress claims it: one commit by the board’s actor', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    const before = commits()
    await cardIn(page, 'ready', ids.dragMe!).dragTo(column(page, 'in_progress'))
    await cardIn(page, 'in_progress', ids.dragMe!).locator('.owner', {hasText: 'lead'}).waitFor({timeout: 10_000})
    expect(commits()).toBe(before + 1)
    expect(gitSync(repo, ['log', '-1', '--format=%an%n%B', 'refs/tasks/main'])).toMatch(/^lead\n[\s\S]*Tasks-Op: claim/)
    expect(await show(ids.dragMe!)).toMatchObject({status: 'in_progress', owner: 'lead'})
    await page.close()
  })

  it('a refused drag (done with a pending check) snaps back, explains in the board’s words, and writes nothing', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    const before = tip()
    await cardIn(page, 'in_progress', ids.gated!).dragTo(column(page, 'done'))
    const flash = page.locator('#flash')
    await flash.waitFor({state: 'visible'})
    const said = (await flash.textContent()) ?? ''
    expect(said).toContain('Pass its checks first (open the card)')
    expect(said).not.toMatch(/--|`|tasks check/)
    expect(await flash.getAttribute('data-code')).toBe('checks_pending')
    expect(await flash.locator('a').getAttribute('href')).toBe(`/task/${ids.gated}`)
    await cardIn(page, 'in_progress', ids.gated!).waitFor()
    expect(await cardIn(page, 'done', ids.gated!).count()).toBe(0)
    expect(tip()).toBe(before)
    expect((await show(ids.gated!)).status).toBe('in_progress')

    // A card someone else holds: named, and still no CLI advice.
    await cardIn(page, 'in_progress', ids.held!).dragTo(column(page, 'ready'))
    await flash.locator('text=agent-2 holds this card').waitFor()
    expect(await flash.textContent()).not.toMatch(/--force|--reason/)
    await cardIn(page, 'in_progress', ids.held!).waitFor()
    expect(tip()).toBe(before)
    await page.close()
  })

  it('dragging to Blocked asks why, and blocks with that note', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    page.once('dialog', (d) => void d.accept('waiting for the review'))
    await cardIn(page, 'in_progress', ids.toBlock!).dragTo(column(page, 'blocked'))
    await cardIn(page, 'blocked', ids.toBlock!).waitFor({timeout: 10_000})
    expect(await show(ids.toBlock!)).toMatchObject({status: 'blocked', block_note: 'waiting for the review'})
    await page.close()
  })

  it('keyboard: ? lists the shortcuts, j moves to a card, c claims it; letters typed in a field do nothing', async () => {
    const page = await browser.newPage()
    await page.goto(board.url)
    await page.keyboard.press('?')
    await page.locator('#shortcuts').waitFor({state: 'visible'})
    expect(await page.locator('#shortcuts').textContent()).toMatch(/claim the card[\s\S]*mark the card done/)
    await page.keyboard.press('Escape')
    await page.locator('#shortcuts').waitFor({state: 'hidden'})

    // Typing in the filter: no shortcut fires.
    const before = commits()
    await page.keyboard.press('/')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('filter-q')
    await page.keyboard.type('cdbj')
    expect(await page.locator('#filter-q').inputValue()).toBe('cdbj')
    await page.keyboard.press('Escape')
    expect(commits()).toBe(before)

    // j from nowhere focuses the first card; move down the Ready column to the one to claim.
    await page.keyboard.press('j')
    for (let i = 0; i < 10; i++) {
      if ((await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id)) === ids.keyed) break
      await page.keyboard.press('j')
    }
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id)).toBe(ids.keyed)
    await page.keyboard.press('c')
    await cardIn(page, 'in_progress', ids.keyed!).waitFor({timeout: 10_000})
    expect(await show(ids.keyed!)).toMatchObject({status: 'in_progress', owner: 'lead'})
    expect(commits()).toBe(before + 1)
    // The focus stays on the moved card: Enter opens it.
    await page.keyboard.press('Enter')
    await page.waitForURL(`**/task/${ids.keyed}`)
    await page.close()
  })

  it('the card page: description, then the thread, then the composer, with the properties in a side column (one column on a phone)', async () => {
    const page = await browser.newPage({viewport: {width: 1400, height: 900}})
    await page.goto(board.url)
    await page.goto(`${board.origin}/task/${ids.described}`)
    const box = (sel: string) => boxOf(page.locator(sel))
    const [description, thread, composer, side] = [await box('.description'), await box('.thread'), await box('form[data-form="comment"]'), await box('aside.side')]
    expect(description.y).toBeLessThan(thread.y)
    expect(thread.y).toBeLessThan(composer.y)
    expect(await page.locator('.thread').textContent()).toContain('A first word in the thread')
    // Beside the main column, from the top, not below it.
    expect(side.x).toBeGreaterThan(description.x + description.width)
    expect(side.y).toBeLessThan(thread.y)
    const labels = await page.locator('aside.side dt').allTextContents()
    for (const name of ['state', 'owner', 'lease', 'priority', 'tags']) expect(labels).toContain(name)
    expect(await page.locator('aside.side h2').allTextContents()).toEqual(['Checks', 'Depends on', 'Dependents', 'Sub-items'])

    await page.setViewportSize({width: 390, height: 844})
    // Stacked: the actions under the title, then description, thread, composer, then the properties, all one width.
    const [actions, desc, form, props] = [await box('aside .actions'), await box('.description'), await box('form[data-form="comment"]'), await box('aside .props')]
    expect(actions.y).toBeLessThan(desc.y)
    expect(form.y).toBeLessThan(props.y)
    expect(Math.abs(desc.x - props.x)).toBeLessThan(2)
    expect(Math.abs(desc.width - props.width)).toBeLessThan(2)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await page.close()
  })

  it('touch: a long press picks a card up, the finger carries it to In progress, lifting it claims', async () => {
    const context = await browser.newContext({viewport: {width: 390, height: 844}, isMobile: true, hasTouch: true})
    const page = await context.newPage()
    await page.goto(board.url)
    const card = await boxOf(cardIn(page, 'ready', ids.touched!))
    const cdp = await context.newCDPSession(page)
    const at = (x: number, y: number) => [{x, y, id: 1}]
    const [x, y] = [card.x + card.width / 2, card.y + 12]
    await cdp.send('Input.dispatchTouchEvent', {type: 'touchStart', touchPoints: at(x, y)})
    await page.waitForTimeout(700) // the long press
    await page.locator('article.card.dragging').waitFor({timeout: 5000})
    // In progress is off to the right on a phone: the kanban is scrolled to it while the card is held (a second finger would).
    const target = () => boxOf(column(page, 'in_progress'))
    await page.locator('.kanban').evaluate((k) => (k.scrollLeft = (k.querySelector('[data-column="in_progress"]') as HTMLElement).offsetLeft - 40))
    const t = await target()
    await cdp.send('Input.dispatchTouchEvent', {type: 'touchMove', touchPoints: at(t.x + 30, t.y + 30)})
    await cdp.send('Input.dispatchTouchEvent', {type: 'touchMove', touchPoints: at(t.x + 40, t.y + 40)})
    await cdp.send('Input.dispatchTouchEvent', {type: 'touchEnd', touchPoints: []})
    await cardIn(page, 'in_progress', ids.touched!).waitFor({timeout: 10_000})
    expect(await show(ids.touched!)).toMatchObject({status: 'in_progress', owner: 'lead'})
    await context.close()
  })

  it('at 390×844 the page never scrolls sideways; the columns scroll inside the kanban, with snapping', async () => {
    const page = await browser.newPage({viewport: {width: 390, height: 844}, isMobile: true, hasTouch: true})
    await page.goto(board.url)
    await cardIn(page, 'ready', ids.described!).waitFor()
    const m = await page.evaluate(() => {
      const k = document.querySelector('.kanban') as HTMLElement
      return {page: document.documentElement.scrollWidth, kanban: k.scrollWidth, shown: k.clientWidth, snap: getComputedStyle(k).scrollSnapType}
    })
    expect(m.page).toBeLessThanOrEqual(390)
    expect(m.kanban).toBeGreaterThan(m.shown)
    expect(m.snap).toMatch(/^x/)
    await page.close()
  })
})
