// Build: precompile the schemas, bundle the CLI into one file with esbuild,
// and write oclif.manifest.json so oclif needs no command scan at start-up.
import {execFileSync} from 'node:child_process'
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
execFileSync(process.execPath, [join(root, 'scripts', 'build-schemas.mjs')], {stdio: 'inherit'})

// Packages oclif loads at start-up but that a command rarely needs, replaced in the bundles by
// small stand-ins that load the real package only when it is used (scripts/shims/).
const shims = {debug: join(root, 'scripts', 'shims', 'debug.cjs'), tinyglobby: join(root, 'scripts', 'shims', 'tinyglobby.cjs'), 'wsl-utils': join(root, 'scripts', 'shims', 'wsl-utils.cjs')}
const lazyPackages = {
  name: 'lazy-packages',
  setup(b) {
    b.onResolve({filter: /^(debug|tinyglobby|wsl-utils)$/}, (args) => (Object.values(shims).includes(args.importer) ? undefined : {path: shims[args.path]}))
    // oclif reads package.json, the manifest and the (usually absent) theme and plugin files with
    // fs.promises: each read is a trip through libuv's thread pool before the command can start,
    // costly on a busy machine. They are small local files: read them synchronously (still inside the
    // same async functions, so errors and results are as before).
    b.onLoad({filter: /@oclif[\\/]core[\\/]lib[\\/]util[\\/]fs\.js$/}, (args) => {
      const text = readFileSync(args.path, 'utf8')
      const from = "await (0, promises_1.readFile)(path, 'utf8')"
      if (!text.includes(from)) {
        console.warn(`build: ${args.path} no longer reads JSON as expected; left as it is (start-up is slower)`)
        return undefined
      }
      return {contents: text.replace(from, "(0, node_fs_1.readFileSync)(path, 'utf8')"), loader: 'js'}
    })
    // Command.run(argv, config) loads a second Config from the one it is given (to re-home plugins built
    // against another @oclif/core; here there is one, bundled): use the one given.
    b.onLoad({filter: /@oclif[\\/]core[\\/]lib[\\/]command\.js$/}, (args) => {
      const text = readFileSync(args.path, 'utf8')
      const from = 'const config = await config_1.Config.load(opts || require.main?.filename || __dirname);'
      if (!text.includes(from)) {
        console.warn(`build: ${args.path} no longer loads its Config as expected; left as it is (start-up is slower)`)
        return undefined
      }
      return {contents: text.replace(from, 'const config = opts instanceof config_1.Config ? opts : await config_1.Config.load(opts || require.main?.filename || __dirname);'), loader: 'js'}
    })
  },
}

// In the bundles, `require('@modelcontextprotocol/sdk/…')` and `require('zod')` become a require of the
// same module from dist/mcp.js, loaded on first use (the libraries' modules then load one by one as asked for).
const MCP_MODULES = ['@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/types.js', '@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk/inMemory.js', '@modelcontextprotocol/sdk/server/streamableHttp.js', 'zod']
const mcpBundle = {
  name: 'mcp-bundle',
  setup(b) {
    b.onResolve({filter: /^(@modelcontextprotocol\/sdk(\/.*)?|zod)$/}, (args) => {
      if (!MCP_MODULES.includes(args.path)) return {errors: [{text: `${args.path} is not in dist/mcp.js: add it to MCP_MODULES in scripts/build.mjs`}]}
      return {path: args.path, namespace: 'mcp-bundle'}
    })
    b.onLoad({filter: /.*/, namespace: 'mcp-bundle'}, (args) => ({contents: `module.exports = require('./mcp.js')[${JSON.stringify(args.path)}]`, loader: 'js'}))
  },
}

const common = {
  bundle: true,
  plugins: [lazyPackages, mcpBundle],
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // TASKS_BUILD_READABLE=1 keeps names readable, for CPU profiles (bench/README.md).
  minify: process.env.TASKS_BUILD_READABLE !== '1',
  sourcemap: 'linked',
  // oclif only reads tsconfig through typescript in development mode; never bundle the compiler.
  // The libraries only `tasks mcp` and `import` need are required from node_modules when those
  // commands run (src/app/lazy-libs.ts), so no other command loads or compiles them (@resvg/resvg-js, native,
  // only for `graph --out FILE.png`). The bundles
  // engine.js, graph-svg.js and board.js are required by path at run time (src/commands/engine-loader.ts);
  // they are listed too so that a literal require of one stays a run-time require, never a second copy.
  // The MCP SDK and zod are bundled too, into dist/mcp.js (below), which the other bundles require only
  // where the source requires one of them (all lazily, src/app/lazy-libs.ts): an install needs neither
  // package nor their dependencies (~20 MB installed).
  external: ['typescript', './engine.js', './graph-svg.js', './board.js', './mcp.js', 'cli-progress', '@resvg/resvg-js'],
  logLevel: 'warning',
  // oclif checks the Node version against package.json with semver each time
  // it loads (~4 ms of every start-up); bin/ checks the major version instead.
  define: {'process.env.OCLIF_DISABLE_ENGINE_WARNING': '"1"'},
}
// Two bundles: the commands (oclif + flag definitions; all that --version and
// help load) and the engine they require on first use.
// Stale V8 code caches (bin/compile-cache.js) would only be rejected; drop them.
for (const f of ['tasks.js.v8cache', 'engine.js.v8cache', 'graph-svg.js.v8cache', 'board.js.v8cache', 'mcp.js.v8cache', 'minisearch.js.v8cache']) rmSync(join(root, 'dist', f), {force: true})
// An earlier build's MiniSearch bundle (search no longer loads it).
for (const f of ['minisearch.js', 'minisearch.js.map']) rmSync(join(root, 'dist', f), {force: true})
await build({...common, entryPoints: [join(root, 'src', 'main.ts')], outfile: join(root, 'dist', 'tasks.js')})
await build({...common, entryPoints: [join(root, 'src', 'engine.ts')], outfile: join(root, 'dist', 'engine.js')})
// Loaded on demand only: the SVG layout (d3-dag) and the web board (its server, pages and markdown-it).
await build({...common, entryPoints: [join(root, 'src', 'render', 'graph-svg.ts')], outfile: join(root, 'dist', 'graph-svg.js')})
await build({...common, entryPoints: [join(root, 'src', 'board', 'index.ts')], outfile: join(root, 'dist', 'board.js')})
// The MCP SDK and zod: each module is evaluated on first access (`tasks mcp` over stdio never loads the HTTP transport).
await build({
  ...common,
  plugins: [lazyPackages],
  stdin: {contents: `module.exports = {${MCP_MODULES.map((m) => `get ${JSON.stringify(m)}() { return require(${JSON.stringify(m)}) }`).join(',\n')}}`, resolveDir: root, loader: 'js'},
  outfile: join(root, 'dist', 'mcp.js'),
})

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
// Man pages from the root help: `git tasks --help` becomes `git help tasks`, which runs `man git-tasks`
// (git never passes --help to git-tasks). npm links them on a global install ("man" in package.json);
// man also finds man/ beside a bin/ directory on PATH.
const help = require(join(root, 'dist', 'tasks.js')).rootHelpText()
const roff = (name) =>
  [
    `.TH ${name.toUpperCase()} 1 "" "git-tasks ${config.version}" "git-tasks manual"`,
    '.SH NAME',
    `${name.replace(/-/g, '\\-')} \\- a Git-native task tracker for coding agents and humans`,
    '.SH SYNOPSIS',
    '.nf',
    'tasks [GLOBAL FLAGS] COMMAND [ARGS] [FLAGS]',
    'git tasks COMMAND ...',
    'tasks help COMMAND',
    '.fi',
    '.SH DESCRIPTION',
    '.nf',
    ...help.replace(/\\/g, '\\e').replace(/-/g, '\\-').split('\n').map((l) => (/^[.']/.test(l) ? `\\&${l}` : l)),
    '.fi',
    '',
  ].join('\n')
// One page per command (`man tasks-add`, `man tasks-check-pass`), from the same manifest oclif's help reads:
// what `tasks help COMMAND` says, laid out as a man page.
const esc = (text) => String(text ?? '').replace(/\\/g, '\\e').replace(/-/g, '\\-').split('\n').map((l) => (/^[.']/.test(l) ? `\\&${l}` : l)).join('\n')
const commandRoff = (id, c) => {
  const words = id.replace(/:/g, ' ')
  const page = `tasks-${id.replace(/:/g, '-')}`
  const args = Object.values(c.args ?? {})
  // The global flags (--json, --list, --as, --offline) are on every command: tasks(1) has them once.
  const flags = Object.values(c.flags ?? {}).filter((f) => !f.hidden && !['json', 'list', 'as', 'offline', 'help'].includes(f.name))
  const lines = [
    `.TH ${page.toUpperCase()} 1 "" "git-tasks ${config.version}" "git-tasks manual"`,
    '.SH NAME',
    `${esc(page)} \\- ${esc(c.summary ?? '')}`,
    '.SH SYNOPSIS',
    `tasks ${esc(words)}${args.map((a) => ` ${a.required ? '' : '['}${a.name.toUpperCase()}${a.required ? '' : ']'}`).join('')} [FLAGS]`,
  ]
  if (c.description) lines.push('.SH DESCRIPTION', esc(c.description))
  if (args.length) {
    lines.push('.SH ARGUMENTS')
    for (const a of args) lines.push('.TP', `\\fB${esc(a.name.toUpperCase())}\\fR`, esc(a.description ?? ''))
  }
  if (flags.length) {
    lines.push('.SH FLAGS')
    for (const f of flags) {
      const names = [f.char ? `\\-${f.char}` : '', `\\-\\-${esc(f.name)}`].filter(Boolean).join(', ')
      lines.push('.TP', `\\fB${names}\\fR${f.type === 'option' ? ' \\fIVALUE\\fR' : ''}`, esc(f.summary ?? f.description ?? ''))
    }
  }
  const examples = (c.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command)).filter(Boolean)
  if (examples.length) lines.push('.SH EXAMPLES', '.nf', ...examples.map((e) => esc(e.replace(/<%= config\.bin %>/g, 'tasks'))), '.fi')
  lines.push('.SH GLOBAL FLAGS', '\\-\\-json, \\-\\-list NAME, \\-\\-as ACTOR, \\-\\-offline, \\-C DIR: see tasks(1).')
  lines.push('.SH SEE ALSO', 'tasks(1), git\\-tasks(1); docs/cli.md', '')
  return {page, text: lines.join('\n')}
}
rmSync(join(root, 'man', 'man1'), {recursive: true, force: true})
mkdirSync(join(root, 'man', 'man1'), {recursive: true})
for (const name of ['tasks', 'git-tasks']) writeFileSync(join(root, 'man', 'man1', `${name}.1`), roff(name))
let pages = 0
for (const [id, c] of Object.entries(commands)) {
  if (c.hidden) continue
  const {page, text} = commandRoff(id, c)
  writeFileSync(join(root, 'man', 'man1', `${page}.1`), text)
  pages++
}
console.log(`build: dist/tasks.js, dist/engine.js, man/man1/{tasks,git-tasks}.1 and ${pages} command pages, oclif.manifest.json (${Object.keys(commands).length} commands)`)
