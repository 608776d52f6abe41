/**
 * The package as a user gets it (issue 35, "A lean package"): `npm pack` of
 * the built checkout, what the tarball holds, `npm install -g` of it into a
 * temporary prefix, and the installed `tasks` run from other directories:
 * --version, init and add in a fresh repository, and `mcp list-tools` (the MCP
 * SDK and zod come from dist/mcp.js, not from node_modules).
 *
 * The install asks the npm registry for the few dependencies (cli-progress and
 * the optional @resvg/resvg-js), from npm's cache when they are there
 * (--prefer-offline): ~5 s here. TASKS_NO_PACKAGE_TEST=1 skips it (a machine
 * without the registry).
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT, TEST_ENV, gitSync, makeRepo} from '../helpers/cli'

/** npm's own environment (its cache in the user's home), without what a parent `npm test` set. */
const npmEnv: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)))
const npm = (args: string[], cwd: string): string => execFileSync('npm', args, {cwd, env: npmEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000})

function duBytes(dir: string): number {
  let total = 0
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    const p = join(dir, e.name)
    if (e.isDirectory()) total += duBytes(p)
    else if (e.isFile()) total += statSync(p).size
  }
  return total
}

const work = mkdtempSync(join(tmpdir(), 'git-tasks-pack-'))
afterAll(() => rmSync(work, {recursive: true, force: true}))

interface PackResult {
  filename: string
  size: number
  unpackedSize: number
  files: {path: string; size: number}[]
}

describe.skipIf(process.env.TASKS_NO_PACKAGE_TEST === '1')('the npm package', () => {
  let pack: PackResult
  let prefix: string

  it('packs the bundles, bin, man, schemas, docs and LICENSE; no source maps, no compile caches', () => {
    // --ignore-scripts: the checkout is built already (npm test builds first); no rebuild under other tests.
    pack = (JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as PackResult[])[0]!
    const paths = pack.files.map((f) => f.path)
    for (const p of ['LICENSE', 'README.md', 'package.json', 'bin/tasks', 'bin/git-tasks', 'bin/run.js', 'bin/compile-cache.js', 'dist/tasks.js', 'dist/engine.js', 'dist/mcp.js', 'dist/board.js', 'dist/graph-svg.js', 'oclif.manifest.json', 'man/man1/tasks.1', 'docs/compact.md', 'docs/cli.md', 'docs/model.md', 'schemas/task.schema.json']) {
      expect(paths, p).toContain(p)
    }
    expect(paths.filter((p) => p.endsWith('.map') || p.endsWith('.v8cache') || p.endsWith('.tmp'))).toEqual([])
    expect(paths.filter((p) => /^(src|test|bench|scripts|node_modules)\//.test(p))).toEqual([])
    expect(pack.unpackedSize).toBeLessThan(4 * 1024 * 1024)
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(manifest.private).toBeUndefined()
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toContain('MIT License')
    // What the bundles inline is not installed again: only what they require at run time.
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['cli-progress'])
    expect(Object.keys(manifest.optionalDependencies)).toEqual(['@resvg/resvg-js'])
  })

  it('installs with npm install -g into a prefix and runs from any directory', () => {
    prefix = join(work, 'prefix')
    npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error', join(work, pack.filename)], work)
    const pkgDir = join(prefix, 'lib', 'node_modules', 'git-tasks')
    expect(existsSync(join(pkgDir, 'node_modules', '@modelcontextprotocol'))).toBe(false)
    expect(existsSync(join(pkgDir, 'node_modules', '@oclif'))).toBe(false)
    expect(duBytes(prefix)).toBeLessThan(30 * 1024 * 1024)

    const tasks = join(prefix, 'bin', 'tasks')
    const run = (args: string[], cwd: string) => execFileSync(tasks, args, {cwd, env: TEST_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
    expect(run(['--version'], work)).toMatch(/^git-tasks\/\d+\.\d+\.\d+ /)

    const repo = makeRepo()
    gitSync(repo, ['commit', '-q', '--allow-empty', '-m', 'start'])
    run(['init'], repo)
    const added = JSON.parse(run(['add', 'Ship the package', '--json'], repo))
    expect(added.task?.title ?? added.title).toBe('Ship the package')
    const listed = JSON.parse(run(['list', '--json'], repo))
    expect(JSON.stringify(listed)).toContain('Ship the package')
    // `git tasks` finds git-tasks on PATH.
    const viaGit = execFileSync('git', ['tasks', 'list'], {cwd: repo, env: {...TEST_ENV, PATH: `${join(prefix, 'bin')}:${TEST_ENV.PATH}`}, encoding: 'utf8'})
    expect(viaGit).toContain('Ship the package')
    // The MCP SDK and zod, from the bundle.
    expect(run(['mcp', 'list-tools'], repo)).toMatch(/^claim\s/m)
  })
})
