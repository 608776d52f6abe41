/// <reference lib="dom" />
/**
 * The graph in a real browser (Debian's Chromium through playwright-core),
 * for a realistic 26-card plan and then, in the same list, 300 cards: at
 * 1400×900 after the page fitted the drawing, no two nodes overlap, every
 * text of a node stays inside its box, and every node is inside the window;
 * at 390×844 the page does not overflow sideways (it shows the layers).
 * Zoom, pan and the critical-path button move the view; the standalone SVG
 * of `tasks graph --format svg` fits a 1400 px window. One board, one
 * browser, a page per check.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {generatedPlan, realisticPlan, writePlan} from '../../scripts/graph-plan.mjs'
import {BIN, TEST_ENV, makeRepo, run, runJson, tempDir} from '../helpers/cli'
import {type StartedBoard, boxOf, launchChromium, startBoard} from '../helpers/board'

let repo: string
let browser: Browser
let board: StartedBoard

const tasks = (args: string[], actor: string, input?: string) => runJson(repo, args, {env: {TASKS_ACTOR: actor}, ...(input === undefined ? {} : {input})})

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'])
  await writePlan(realisticPlan(), tasks)
  ;[browser, board] = await Promise.all([launchChromium(), startBoard(BIN, repo, {...TEST_ENV, TASKS_ACTOR: 'lead'})])
})

afterAll(async () => {
  await board?.stop()
  await browser?.close()
})

interface Measured {
  nodes: number
  overlaps: string[]
  outside: string[]
  spills: string[]
  viewport: {width: number; height: number}
}

/** Every node's box on screen: pairs that overlap, nodes outside the window, texts outside their node's box. */
function measure(page: Page): Promise<Measured> {
  return page.evaluate(() => {
    const boxes = Array.from(document.querySelectorAll('[data-graph-canvas] g.node')).map((n) => {
      const r = n.querySelector('rect.box')!.getBoundingClientRect()
      const texts = Array.from(n.querySelectorAll('text')).map((t) => t.getBoundingClientRect())
      return {id: (n as SVGGElement).dataset.id!, r, texts}
    })
    const overlaps: string[] = []
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!.r
        const b = boxes[j]!.r
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps.push(`${boxes[i]!.id} × ${boxes[j]!.id}`)
      }
    const outside = boxes.filter(({r}) => r.left < 0 || r.top < 0 || r.right > window.innerWidth || r.bottom > window.innerHeight).map((b) => b.id)
    const spills = boxes.filter(({r, texts}) => texts.some((t) => t.left < r.left - 0.5 || t.right > r.right + 0.5 || t.top < r.top - 0.5 || t.bottom > r.bottom + 0.5)).map((b) => b.id)
    return {nodes: boxes.length, overlaps, outside, spills, viewport: {width: window.innerWidth, height: window.innerHeight}}
  })
}

async function graphPage(width: number, height: number): Promise<Page> {
  const page = await browser.newPage({viewport: {width, height}})
  await page.goto(board.url)
  await page.goto(`${board.origin}/graph`)
  return page
}

async function fitted(width: number, height: number): Promise<Page> {
  const page = await graphPage(width, height)
  await page.locator('[data-graph-canvas][data-fitted="1"]').waitFor()
  return page
}

const viewBox = (page: Page) => page.locator('[data-graph-canvas] svg').evaluate((s) => s.getAttribute('viewBox')!.split(' ').map(Number))

async function noSidewaysOverflow(): Promise<{scroll: number; width: number; layers: boolean; drawing: boolean}> {
  const page = await graphPage(390, 844)
  await page.locator('.graph-layers li.gitem').first().waitFor()
  const r = await page.evaluate(() => ({
    scroll: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    width: window.innerWidth,
    layers: (document.querySelector('.graph-layers') as HTMLElement).offsetParent !== null,
    drawing: (document.querySelector('[data-graph-canvas]') as HTMLElement).offsetParent !== null,
  }))
  await page.close()
  return r
}

describe('the graph view in Chromium', () => {
  it('26 cards at 1400×900: fitted, no overlapping nodes, texts inside their boxes, every node in the window', async () => {
    const page = await fitted(1400, 900)
    const m = await measure(page)
    expect(m.nodes).toBe(23) // 26 cards, 3 done (open items only)
    expect(m.overlaps).toEqual([])
    expect(m.spills).toEqual([])
    expect(m.outside).toEqual([])
    // The critical path is marked and the ready frontier too, with the legend naming both.
    expect(await page.locator('[data-graph-canvas] g.node.critical').count()).toBeGreaterThanOrEqual(5)
    expect(await page.locator('[data-graph-canvas] g.node.frontier').count()).toBeGreaterThanOrEqual(1)
    expect(await page.locator('.glegend').textContent()).toMatch(/critical path \(\d+\).*ready now \(\d+\)/)
    await page.close()
  })

  it('zoom (key, button, wheel), pan (drag) and the critical-path button move the view; fit brings it back', async () => {
    const page = await fitted(1400, 900)
    const start = await viewBox(page)
    await page.locator('[data-graph-canvas]').focus()
    await page.keyboard.press('+')
    const zoomed = await viewBox(page)
    expect(zoomed[2]!).toBeLessThan(start[2]! * 0.8)
    await page.locator('button[data-graph="out"]').click()
    expect((await viewBox(page))[2]!).toBeGreaterThan(zoomed[2]!)
    const canvas = await boxOf(page.locator('[data-graph-canvas]'))
    await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2)
    await page.mouse.wheel(0, -400)
    await expect.poll(async () => (await viewBox(page))[2]!).toBeLessThan(start[2]!)
    const before = await viewBox(page)
    await page.mouse.move(canvas.x + 40, canvas.y + 40)
    await page.mouse.down()
    await page.mouse.move(canvas.x + 240, canvas.y + 140, {steps: 5})
    await page.mouse.up()
    const panned = await viewBox(page)
    expect(panned[0]!).toBeLessThan(before[0]!)
    expect(panned[2]!).toBeCloseTo(before[2]!, 3)
    expect(page.url()).toContain('/graph') // a drag is not a click: no card opened
    await page.locator('button[data-graph="critical"]').click()
    const crit = await page.evaluate(() => {
      const c = document.querySelector('[data-graph-canvas]')!.getBoundingClientRect()
      return Array.from(document.querySelectorAll('[data-graph-canvas] g.node.critical')).every((n) => {
        const r = n.getBoundingClientRect()
        return r.left >= c.left && r.right <= c.right && r.top >= c.top && r.bottom <= c.bottom
      })
    })
    expect(crit).toBe(true)
    await page.keyboard.press('0')
    expect(await viewBox(page)).toEqual(start)
    // A click on a node opens its card.
    const id = await page.locator('[data-graph-canvas] g.node').first().getAttribute('data-id')
    await page.locator('[data-graph-canvas] g.node').first().click()
    await page.waitForURL(`**/task/${id}`)
    await page.close()
  })

  it('26 cards at 390×844: the layers, no sideways overflow', async () => {
    const r = await noSidewaysOverflow()
    expect(r).toMatchObject({layers: true, drawing: false})
    expect(r.scroll).toBeLessThanOrEqual(r.width)
  })

  it('300 cards at 1400×900: fitted, no overlapping nodes, texts inside their boxes, every node in the window; 390 px: no overflow', async () => {
    await writePlan(generatedPlan(274), tasks)
    const page = await fitted(1400, 900)
    const m = await measure(page)
    expect(m.nodes).toBeGreaterThan(270) // 300 cards less the finished ones
    expect(m.overlaps).toEqual([])
    expect(m.spills).toEqual([])
    expect(m.outside).toEqual([])
    await page.close()
    const r = await noSidewaysOverflow()
    expect(r.scroll).toBeLessThanOrEqual(r.width)
  })

  it('tasks graph --format svg: a standalone SVG with a viewBox that shrinks to a 1400 px window', async () => {
    const out = await run(repo, ['graph', '--format', 'svg'])
    expect(out.code).toBe(0)
    const head = /^<svg [^>]*>/.exec(out.stdout)![0]
    const [, w, h] = /width="(\d+)" height="(\d+)"/.exec(head)!
    expect(head).toContain(`viewBox="0 0 ${w} ${h}"`)
    const file = join(tempDir('graph-svg-'), 'g.svg')
    writeFileSync(file, out.stdout)
    const page = await browser.newPage({viewport: {width: 1400, height: 900}})
    await page.goto(`file://${file}`)
    const shown = await page.evaluate(() => ({svg: document.documentElement.getBoundingClientRect().width, scroll: document.documentElement.scrollWidth}))
    expect(Number(w)).toBeGreaterThan(1400) // 300 cards: wider than the window on its own …
    expect(shown.svg).toBeLessThanOrEqual(1400) // … shown at the window's width
    await page.close()
  })
})
