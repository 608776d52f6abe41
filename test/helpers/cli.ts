/**
 * Test fixtures: real temporary git repositories with fixed configuration
 * (user, no signing, no auto-gc, no system or global config from the
 * machine), and a runner for the built CLI (bin/tasks → dist/tasks.js) as a
 * separate process, exactly as users and agents run it.
 */
import {type SpawnOptions, execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

export const ROOT = resolve(__dirname, '..', '..')
export const BIN = join(ROOT, 'bin', 'tasks')

const scratch = mkdtempSync(join(tmpdir(), 'git-tasks-test-'))
const globalConfig = join(scratch, 'gitconfig')
writeFileSync(
  globalConfig,
  ['[user]', '\tname = Test User', '\temail = test@example.com', '[commit]', '\tgpgsign = false', '[tag]', '\tgpgsign = false', '[gc]', '\tauto = 0', '[init]', '\tdefaultBranch = main', '[advice]', '\tdetachedHead = false', ''].join('\n'),
)

/** Environment for every git and CLI process in tests: nothing from the machine leaks in. */
export const TEST_ENV: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: scratch,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: globalConfig,
  GIT_TERMINAL_PROMPT: '0',
  NO_COLOR: '1',
  LANG: 'C.UTF-8',
}

export function tempDir(prefix = 'repo-'): string {
  return mkdtempSync(join(scratch, prefix))
}

export function gitSync(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, {cwd, env: TEST_ENV, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe']})
}

/** A new non-bare repository with fixed config. */
export function makeRepo(): string {
  const dir = tempDir()
  gitSync(dir, ['init', '-q'])
  return dir
}

/** A new bare repository (a shared remote). */
export function makeBareRepo(): string {
  const dir = tempDir('remote-')
  gitSync(dir, ['init', '-q', '--bare'])
  return dir
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

export interface RunOptions {
  env?: Record<string, string | undefined>
  input?: string
}

function childEnv(extra?: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...TEST_ENV}
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

/** Run the CLI in `cwd` and wait for it. */
export function run(cwd: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((done, fail) => {
    const spawnOptions: SpawnOptions = {cwd, env: childEnv(options.env), stdio: ['pipe', 'pipe', 'pipe']}
    const child = spawn(process.execPath, [BIN, ...args], spawnOptions)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (b) => (stdout += b))
    child.stderr!.on('data', (b) => (stderr += b))
    child.on('error', fail)
    child.on('close', (code) => done({code: code ?? -1, stdout, stderr}))
    child.stdin!.end(options.input ?? '')
  })
}

/** Run with --json and parse stdout; throws with stderr when the exit code is not `expect`. */
export async function runJson<T = any>(cwd: string, args: string[], options: RunOptions & {expect?: number} = {}): Promise<T> {
  const r = await run(cwd, [...args, '--json'], options)
  const expect = options.expect ?? 0
  if (r.code !== expect) throw new Error(`tasks ${args.join(' ')} exited ${r.code} (expected ${expect}): ${r.stderr}${r.stdout}`)
  return JSON.parse(expect === 0 ? r.stdout : r.stderr) as T
}

/** Parse the JSON error object a failing --json command printed on stderr. */
export function jsonError(r: RunResult): {code: string; message: string; exit: number; [k: string]: unknown} {
  // With --json a warning is a JSON line on stderr too (a pending ref the host refused, a merge note): the error is the line that has one.
  const lines = r.stderr.split('\n').filter((l) => l.trim())
  const line = lines.length > 1 ? (lines.filter((l) => l.startsWith('{"error"')).at(-1) ?? r.stderr) : r.stderr
  return (JSON.parse(line) as {error: any}).error
}

export function cleanupAll(): void {
  // Retries: a background git a command started (maintenance, a commit-graph write) may still add a file.
  rmSync(scratch, {recursive: true, force: true, maxRetries: 5, retryDelay: 100})
}
