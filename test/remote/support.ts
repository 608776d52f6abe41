/**
 * Shared fixtures for the shared-remote tests: a bare repository playing the
 * server (any plain git server works the same: the CLI only fetches and
 * pushes with a lease), clones of it each set up with
 * `tasks init --remote origin`, and readers of the tasks ref with plain git
 * (`git log` trailers, `git ls-tree` + `git cat-file` contents).
 *
 * Not a *.test.ts file, so vitest does not collect it.
 */
import {type ChildProcess, execFileSync, spawn} from 'node:child_process'
import {readFileSync, readdirSync} from 'node:fs'
import {type Socket, createConnection, createServer} from 'node:net'
import {join} from 'node:path'
import Ajv from 'ajv'
import {expect} from 'vitest'
import {ROOT, TEST_ENV, gitSync, makeBareRepo, run, runJson, tempDir} from '../helpers/cli'

export const REF = 'refs/tasks/main'

export interface Shared {
  /** The bare repository every clone pushes to (remote "origin"). */
  bare: string
  clones: string[]
}

/** A clone of `bare` (remote "origin"); the tasks ref is not fetched by a plain clone. */
export function cloneOf(bare: string): string {
  const dir = tempDir('clone-')
  gitSync(dir, ['clone', '-q', bare, '.'])
  return dir
}

/**
 * A bare remote and `n` clones, each initialised with `tasks init --remote
 * origin` (the first publishes the deterministic root, the rest adopt it).
 */
export async function shared(n: number): Promise<Shared> {
  const bare = makeBareRepo()
  const clones: string[] = []
  for (let i = 0; i < n; i++) {
    const dir = cloneOf(bare)
    const out = await runJson(dir, ['init', '--remote', 'origin'])
    expect(out.remote).toBe('origin')
    expect(i === 0 ? ['published', 'up_to_date', 'fast_forward'] : ['up_to_date', 'fast_forward']).toContain(out.sync)
    clones.push(dir)
  }
  return {bare, clones}
}

/** The commit the ref points at in `repo` (bare or not), or null. */
export function tipOf(repo: string, ref = REF): string | null {
  try {
    return gitSync(repo, ['rev-parse', '--verify', '-q', ref]).trim()
  } catch {
    return null
  }
}

export function treeOf(repo: string, ref = REF): string {
  return gitSync(repo, ['rev-parse', `${ref}^{tree}`]).trim()
}

/** Every file on the ref: path → content, read with `git ls-tree -r` and `git cat-file -p`. */
export function filesOf(repo: string, ref = REF): Map<string, string> {
  const files = new Map<string, string>()
  const listing = gitSync(repo, ['ls-tree', '-r', ref]).split('\n').filter(Boolean)
  for (const line of listing) {
    const [meta, path] = line.split('\t') as [string, string]
    const oid = meta.split(/\s+/)[2]!
    files.set(path, gitSync(repo, ['cat-file', '-p', oid]))
  }
  return files
}

/** The files of one task (task.md and its comments) on the ref. */
export function taskFiles(files: Map<string, string>, id: string): string[] {
  return [...files.keys()].filter((p) => p.split('/')[2] === id)
}

/**
 * Commit `content` at `path` onto the ref with plain plumbing (hash-object,
 * mktree, commit-tree, update-ref), as a hand edit or a buggy tool would;
 * null removes the file.
 */
export function putFileOnRef(repo: string, path: string, content: string | null, message = 'hand edit', ref = REF): string {
  const old = gitSync(repo, ['rev-parse', ref]).trim()
  const blob = content === null ? null : gitSync(repo, ['hash-object', '-w', '--stdin'], content).trim()
  const put = (tree: string | null, parts: string[]): string | null => {
    const [name, ...rest] = parts as [string, ...string[]]
    const entries = tree ? gitSync(repo, ['ls-tree', tree]).split('\n').filter(Boolean) : []
    const existing = entries.find((l) => l.split('\t')[1] === name)
    const kept = entries.filter((l) => l !== existing)
    let entry: string | null
    if (rest.length === 0) entry = blob ? `100644 blob ${blob}\t${name}` : null
    else {
      const sub = put(existing ? existing.split(/\s+/)[2]! : null, rest)
      entry = sub ? `040000 tree ${sub}\t${name}` : null
    }
    const all = entry ? [...kept, entry] : kept
    if (all.length === 0) return null
    return gitSync(repo, ['mktree'], `${all.join('\n')}\n`).trim()
  }
  const tree = put(`${old}^{tree}`, path.split('/'))!
  const commit = gitSync(repo, ['commit-tree', tree, '-p', old, '-m', message]).trim()
  gitSync(repo, ['update-ref', ref, commit, old])
  return commit
}

/** Path of a task's task.md on the ref. */
export function taskPath(repo: string, id: string, ref = REF): string {
  const path = gitSync(repo, ['ls-tree', '-r', '--name-only', ref])
    .split('\n')
    .find((p) => p.endsWith(`/${id}/task.md`))
  if (!path) throw new Error(`no task.md for ${id} on ${ref} in ${repo}`)
  return path
}

/** Run a git command that may fail; returns its exit code and output. */
export function gitTry(cwd: string, args: string[]): {code: number; stdout: string; stderr: string} {
  try {
    const stdout = execFileSync('git', args, {cwd, env: TEST_ENV, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe']})
    return {code: 0, stdout, stderr: ''}
  } catch (e) {
    const err = e as {status?: number; stdout?: string; stderr?: string}
    return {code: err.status ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? ''}
  }
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** A figure for the report, printed so it shows in the vitest output. */
export function figure(name: string, value: string): void {
  console.log(`[figure] ${name}: ${value}`)
}

let ajv: Ajv | undefined

/** Validate a --json result against its schema in schemas/output/ (e.g. `sync`). */
export function expectSchema(name: string, data: unknown): void {
  if (!ajv) {
    ajv = new Ajv({strict: true, allErrors: true})
    const dir = join(ROOT, 'schemas', 'output')
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.schema.json'))) ajv.addSchema(JSON.parse(readFileSync(join(dir, f), 'utf8')))
  }
  const v = ajv.getSchema(`https://git-tasks.dev/schemas/output/${name}.schema.json`)!
  expect(v(data), `${name}.schema.json: ${ajv.errorsText(v.errors)}\n${JSON.stringify(data)}`).toBe(true)
}

export {run, runJson}

/**
 * A remote that accepts TCP connections and never answers (a half-open
 * server, a stuck proxy): use it as `git://127.0.0.1:PORT/x` or
 * `http://127.0.0.1:PORT/x`. `open` counts the connections still open, so a
 * test can see that the client side was killed, not left waiting.
 */
export interface HungServer {
  port: number
  open(): number
  accepted(): number
  close(): Promise<void>
}

export async function hungServer(): Promise<HungServer> {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server = createServer((socket) => {
    accepted++
    sockets.add(socket)
    socket.on('error', () => undefined)
    socket.on('close', () => sockets.delete(socket))
    // Read and drop what the client sends (so its going away is noticed), never answer.
    socket.resume()
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const port = (server.address() as {port: number}).port
  return {
    port,
    open: () => sockets.size,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy()
        server.close(() => done())
      }),
  }
}

/** A free TCP port on the loopback interface (bound and released: good enough for a test's own daemon). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const port = (server.address() as {port: number}).port
  await new Promise<void>((done) => server.close(() => done()))
  return port
}

/**
 * A real `git daemon` serving every repository under `base` over git://
 * on a free loopback port, pushes allowed (receive-pack). `url(repo)` is the
 * git:// URL of a repository under `base`; `stop()` kills the daemon.
 */
export interface GitDaemon {
  port: number
  url(repoDir: string): string
  stop(): Promise<void>
}

export async function gitDaemon(base: string): Promise<GitDaemon> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const child: ChildProcess = spawn(
      'git',
      ['daemon', '--reuseaddr', '--listen=127.0.0.1', `--port=${port}`, '--export-all', '--enable=receive-pack', `--base-path=${base}`, base],
      {env: TEST_ENV, stdio: ['ignore', 'ignore', 'pipe']},
    )
    let stderr = ''
    child.stderr!.on('data', (b) => (stderr += b))
    const exited = new Promise<void>((done) => child.on('exit', () => done()))
    // Ready when it accepts a connection.
    const deadline = Date.now() + 10_000
    let ready = false
    while (!ready && child.exitCode === null && Date.now() < deadline) {
      ready = await new Promise<boolean>((done) => {
        const c = createConnection({host: '127.0.0.1', port}, () => {
          c.destroy()
          done(true)
        })
        c.on('error', () => done(false))
      })
      if (!ready) await new Promise((r) => setTimeout(r, 50))
    }
    if (ready) {
      return {
        port,
        url: (repoDir) => `git://127.0.0.1:${port}/${repoDir.slice(base.length).replace(/^\/+/, '')}`,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM')
          await exited
        },
      }
    }
    child.kill('SIGKILL')
    await exited
    if (attempt >= 3) throw new Error(`git daemon did not start on port ${port}: ${stderr}`)
  }
}

/**
 * A bare remote with the server guard installed (`tasks server install-hook`)
 * and `n` clones, each `tasks init --remote origin` as alice: what the guard
 * tests push hand-made commits to.
 */
export async function guarded(n: number): Promise<{bare: string; clones: string[]}> {
  const bare = makeBareRepo()
  const installed = await runJson(tempDir(), ['server', 'install-hook', bare])
  expect(installed.hook.state).toBe('ours')
  const clones: string[] = []
  for (let i = 0; i < n; i++) {
    const dir = cloneOf(bare)
    await runJson(dir, ['init', '--remote', 'origin'], {env: {TASKS_ACTOR: 'alice'}})
    clones.push(dir)
  }
  return {bare, clones}
}

/** A commit made by hand that the guard must refuse: its name, the file it touches, and the rule the refusal names. */
export interface Forgery {
  name: string
  path: string
  forge: () => string
  rule: string
}

/**
 * Each forgery, made on `base` in `clone` and pushed to `bare`, is refused
 * by the guard naming the commit, the file and the rule, and the remote's
 * tip stays `base`; the clone is left at `base`.
 */
export function expectForgeriesRefused(clone: string, bare: string, base: string, cases: readonly Forgery[]): void {
  for (const k of cases) {
    gitSync(clone, ['update-ref', REF, base])
    const forged = k.forge()
    const r = gitTry(clone, ['push', 'origin', `${REF}:${REF}`])
    expect(r.code, k.name).not.toBe(0)
    expect(r.stderr, k.name).toContain(`commit ${forged.slice(0, 12)}`)
    expect(r.stderr, k.name).toContain(k.path)
    expect(r.stderr, k.name).toContain(`[${k.rule}]`)
    expect(tipOf(bare), k.name).toBe(base)
  }
  gitSync(clone, ['update-ref', REF, base])
}
