/**
 * `tasks graph` as people and scripts run it: the format from the flag or the
 * file name, scoping by ids, the drawing on stdout, a file that cannot be
 * written, an unknown id; and the heavy libraries staying out of the bundles
 * every other command loads.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {ROOT, jsonError, makeRepo, run, runJson, tempDir} from '../helpers/cli'

let repo: string
const ids: Record<string, string> = {}

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'])
  const add = async (k: string, args: string[]) => (ids[k] = (await runJson(repo, ['add', ...args], {env: {TASKS_ACTOR: 'a'}})).task.id)
  await add('a', ['First'])
  await add('b', ['Second', '-d', ids.a!])
  await add('c', ['Third', '-d', ids.b!])
  await add('other', ['Unrelated'])
})

describe('tasks graph', () => {
  it('draws to stdout in the asked format; svg by default', async () => {
    const svg = await run(repo, ['graph'])
    expect(svg.code).toBe(0)
    expect(svg.stdout).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    const mermaid = await run(repo, ['graph', '--format', 'mermaid'])
    expect(mermaid.stdout).toMatch(/^flowchart TD\n/)
    const dot = await run(repo, ['graph', '-f', 'dot'])
    expect(dot.stdout).toMatch(/^digraph tasks \{/)
  })

  it('--out picks the format from the file name and says what it wrote', async () => {
    const dir = tempDir('graph-')
    const r = await run(repo, ['graph', '--out', join(dir, 'g.mmd')])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/wrote .*g\.mmd \(mermaid\): 4 items, 2 edges, critical path 3, 2 ready/)
    expect(readFileSync(join(dir, 'g.mmd'), 'utf8')).toMatch(/^flowchart TD/)
  })

  it('with ids: only what they reach; the JSON model names the critical path', async () => {
    const g = await runJson(repo, ['graph', ids.c!.slice(0, 8)])
    expect(g.nodes.map((n: {id: string}) => n.id).sort()).toEqual([ids.a, ids.b, ids.c].sort())
    expect(g.critical_path).toEqual([ids.a, ids.b, ids.c])
    expect(g.frontier).toEqual([ids.a])
    expect(g.out).toBeNull()
  })

  it('an unknown id is exit 3; an unwritable file exit 1 write_failed; a bad format a usage error', async () => {
    const missing = await run(repo, ['graph', 'tsk-zzzzzz', '--json'])
    expect(missing.code).toBe(3)
    const unwritable = await run(repo, ['graph', '--out', join(tempDir('graph-'), 'no', 'such', 'dir.svg'), '--json'])
    expect(unwritable.code).toBe(1)
    expect(jsonError(unwritable).code).toBe('write_failed')
    const bad = await run(repo, ['graph', '--format', 'png'])
    expect(bad.code).toBe(2)
  })

  it('d3-dag and markdown-it are only in the bundles that need them', () => {
    for (const f of ['tasks.js', 'engine.js']) {
      const text = readFileSync(join(ROOT, 'dist', f), 'utf8')
      expect(text, f).not.toContain('sugiyama')
      expect(text, f).not.toMatch(/linkify/i)
    }
    expect(readFileSync(join(ROOT, 'dist', 'graph-svg.js'), 'utf8')).toContain('sugiyama')
    expect(readFileSync(join(ROOT, 'dist', 'board.js'), 'utf8')).toMatch(/linkify/i)
  })
})
