// What the bench scripts share: where the CLI is, a timed child process, an
// environment isolated from the machine's git config, and the TypeScript
// helpers under bench/ (they import src/) bundled on the fly and loaded.
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(root, 'bin', 'tasks')

/** Run a process to its end: its output and its wall time in ms; throws when it fails. */
export function timed(cmd, args, opts) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {encoding: 'utf8', maxBuffer: 1 << 30, ...opts})
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stderr}${(r.stdout ?? '').slice(0, 500)}`)
  return {ms, out: r.stdout, err: r.stderr ?? ''}
}

/** This process's environment without git's and tasks' variables, with a git config of its own under `tmp`. */
export function isolatedEnv(tmp, actor = 'bench-agent') {
  const globalConfig = join(tmp, 'gitconfig')
  writeFileSync(globalConfig, ['[user]', '\tname = Bench', '\temail = bench@example.com', '[commit]', '\tgpgsign = false', '[gc]', '\tauto = 0', '[init]', '\tdefaultBranch = main', ''].join('\n'))
  const env = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && !k.startsWith('TASKS_') && k !== 'NODE_OPTIONS') env[k] = v
  return {...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: globalConfig, TASKS_ACTOR: actor, NO_COLOR: '1'}
}

/** bench/<name>.ts for each name, bundled together into one CommonJS file under `tmp`, and loaded: their exports. */
export async function loadBench(tmp, names) {
  const outfile = join(tmp, `${names.join('+')}.cjs`)
  await build({
    stdin: {contents: names.map((n) => `export * from './${n}'\n`).join(''), resolveDir: join(root, 'bench'), loader: 'ts'},
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
  })
  return createRequire(import.meta.url)(outfile)
}
