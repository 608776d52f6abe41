// Size of `--format compact` against `--json` (docs/compact.md): seeds a
// realistic list of N tasks (bench/seed.ts, default 200; BENCH_COMPACT_SIZE)
// and compares the bytes of `list --all`, `list` (open items), `show` of the
// heaviest card and `log -n 50` in both forms. Not a test; `npm run build`
// first. Prints one JSON object.
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const size = Number(process.env.BENCH_COMPACT_SIZE ?? 200)
const tmp = mkdtempSync(join(tmpdir(), 'git-tasks-compact-'))
const env = {
  PATH: process.env.PATH,
  HOME: tmp,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  TASKS_ACTOR: 'bench-agent',
  COLUMNS: '200',
}
for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k]
Object.assign(process.env, env)
try {
  const outfile = join(tmp, 'seed.cjs')
  await build({entryPoints: [join(root, 'bench', 'seed.ts')], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning'})
  const {seed} = createRequire(import.meta.url)(outfile)
  const repo = join(tmp, 'repo')
  execFileSync('git', ['init', '-q', repo], {env})
  const seeded = await seed({cwd: repo, count: size, actor: 'bench-agent', reserve: 2})
  const tasks = (args) => {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'tasks'), ...args], {cwd: repo, env, maxBuffer: 1 << 28})
    if (r.status !== 0) throw new Error(`tasks ${args.join(' ')}: ${r.stderr}`)
    return r.stdout.length
  }
  const cases = {
    'list --all': ['list', '--all'],
    list: ['list'],
    'show (heaviest card)': ['show', seeded.showTarget],
    'log -n 50': ['log', '-n', '50', '--no-pager'],
  }
  const out = {tasks: size, by_status: seeded.byStatus}
  for (const [name, args] of Object.entries(cases)) {
    const json = tasks([...args, '--json'])
    const compact = tasks([...args, '--format', 'compact'])
    const text = tasks(args)
    out[name] = {json_bytes: json, compact_bytes: compact, text_bytes: text, ratio: Math.round((compact / json) * 1000) / 1000}
  }
  console.log(JSON.stringify(out, null, 1))
} finally {
  rmSync(tmp, {recursive: true, force: true})
}
