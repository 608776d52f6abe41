/**
 * The dependency check (scripts/check-deps.mjs): no import cycle among the
 * sources of src/ (run-time imports; type-only imports are ignored), and no
 * import that runs up the layers of docs/architecture.md. The known cases
 * are in the script's ALLOWED list, each with why; an entry that no longer
 * occurs fails too, so the list only shrinks. A small tree of its own shows
 * that the check finds what it is for.
 */
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
// @ts-expect-error: a plain ES module script, without type declarations
import {checkDependencies} from '../../scripts/check-deps.mjs'

type Problem = {kind: 'layer' | 'cycle' | 'stale'; message: string}
const check = checkDependencies as (o?: {root?: string; allowed?: {cycles: string[][]; imports: string[]}}) => {files: number; edges: number; problems: Problem[]}

describe('dependencies of src/', () => {
  it('have no cycle and no import up the layers', () => {
    const {files, edges, problems} = check()
    expect(files).toBeGreaterThan(100)
    expect(edges).toBeGreaterThan(500)
    expect(problems.map((p) => `${p.kind}: ${p.message}`)).toEqual([])
  })

  const root = mkdtempSync(join(tmpdir(), 'git-tasks-deps-'))
  afterAll(() => rmSync(root, {recursive: true, force: true}))
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), {recursive: true})
    writeFileSync(join(root, path), text)
  }

  it('reports every cycle and every import up the layers, with file and import; type-only imports are ignored', () => {
    write('src/core/a.ts', "import {b} from './b'\nimport type {Session} from '../app/session'\nexport const a = 1\n")
    write('src/core/b.ts', "import {a} from './a'\nexport const b = a\n")
    write('src/core/c.ts', "import {open} from '../refstore/open'\nexport const c = open\n")
    write('src/refstore/open.ts', "export const open = 1\n")
    write('src/app/session.ts', "import {type X} from '../commands/x'\nexport class Session {}\n")
    write('src/commands/x.ts', "import {open} from '../refstore/open'\nexport type X = number\nexport const x = () => require('./y')\n")
    write('src/commands/y.ts', "export {x} from './x'\n")
    const {problems} = check({root, allowed: {cycles: [['src/app/gone.ts', 'src/app/left.ts']], imports: []}})
    const text = problems.map((p) => `${p.kind}: ${p.message}`)
    expect(text).toEqual([
      "layer: src/commands/x.ts:1: imports '../refstore/open' (src/refstore/open.ts): commands may not import refstore (it may import commands, operations, core, generated)",
      "layer: src/core/c.ts:1: imports '../refstore/open' (src/refstore/open.ts): core may not import refstore (it may import core, generated, schemas)",
      'cycle: import cycle among 2 files: src/commands/x.ts -> src/commands/y.ts, src/commands/y.ts -> src/commands/x.ts',
      'cycle: import cycle among 2 files: src/core/a.ts -> src/core/b.ts, src/core/b.ts -> src/core/a.ts',
      'stale: the allowed cycle src/app/gone.ts src/app/left.ts no longer occurs: remove it from ALLOWED in scripts/check-deps.mjs',
    ])
  })
})
