/**
 * `tasks graph` to a PNG (issue 33, item 10): `--out g.png` (or
 * `--format png`) is the SVG rendered by @resvg/resvg-js at the SVG's own
 * size, decoded back here from the PNG's IHDR chunk; an `--out` name that
 * says no format is a usage error; the renderer missing is a clear
 * `png_unavailable` (simulated by a preload that makes the package
 * unresolvable, as on a machine where the optional install failed); and the
 * native package stays out of the bundles.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, cleanupAll, jsonError, makeRepo, run, runJson, tempDir} from '../helpers/cli'

let repo: string
let dir: string
const A = {env: {TASKS_ACTOR: 'a'}}

beforeAll(async () => {
  repo = makeRepo()
  dir = tempDir('png-')
  await runJson(repo, ['init'], A)
  const a = (await runJson(repo, ['add', 'First'], A)).task.id
  const b = (await runJson(repo, ['add', 'Second', '-d', a], A)).task.id
  await runJson(repo, ['add', 'Third', '-d', b], A)
  await runJson(repo, ['add', 'Unrelated'], A)
})
afterAll(() => cleanupAll())

/** Width and height from a PNG's header: the signature, then the IHDR chunk (length, type, width, height). */
function pngSize(bytes: Buffer): {width: number; height: number} {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR')
  return {width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20)}
}

function svgSize(text: string): {width: number; height: number} {
  const m = /^<svg [^>]*width="(\d+)" height="(\d+)"/.exec(text)
  expect(m).not.toBeNull()
  return {width: Number(m![1]), height: Number(m![2])}
}

describe('tasks graph --out FILE.png', {timeout: 60_000}, () => {
  it('renders the SVG to a PNG of the same size (from the name, or --format png)', async () => {
    const svg = await run(repo, ['graph', '--out', join(dir, 'g.svg')], A)
    expect(svg.code).toBe(0)
    const want = svgSize(readFileSync(join(dir, 'g.svg'), 'utf8'))
    expect(want.width).toBeGreaterThan(100)
    const r = await runJson(repo, ['graph', '--out', join(dir, 'g.png')], A)
    expect(r).toMatchObject({format: 'png', out: join(dir, 'g.png')})
    expect(pngSize(readFileSync(join(dir, 'g.png')))).toEqual(want)
    const text = await run(repo, ['graph', '--format', 'png', '--out', join(dir, 'named.image')], A)
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/wrote .*named\.image \(png\): 4 items, 2 edges/)
    expect(pngSize(readFileSync(join(dir, 'named.image')))).toEqual(want)
  })

  it('an --out name that says no format, or png without --out, is a usage error and writes nothing', async () => {
    for (const name of ['g.txt', 'graph', 'g.jpeg']) {
      const r = await run(repo, ['graph', '--out', join(dir, name), '--json'], A)
      expect(r.code).toBe(2)
      expect(jsonError(r).code).toBe('usage')
      expect(jsonError(r).message).toContain('--format')
      expect(existsSync(join(dir, name))).toBe(false)
    }
    const bare = await run(repo, ['graph', '--format', 'png', '--json'], A)
    expect(bare.code).toBe(2)
    expect(jsonError(bare).message).toContain('--out')
    // An explicit --format still names the format of any file.
    expect((await run(repo, ['graph', '--format', 'dot', '--out', join(dir, 'g.txt')], A)).code).toBe(0)
    expect(readFileSync(join(dir, 'g.txt'), 'utf8')).toMatch(/^digraph tasks/)
  })

  it('without @resvg/resvg-js: png_unavailable (exit 1), nothing written; SVG still works', async () => {
    const hide = join(dir, 'hide-resvg.cjs')
    writeFileSync(
      hide,
      `const M = require('module'); const r = M._resolveFilename; M._resolveFilename = function (req, ...rest) { if (req === '@resvg/resvg-js') { const e = new Error("Cannot find module '@resvg/resvg-js'"); e.code = 'MODULE_NOT_FOUND'; throw e } return r.call(this, req, ...rest) }\n`,
    )
    const env = {...A.env, NODE_OPTIONS: `--require ${hide}`}
    const r = await run(repo, ['graph', '--out', join(dir, 'missing.png'), '--json'], {env})
    expect(r.code).toBe(1)
    expect(jsonError(r).code).toBe('png_unavailable')
    expect(jsonError(r).message).toContain('npm install @resvg/resvg-js')
    expect(existsSync(join(dir, 'missing.png'))).toBe(false)
    expect((await run(repo, ['graph', '--out', join(dir, 'still.svg')], {env})).code).toBe(0)
  })

  it('the native renderer is outside every bundle (required from node_modules, only for a PNG)', () => {
    for (const f of ['tasks.js', 'engine.js', 'graph-svg.js', 'board.js']) {
      const text = readFileSync(join(ROOT, 'dist', f), 'utf8')
      expect(text, f).not.toContain('resvgjs')
      expect(text, f).not.toContain('.node"')
    }
    expect(readFileSync(join(ROOT, 'dist', 'engine.js'), 'utf8')).toContain('require("@resvg/resvg-js")')
  })
})
