// Build: precompile the schemas, bundle the CLI into one file with esbuild,
// and write oclif.manifest.json so oclif needs no command scan at start-up.
import {execFileSync} from 'node:child_process'
import {rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
execFileSync(process.execPath, [join(root, 'scripts', 'build-schemas.mjs')], {stdio: 'inherit'})

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // TASKS_BUILD_READABLE=1 keeps names readable, for CPU profiles (bench/README.md).
  minify: process.env.TASKS_BUILD_READABLE !== '1',
  sourcemap: 'linked',
  // oclif only reads tsconfig through typescript in development mode; never bundle the compiler.
  external: ['typescript', './engine.js'],
  logLevel: 'warning',
  // oclif checks the Node version against package.json with semver each time
  // it loads (~4 ms of every start-up); bin/ checks the major version instead.
  define: {'process.env.OCLIF_DISABLE_ENGINE_WARNING': '"1"'},
}
// Two bundles: the commands (oclif + flag definitions; all that --version and
// help load) and the engine they require on first use.
// Stale V8 code caches (bin/compile-cache.js) would only be rejected; drop them.
for (const f of ['tasks.js.v8cache', 'engine.js.v8cache']) rmSync(join(root, 'dist', f), {force: true})
await build({...common, entryPoints: [join(root, 'src', 'main.ts')], outfile: join(root, 'dist', 'tasks.js')})
await build({...common, entryPoints: [join(root, 'src', 'engine.ts')], outfile: join(root, 'dist', 'engine.js')})

// The manifest: what `oclif manifest` writes, computed from the bundle itself.
const require = (await import('node:module')).createRequire(import.meta.url)
const {Config} = require('@oclif/core')
// oclif would read the old manifest instead of the commands: remove it first.
rmSync(join(root, 'oclif.manifest.json'), {force: true})
const config = await Config.load(root)
const commands = {}
for (const c of config.commands) {
  const {load, ...cached} = c
  commands[c.id] = cached
}
writeFileSync(join(root, 'oclif.manifest.json'), `${JSON.stringify({commands, version: config.version}, null, 2)}\n`)
console.log(`build: dist/tasks.js, dist/engine.js, oclif.manifest.json (${Object.keys(commands).length} commands)`)
