/**
 * The kill -9 soak's harness: run a `tasks` command in its own process group
 * and SIGKILL it at a chosen moment, watch what the kill left behind (the
 * ref, new objects, stale `*.lock` files, temp files), check a repository's
 * invariants (the ref names a commit, `git fsck --strict` is clean, `list`
 * works, the warm index cache reads exactly like a cold rebuild), and keep a
 * ledger of acknowledged writes to prove none was lost.
 *
 * Sizes: a short run by default (part of `npm test`); `TASKS_SOAK=1`
 * (`npm run soak`) runs the long one, `SOAK_ITERATIONS` sizes each mode and
 * `SOAK_SEED` replays an operation sequence (kill timing still varies).
 *
 * Not a *.test.ts file, so vitest does not collect it.
 */
import {spawn} from 'node:child_process'
import {type FSWatcher, existsSync, readFileSync, readdirSync, rmSync, watch, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {BIN, TEST_ENV, gitSync, tempDir} from '../helpers/cli'
import {gitTry} from '../remote/support'
import {REF, history, trailer} from '../race/support'

export {REF}

/** The long soak runs only when asked for. */
export const LONG = process.env.TASKS_SOAK === '1'

/** Iterations (or rounds) for one mode: `short` in the default suite, `long` (or SOAK_ITERATIONS) in the soak. */
export function iterations(short: number, long: number): number {
  if (!LONG) return short
  const n = Number(process.env.SOAK_ITERATIONS)
  return Number.isInteger(n) && n > 0 ? n : long
}

/** A vitest timeout that fits `n` iterations of about `msEach` on a loaded machine. */
export function timeoutFor(n: number, msEach: number): number {
  return 60_000 + n * msEach * 3
}

/** A seeded generator (mulberry32), so a run's sequence of operations can be replayed with SOAK_SEED. */
export class Random {
  private state: number

  constructor(readonly seed: number) {
    this.state = seed >>> 0
  }

  static fromEnv(): Random {
    const s = Number(process.env.SOAK_SEED)
    return new Random(Number.isInteger(s) ? s : Math.floor(Math.random() * 2 ** 31))
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }
}

// ---------------------------------------------------------------------------
// Killable processes

/** How a kill is delivered: to the whole process group (node and its git children), or to node alone (git children finish as orphans). */
export type KillMode = 'group' | 'process'

export interface Outcome {
  args: string[]
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** The SIGKILL reached the process before it exited. */
  killed: boolean
  killAfterMs: number | null
  killMode: KillMode | null
  killPlan: KillPlan | null
  ms: number
}

/**
 * When to kill: `afterMs` after the start, or, with `watch`, `afterMs` after
 * the first file event in one of those directories (git's
 * `refs/tasks/main.lock` appearing, the cache's temp file), which aims the
 * kill at the moment the ref or the cache is being written.
 */
export interface KillPlan {
  afterMs: number
  mode: KillMode
  watch?: string[]
}

/** The process group still has a live member (zombies waiting for a reaper do not count). */
function groupAlive(pgid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue
      let stat: string
      try {
        stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      } catch {
        continue
      }
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true
    }
    return false
  }
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Wait until every process of the group has gone (the orphaned git children
 * of a node process killed alone finish their work first); after 10 s they
 * are killed too. Only then is what the kill left behind final.
 */
async function drainGroup(pgid: number): Promise<void> {
  const deadline = Date.now() + 10_000
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(-pgid, 'SIGKILL')
      } catch {}
      await sleep(20)
      return
    }
    await sleep(5)
  }
}

/**
 * Run `tasks ARGS` in `cwd` in a new process group; with a kill plan, send
 * SIGKILL after `afterMs` (to the group or to node alone). Resolves once the
 * process and every child it left are gone.
 */
export function runKillable(cwd: string, args: string[], env: Record<string, string>, kill: KillPlan | null): Promise<Outcome> {
  return new Promise((done, fail) => {
    const started = performance.now()
    const child = spawn(process.execPath, [BIN, ...args], {cwd, env: {...TEST_ENV, ...env}, stdio: ['ignore', 'pipe', 'pipe'], detached: true})
    const pgid = child.pid!
    let stdout = ''
    let stderr = ''
    let exited = false
    let killed = false
    child.stdout!.on('data', (b) => (stdout += b))
    child.stderr!.on('data', (b) => (stderr += b))
    const shoot = () => {
      if (exited) return
      killed = true
      try {
        process.kill(kill!.mode === 'group' ? -pgid : pgid, 'SIGKILL')
      } catch {}
    }
    let timer: NodeJS.Timeout | null = null
    const watchers: FSWatcher[] = []
    if (kill?.watch) {
      for (const dir of kill.watch) {
        if (!existsSync(dir)) continue
        watchers.push(
          watch(dir, () => {
            if (timer === null) timer = setTimeout(shoot, kill.afterMs)
          }),
        )
      }
    } else if (kill) timer = setTimeout(shoot, kill.afterMs)
    child.on('exit', () => {
      exited = true
      for (const w of watchers) w.close()
    })
    child.on('error', fail)
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer)
      const ms = performance.now() - started
      drainGroup(pgid).then(
        () =>
          done({
            args,
            code,
            signal,
            stdout,
            stderr,
            killed: killed && signal === 'SIGKILL',
            killAfterMs: kill?.afterMs ?? null,
            killMode: kill?.mode ?? null,
            killPlan: kill,
            ms,
          }),
        fail,
      )
    })
  })
}

/** Exit 0 with a JSON result on stdout: the write was acknowledged. */
export function acknowledged(o: Outcome): any | null {
  if (o.code !== 0 || o.killed) return null
  try {
    return JSON.parse(o.stdout)
  } catch {
    return null
  }
}

/** The `error.code` a failed --json command printed, or a short description. */
export function errorCode(o: Outcome): string {
  try {
    return String(JSON.parse(o.stderr).error.code)
  } catch {
    return `exit ${o.code}${o.signal ? ` ${o.signal}` : ''}: ${o.stderr.trim().split('\n')[0]?.slice(0, 120) ?? ''}`
  }
}

/**
 * When to kill: adapts to how long unkilled commands of the same kind
 * (`add`, `sync`, …) took, since the machine is shared and this drifts. A
 * quarter of the kills land in start-up, most in the last part of the run
 * where the objects, the ref and the cache are written, and some after the
 * command would have finished. A late kill that still found nothing written
 * means the estimate is short: it grows by a tenth.
 */
export class KillClock {
  private readonly estimates = new Map<string, {ms: number; n: number}>()

  constructor(
    private readonly random: Random,
    private readonly initialMs: number,
    /** How kills are delivered, chosen evenly. */
    private readonly modes: readonly KillMode[] = ['group', 'process'],
  ) {}

  private estimate(kind: string): {ms: number; n: number} {
    let e = this.estimates.get(kind)
    // A kind not seen yet starts from the average of those seen.
    if (!e) {
      const seen = [...this.estimates.values()].filter((x) => x.n > 0)
      const ms = seen.length ? seen.reduce((sum, x) => sum + x.ms, 0) / seen.length : this.initialMs
      this.estimates.set(kind, (e = {ms, n: 0}))
    }
    return e
  }

  /** Learn from a finished command; `wroteNothing` says a kill found no new object or ref. */
  observe(o: Outcome, wroteNothing = false): void {
    const e = this.estimate(o.args[0]!)
    if (o.killed) {
      if (o.killPlan?.watch) return
      if (wroteNothing && o.killAfterMs !== null && o.killAfterMs > 0.8 * e.ms) e.ms *= 1.1
      return
    }
    if (o.code === null) return
    e.ms = e.n++ === 0 ? o.ms : 0.8 * e.ms + 0.2 * o.ms
  }

  plan(kind: string): KillPlan {
    const d = this.estimate(kind).ms
    const u = this.random.next()
    const afterMs = u < 0.25 ? this.random.next() * 0.6 * d : u < 0.85 ? (0.6 + this.random.next() * 0.5) * d : (1.1 + this.random.next() * 0.4) * d
    return {afterMs: Math.round(afterMs), mode: this.random.pick(this.modes)}
  }

  /** A kill 0–3 ms after the first file event in one of `dirs` (see KillPlan). */
  planAt(dirs: string[]): KillPlan {
    return {afterMs: this.random.int(0, 3), mode: this.random.pick(this.modes), watch: dirs}
  }

  /** The current estimates, for the summary. */
  describe(): string {
    return [...this.estimates].map(([k, e]) => `${k} ${Math.round(e.ms)}`).join(', ')
  }
}

// ---------------------------------------------------------------------------
// What a kill leaves behind

export function gitDirOf(repo: string): string {
  return existsSync(join(repo, '.git')) ? join(repo, '.git') : repo
}

/** The refs and loose objects of a repository, to tell whether a killed process had started writing. */
export interface Fingerprint {
  refs: string
  objects: number
}

export function fingerprint(repo: string): Fingerprint {
  const objectsDir = join(gitDirOf(repo), 'objects')
  let objects = 0
  for (const d of readdirSync(objectsDir)) {
    if (/^[0-9a-f]{2}$/.test(d)) objects += readdirSync(join(objectsDir, d)).filter((f) => !f.startsWith('tmp_')).length
  }
  objects += readdirSync(join(objectsDir, 'pack')).length
  const refs = gitSync(repo, ['for-each-ref', '--format=%(refname) %(objectname)'])
  return {refs, objects}
}

export interface Leftovers {
  /** Lock files (`refs/tasks/main.lock`, `packed-refs.lock`, …), relative to the git dir. */
  locks: string[]
  /** Half-written loose objects (`objects/tmp_obj_*`, older versions' `objects/xx/tmp_obj_*`) and index cache files (`git-tasks/index-*.tmp`). */
  temps: string[]
}

function walk(dir: string, base: string, out: string[]): void {
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    const rel = base ? `${base}/${e.name}` : e.name
    if (e.isDirectory()) walk(join(dir, e.name), rel, out)
    else out.push(rel)
  }
}

/** Scan a git dir for what killed processes can leave: lock files and temp files. */
export function leftovers(repo: string): Leftovers {
  const gitDir = gitDirOf(repo)
  const files: string[] = []
  walk(join(gitDir, 'refs'), 'refs', files)
  const locks = files.filter((f) => f.endsWith('.lock'))
  for (const top of ['packed-refs.lock', 'HEAD.lock', 'config.lock', 'index.lock', 'shallow.lock']) if (existsSync(join(gitDir, top))) locks.push(top)
  const temps: string[] = []
  const objectsDir = join(gitDir, 'objects')
  for (const d of readdirSync(objectsDir)) {
    if (d.startsWith('tmp_')) temps.push(`objects/${d}`)
    if (/^[0-9a-f]{2}$/.test(d)) for (const f of readdirSync(join(objectsDir, d))) if (f.startsWith('tmp_')) temps.push(`objects/${d}/${f}`)
  }
  const cacheDir = join(gitDir, 'git-tasks')
  if (existsSync(cacheDir)) for (const f of readdirSync(cacheDir)) if (f.endsWith('.tmp')) temps.push(`git-tasks/${f}`)
  return {locks, temps}
}

// ---------------------------------------------------------------------------
// Counting

/** What one soak mode saw; printed at the end and checked by the test. */
export class Tally {
  iterations = 0
  processes = 0
  killed = 0
  /** Killed before anything was written (same refs, no new objects). */
  killedBeforeWrite = 0
  /** Killed after writing objects but before the ref moved. */
  killedObjectsOnly = 0
  /** Killed after the ref (local, tracking or remote) moved: the write landed but was never acknowledged. */
  killedAfterRef = 0
  /** Concurrent mode: killed processes whose kill could not be attributed (several writers). */
  killedUnattributed = 0
  killedGroup = 0
  killedProcessOnly = 0
  acknowledged = 0
  /** Acknowledged writes checked against the list (each counted once per final check). */
  acknowledgedChecked = 0
  checks = 0
  fsckRuns = 0
  cacheComparisons = 0
  /** Stale lock files found after a kill (path → times). */
  locksLeft = new Map<string, number>()
  /** Commands that failed because of a stale lock. */
  lockFailures = 0
  /** The longest such failure took (a stale lock makes the compare-and-swap retry until it gives up). */
  lockFailureMs = 0
  tmpObjectsLeft = 0
  tmpIndexLeft = 0
  /** Error codes of commands that ran to their end and failed (expected for races, e.g. already_claimed). */
  errors = new Map<string, number>()
  failures: string[] = []

  constructor(readonly mode: string) {}

  fail(message: string): void {
    this.failures.push(message)
  }

  error(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1)
  }

  /**
   * Classify a finished process (single process per repository): compare
   * fingerprints taken before it started and after it (and its children) ended.
   */
  classify(o: Outcome, before: Fingerprint[], after: Fingerprint[]): void {
    this.processes++
    if (!o.killed) return
    this.killed++
    if (o.killMode === 'group') this.killedGroup++
    else this.killedProcessOnly++
    const refsMoved = before.some((b, i) => b.refs !== after[i]!.refs)
    const objectsWritten = before.some((b, i) => b.objects !== after[i]!.objects)
    if (refsMoved) this.killedAfterRef++
    else if (objectsWritten) this.killedObjectsOnly++
    else this.killedBeforeWrite++
  }

  /** The last classified kill found nothing written. */
  static wroteNothing(before: Fingerprint[], after: Fingerprint[]): boolean {
    return before.every((b, i) => b.refs === after[i]!.refs && b.objects === after[i]!.objects)
  }

  get killedMidWrite(): number {
    return this.killedObjectsOnly + this.killedAfterRef
  }

  summary(seed: number, extra: Record<string, string | number> = {}): string {
    const locks = [...this.locksLeft].map(([p, n]) => `${p} ×${n}`).join(', ') || 'none'
    const errors = [...this.errors].map(([c, n]) => `${c} ×${n}`).join(', ') || 'none'
    const lines = [
      `[soak] ${this.mode} (seed ${seed})`,
      `  iterations ${this.iterations}, processes ${this.processes}, killed ${this.killed} (group ${this.killedGroup}, node only ${this.killedProcessOnly})`,
      `  killed before writing ${this.killedBeforeWrite}, mid-write ${this.killedMidWrite} (objects only ${this.killedObjectsOnly}, ref moved ${this.killedAfterRef})${this.killedUnattributed ? `, not attributable ${this.killedUnattributed}` : ''}`,
      `  acknowledged writes ${this.acknowledged} (ledger entries verified ${this.acknowledgedChecked} times in all); checks ${this.checks} (fsck ${this.fsckRuns}, cache vs cold rebuild ${this.cacheComparisons})`,
      `  stale locks left: ${locks}; commands failed on a lock: ${this.lockFailures}${this.lockFailures ? ` (the slowest after ${(this.lockFailureMs / 1000).toFixed(1)} s)` : ''}; temp objects left ${this.tmpObjectsLeft}, temp cache files left ${this.tmpIndexLeft}`,
      `  errors of finished commands: ${errors}`,
      ...Object.entries(extra).map(([k, v]) => `  ${k}: ${v}`),
      `  failures ${this.failures.length}${this.failures.length ? `:\n    ${this.failures.slice(0, 20).join('\n    ')}` : ''}`,
    ]
    return lines.join('\n')
  }
}

/**
 * Remove the lock files a kill left (as a person would, after seeing
 * "File exists" or `ref_locked`), counting each; temp files are counted
 * once each and left (harmless garbage; the cache check deletes the
 * cache's). `seen` holds the temp files already counted.
 */
export function clearLeftovers(repo: string, tally: Tally, label: string, seen: Set<string>): string[] {
  const l = leftovers(repo)
  for (const lock of l.locks) {
    const key = `${label}:${lock}`
    tally.locksLeft.set(key, (tally.locksLeft.get(key) ?? 0) + 1)
    rmSync(join(gitDirOf(repo), lock), {force: true})
  }
  for (const t of l.temps) {
    if (seen.has(t)) continue
    seen.add(t)
    if (t.startsWith('objects/')) tally.tmpObjectsLeft++
    else tally.tmpIndexLeft++
  }
  return l.locks
}

/** git's or the tool's words for a held ref lock. */
const LOCK_WORDS = /\.lock\b|ref_locked|File exists/

/**
 * Account for a command that ran to its end and failed. A failure on a lock
 * (one the tool names, or a compare-and-swap retried to exhaustion while a
 * kill had left a stale lock: `stale` is how many were found after it) is
 * counted, with how long it took to give up; an exit in `expected` (a lost
 * race: already claimed, not the owner) is only counted; anything else is a
 * failure of the soak.
 */
export function failedCommand(tally: Tally, o: Outcome, label: string, stale: number, expected: ReadonlySet<number> = new Set()): void {
  const code = errorCode(o)
  tally.error(code)
  const exhausted = code === 'cas_exhausted' || code === 'sync_exhausted'
  if (LOCK_WORDS.test(o.stderr) || (exhausted && stale > 0)) {
    tally.lockFailures++
    tally.lockFailureMs = Math.max(tally.lockFailureMs, o.ms)
  } else if (!expected.has(o.code ?? -1) || exhausted) tally.fail(`${label}: ${o.args.join(' ')} failed: ${code} ${o.stderr.trim().slice(0, 200)}`)
}

// ---------------------------------------------------------------------------
// Invariants of one repository

export interface ListedTask {
  id: string
  title: string
  status: string
  owner: string | null
  epoch: number
  tags: string[]
  key: string | null
  created_by: string
}

export interface Listing {
  commit: string
  tasks: ListedTask[]
}

/** `git fsck --strict` finds nothing wrong (dangling objects, left by killed or losing writes, are fine). */
export function fsck(repo: string, label: string, tally: Tally): void {
  tally.fsckRuns++
  const r = gitTry(repo, ['fsck', '--strict', '--no-progress', '--no-dangling'])
  const problems = `${r.stdout}\n${r.stderr}`
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('notice:') && !l.startsWith('dangling'))
  if (r.code !== 0 || problems.length) tally.fail(`${label}: git fsck --strict (exit ${r.code}): ${problems.slice(0, 5).join(' | ')}`)
}

const PINNED_NOW = '2030-01-01T00:00:00.000Z'

/**
 * Check a repository's tasks ref after kills: every `refs/tasks/*` (and
 * remote-tracking tasks ref) names a commit; with `deep`, `git fsck
 * --strict` reports no problem (dangling objects are fine) and `list --all
 * --json` on the warm cache prints exactly what it prints after the cache
 * (`<git-dir>/git-tasks/index-*`) is deleted. Returns the listing.
 */
export async function checkRepo(repo: string, label: string, tally: Tally, env: Record<string, string>, deep: boolean): Promise<Listing | null> {
  tally.checks++
  const refs = gitTry(repo, ['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)'])
  if (refs.code !== 0 || refs.stderr.trim()) tally.fail(`${label}: for-each-ref: ${refs.stderr.trim()}`)
  const tip = gitTry(repo, ['rev-parse', '--verify', '-q', `${REF}^{commit}`])
  if (tip.code !== 0) {
    tally.fail(`${label}: ${REF} does not resolve to a commit`)
    return null
  }
  for (const line of refs.stdout.split('\n').filter((l) => /^refs\/(tasks\/|remotes\/[^/]+\/tasks\/)/.test(l))) {
    if (!line.endsWith(' commit')) tally.fail(`${label}: ref is not a commit: ${line}`)
  }
  if (deep) fsck(repo, label, tally)
  const listEnv = {...env, TASKS_NOW: PINNED_NOW, TASKS_OFFLINE: '1'}
  const warm = await runKillable(repo, ['list', '--all', '--json'], listEnv, null)
  if (warm.code !== 0) {
    tally.fail(`${label}: list --all --json exited ${warm.code}: ${warm.stderr.trim().slice(0, 300)}`)
    return null
  }
  const parsed = JSON.parse(warm.stdout) as Listing & {broken: unknown[]}
  if (parsed.commit !== tip.stdout.trim()) tally.fail(`${label}: list read ${parsed.commit}, the ref is ${tip.stdout.trim()}`)
  if (parsed.broken.length) tally.fail(`${label}: broken cards: ${JSON.stringify(parsed.broken).slice(0, 300)}`)
  if (deep) {
    tally.cacheComparisons++
    const cacheDir = join(gitDirOf(repo), 'git-tasks')
    if (existsSync(cacheDir)) for (const f of readdirSync(cacheDir)) if (f.startsWith('index-')) rmSync(join(cacheDir, f), {force: true})
    const cold = await runKillable(repo, ['list', '--all', '--json'], listEnv, null)
    if (cold.stdout !== warm.stdout) {
      const file = join(tempDir('soak-diff-'), 'lists.json')
      writeFileSync(file, JSON.stringify({warm: warm.stdout, cold: cold.stdout, stderr: cold.stderr}))
      tally.fail(`${label}: the warm cache lists differently from a cold rebuild (both outputs in ${file})`)
    }
  }
  return {commit: parsed.commit, tasks: parsed.tasks}
}

// ---------------------------------------------------------------------------
// Acknowledged writes

export type WriteKind = 'add' | 'claim' | 'done' | 'comment' | 'edit'

export interface Write {
  kind: WriteKind
  /** The task (for add: the id the command reported). */
  id: string
  actor: string
  /** add: the title; comment: the comment text; edit: the tag added. */
  token: string
  /** Where it was made (single, w2, clone A…). */
  where: string
}

/** A mutation to run: its arguments and what its acknowledgement must leave in the list. */
export interface PlannedWrite {
  kind: WriteKind
  args: string[]
  id: string | null
  token: string
}

/**
 * Choose the next mutation from the current listing: add (unique title and
 * key), claim a todo item, finish one (own claim, or a todo item: claim and
 * done in one step), comment, or add a tag. `mine` limits claim and done to
 * some tasks (the sync mode keeps each clone's claims on its own items, so
 * no claim is legitimately lost to the other clone's).
 */
export function planWrite(random: Random, tasks: readonly ListedTask[], actor: string, serial: string, mine: (t: ListedTask) => boolean = () => true): PlannedWrite {
  const todo = tasks.filter((t) => t.status === 'todo' && mine(t))
  const held = tasks.filter((t) => t.status === 'in_progress' && t.owner === actor && mine(t))
  const open = tasks.filter((t) => t.status !== 'cancelled')
  const u = random.next()
  if (u < 0.3 || tasks.length === 0) {
    const title = `soak ${serial}`
    return {kind: 'add', args: ['add', title, '--key', `key-${serial}`, '--json'], id: null, token: title}
  }
  if (u < 0.5 && todo.length) {
    const t = random.pick(todo)
    return {kind: 'claim', args: ['claim', t.id, '--json'], id: t.id, token: ''}
  }
  if (u < 0.65 && (held.length || todo.length)) {
    const t = held.length && random.chance(0.7) ? random.pick(held) : todo.length ? random.pick(todo) : random.pick(held)
    return {kind: 'done', args: ['done', t.id, '--json'], id: t.id, token: ''}
  }
  if (u < 0.85 && open.length) {
    const t = random.pick(open)
    const text = `soak comment ${serial}.`
    return {kind: 'comment', args: ['comment', t.id, text, '--json'], id: t.id, token: text}
  }
  const t = random.pick(open.length ? open : tasks)
  const tag = `e${serial}`.toLowerCase()
  return {kind: 'edit', args: ['edit', t.id, '--tag', tag, '--json'], id: t.id, token: tag}
}

/** Turn an acknowledged result into a ledger entry (null when the result does not say what the plan asked for). */
export function ledgerEntry(plan: PlannedWrite, out: any, actor: string, where: string): Write | null {
  switch (plan.kind) {
    case 'add':
      return out?.task?.id && out.task.title === plan.token ? {kind: 'add', id: out.task.id, actor, token: plan.token, where} : null
    case 'claim':
      return out?.task?.owner === actor && out.task.status === 'in_progress' ? {kind: 'claim', id: plan.id!, actor, token: '', where} : null
    case 'done':
      return out?.task?.status === 'done' ? {kind: 'done', id: plan.id!, actor, token: '', where} : null
    case 'comment':
      return out?.comment?.body === plan.token ? {kind: 'comment', id: plan.id!, actor, token: plan.token, where} : null
    case 'edit':
      return Array.isArray(out?.task?.tags) && out.task.tags.includes(plan.token) ? {kind: 'edit', id: plan.id!, actor, token: plan.token, where} : null
  }
}

let patternsFile: string | undefined

/** Comment texts on the ref, found with plain `git grep` over the ref's tree: text → task ids holding it. */
function commentsOnRef(repo: string, texts: readonly string[]): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>()
  if (texts.length === 0) return found
  patternsFile ??= join(tempDir('soak-grep-'), 'patterns')
  const patterns = patternsFile
  writeFileSync(patterns, `${texts.join('\n')}\n`)
  // -o prints each match; the texts end with '.', so one cannot match inside another.
  const r = gitTry(repo, ['grep', '-F', '-o', '-f', patterns, REF, '--', 'tasks'])
  if (r.code > 1) throw new Error(`git grep failed: ${r.stderr}`)
  for (const line of r.stdout.split('\n')) {
    const m = /^[^:]+:tasks\/[^/]+\/([^/]+)\/comments\/[^:]+:(.*)$/.exec(line)
    if (!m) continue
    const ids = found.get(m[2]!) ?? new Set<string>()
    ids.add(m[1]!)
    found.set(m[2]!, ids)
  }
  return found
}

/**
 * Every acknowledged write is in the listing of `repo` (and comments in the
 * ref's files); no task exists that no command tried to add, and no key
 * made two tasks. Failures go to the tally; returns how many writes were checked.
 */
export function verifyWrites(repo: string, label: string, listing: Listing, writes: readonly Write[], titlesTried: ReadonlySet<string>, tally: Tally): number {
  const byId = new Map(listing.tasks.map((t) => [t.id, t]))
  const comments = commentsOnRef(
    repo,
    writes.filter((w) => w.kind === 'comment').map((w) => w.token),
  )
  const lost = (w: Write, why: string) => tally.fail(`${label}: acknowledged ${w.kind} by ${w.actor} in ${w.where} lost: ${w.id} ${w.token} (${why})`)
  for (const w of writes) {
    const t = byId.get(w.id)
    if (!t) {
      lost(w, 'no such task')
      continue
    }
    if (w.kind === 'add' && t.title !== w.token) lost(w, `title is ${t.title}`)
    if (w.kind === 'claim' && !(t.owner === w.actor && (t.status === 'in_progress' || t.status === 'done'))) lost(w, `${t.status}, owner ${t.owner}`)
    if (w.kind === 'done' && t.status !== 'done') lost(w, `status ${t.status}`)
    if (w.kind === 'edit' && !t.tags.includes(w.token)) lost(w, `tags ${t.tags.join(',')}`)
    if (w.kind === 'comment' && !comments.get(w.token)?.has(w.id)) lost(w, 'comment not on the ref')
  }
  const keys = new Map<string, number>()
  for (const t of listing.tasks) {
    if (!titlesTried.has(t.title)) tally.fail(`${label}: task ${t.id} "${t.title}" was never added`)
    if (t.key) keys.set(t.key, (keys.get(t.key) ?? 0) + 1)
  }
  for (const [k, n] of keys) if (n > 1) tally.fail(`${label}: key ${k} made ${n} tasks`)
  tally.acknowledgedChecked += writes.length
  return writes.length
}

/**
 * Concurrent mode: which killed writers' commits landed anyway. Reads the
 * commits added to the ref since `oldTip` (plain `git log` trailers) and
 * returns the actors named by them.
 */
export function actorsWithNewCommits(repo: string, oldTip: string): Set<string> {
  const actors = new Set<string>()
  for (const c of history(repo, `${oldTip}..${REF}`)) {
    const a = trailer(c, 'Actor')
    if (a) actors.add(a)
  }
  return actors
}

/** Time since `start` in seconds, for the summary. */
export function seconds(start: number): string {
  return ((performance.now() - start) / 1000).toFixed(1)
}

