// Build: precompile the schemas, bundle the CLI into one file with esbuild,
// and write oclif.manifest.json so oclif needs no command scan at start-up.
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
execFileSync(process.execPath, [join(root, 'scripts', 'build-schemas.mjs')], {stdio: 'inherit'})

await build({
  entryPoints: [join(root, 'src', 'main.ts')],
  outfile: join(root, 'dist', 'tasks.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  sourcemap: 'linked',
  // oclif only reads tsconfig through typescript in development mode; never bundle the compiler.
  external: ['typescript'],
  logLevel: 'warning',
})

// The manifest: what `oclif manifest` writes, computed from the bundle itself.
const require = (await import('node:module')).createRequire(import.meta.url)
const {Config} = require('@oclif/core')
const config = await Config.load(root)
const commands = {}
for (const c of config.commands) {
  const {load, ...cached} = c
  commands[c.id] = cached
}
writeFileSync(join(root, 'oclif.manifest.json'), `${JSON.stringify({commands, version: config.version}, null, 2)}\n`)
console.log(`build: dist/tasks.js, oclif.manifest.json (${Object.keys(commands).length} commands)`)
