/**
 * Compare-and-swap on a ref, in git's own words: an update names the ref,
 * the new object id and the old one it must still point at (the zero id
 * meaning "must not exist yet"). `git update-ref` takes git's lock, checks
 * the old value under it and moves the ref, so other git processes and
 * worktrees are safe. A moved ref, and a lock another writer holds for the
 * moment of its update (git waits core.filesRefLockTimeout, 100 ms by
 * default), are both an INCORRECT_OLD_VALUE to us: the caller takes a fresh
 * snapshot and re-runs its op.
 *
 * A lock that stays is not a race: a writer holds a ref lock for
 * milliseconds, so a `<ref>.lock` that is still the same file after
 * LOCK_HELD_AFTER_MS was left by a process that died (or is stuck) and no
 * retry will get past it. That is `ref_locked`, reported at once with the
 * lock's path and age.
 */
import {statSync} from 'node:fs'
import {isAbsolute, resolve} from 'node:path'
import {git} from './git-process'
import {EnvironmentError} from '../core/errors'

export interface RefUpdate {
  ref: string
  newOid: string
  /** Expected current value; the zero id means the ref must not exist; absent: whatever it is (no compare). */
  oldOid?: string
  message: string
}

export type RefUpdateOutcome = {ok: true} | {ok: false; reason: 'incorrect_old_value'; detail: string}

const LOST_RACE = /cannot lock ref|is at [0-9a-f]+ but expected|reference already exists|unable to resolve reference|File exists|but expected/i

/**
 * How long one lock file may stay before it counts as held rather than
 * contended. Far above any real update (milliseconds), far below the
 * time the retry loop's backoff would otherwise spend on it.
 */
export const LOCK_HELD_AFTER_MS = 2000

/** A lock file that git could not create because it exists. */
export interface HeldLock {
  path: string
  ageMs: number
}

/** The lock file git names in `stderr` ("Unable to create '…/main.lock': File exists"), when it still exists. */
export function lockIn(stderr: string, cwd: string): HeldLock | null {
  const m = /Unable to create '([^']+\.lock)': File exists/i.exec(stderr)
  if (!m) return null
  const path = isAbsolute(m[1]!) ? m[1]! : resolve(cwd, m[1]!)
  return lockAt(path)
}

function lockAt(path: string): (HeldLock & {ino: number; mtimeMs: number}) | null {
  try {
    const st = statSync(path)
    return {path, ageMs: Math.max(0, Date.now() - st.mtimeMs), ino: st.ino, mtimeMs: st.mtimeMs}
  } catch {
    return null
  }
}

/**
 * Wait while the same lock file stays, up to LOCK_HELD_AFTER_MS of its age.
 * Returns the lock when it is held (still the same file at that age), null
 * when it went away or was replaced (another writer's: contention).
 */
export async function heldLock(lock: HeldLock): Promise<HeldLock | null> {
  const first = lockAt(lock.path)
  if (!first) return null
  for (;;) {
    const now = lockAt(lock.path)
    if (!now || now.ino !== first.ino || now.mtimeMs !== first.mtimeMs) return null
    if (now.ageMs >= LOCK_HELD_AFTER_MS) return {path: now.path, ageMs: now.ageMs}
    await new Promise((r) => setTimeout(r, Math.min(100, LOCK_HELD_AFTER_MS - now.ageMs + 5)))
  }
}

/** A lock's age for a message: seconds, then minutes, then hours. */
function formatAge(ms: number): string {
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`
  return `${Math.round(ms / 3_600_000)} h`
}

/** The `ref_locked` error: which ref, which file, how old, and how to get rid of it. */
export function refLockedError(ref: string, lock: HeldLock): EnvironmentError {
  return new EnvironmentError(
    'ref_locked',
    `${ref} is locked: ${lock.path} has existed for ${formatAge(lock.ageMs)}, so a git process that was killed (or is stuck) left it behind and retrying will not help. Run \`tasks doctor --fix\` (removes ref locks older than 10 minutes), or delete the file yourself if no git process is running in this repository.`,
    {ref, path: lock.path, age_seconds: Math.round(lock.ageMs / 1000)},
  )
}

/**
 * Move `u.ref` from `u.oldOid` to `u.newOid`. A lost race is an outcome
 * (re-run the op); a held lock throws `ref_locked`; anything else git says
 * throws `git_failed`.
 */
export async function updateRef(cwd: string, u: RefUpdate): Promise<RefUpdateOutcome> {
  const r = await git(['update-ref', '-m', u.message.split('\n')[0]!, u.ref, u.newOid, ...(u.oldOid === undefined ? [] : [u.oldOid])], {cwd})
  if (r.code === 0) return {ok: true}
  const detail = r.stderr.trim()
  const lock = lockIn(detail, cwd)
  if (lock) {
    const held = await heldLock(lock)
    if (held) throw refLockedError(u.ref, held)
  }
  if (LOST_RACE.test(detail)) return {ok: false, reason: 'incorrect_old_value', detail}
  throw new EnvironmentError('git_failed', `git update-ref failed: ${detail}`, {ref: u.ref})
}

/**
 * A compare-and-swap without a new process, for long-lived callers (`tasks
 * mcp`): one `git update-ref --stdin` kept running, each update one
 * transaction in it (`start`, `update <ref> <new> <old>`, `prepare`,
 * `commit`), so git's own lock protocol moves the ref exactly as
 * `updateRef` does, minus the process start-up (most of a CAS).
 *
 * git ends the process when a transaction fails (the ref moved, or a lock
 * is held). Then this update is settled the ordinary way: if the ref now
 * holds the new value the commit went through; otherwise one `updateRef`
 * process gives the outcome in its usual words (lost race, ref_locked).
 * The next update starts a new process. Updates are sent one at a time.
 *
 * `--stdin` takes one reflog message for the whole process, so callers use
 * this only where git writes no reflog for the ref (see ListStore).
 */
export class StdinRefUpdater {
  private child: import('node:child_process').ChildProcessWithoutNullStreams | null = null
  private lines: string[] = []
  private waiting: (() => void) | null = null
  private exited = false
  private stderr = ''
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly cwd: string,
    private readonly readRef: (ref: string) => Promise<string | null>,
    /** A `git update-ref --stdin` already started in `cwd` (bin/early-git.js), used for the first update. */
    private adopted: import('node:child_process').ChildProcessWithoutNullStreams | null = null,
  ) {}

  private start(): void {
    const {spawn} = require('node:child_process') as typeof import('node:child_process')
    const child = this.adopted ?? spawn('git', ['update-ref', '--stdin'], {cwd: this.cwd, env: {...process.env, GIT_TERMINAL_PROMPT: '0'}, stdio: ['pipe', 'pipe', 'pipe']})
    this.adopted = null
    this.child = child
    this.lines = []
    this.exited = false
    this.stderr = ''
    let buffered = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk
      let nl: number
      while ((nl = buffered.indexOf('\n')) !== -1) {
        this.lines.push(buffered.slice(0, nl))
        buffered = buffered.slice(nl + 1)
      }
      this.wake()
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => (this.stderr += chunk))
    child.on('error', () => this.died(child))
    child.on('exit', () => this.died(child))
    child.stdin.on('error', () => {})
  }

  private died(child: unknown): void {
    if (this.child !== child) return
    this.exited = true
    this.wake()
  }

  private wake(): void {
    const w = this.waiting
    this.waiting = null
    w?.()
  }

  /** The next answer line, or null when the process ended first. */
  private async line(): Promise<string | null> {
    for (;;) {
      if (this.lines.length) return this.lines.shift()!
      if (this.exited) return null
      await new Promise<void>((r) => (this.waiting = r))
    }
  }

  update(u: RefUpdate): Promise<RefUpdateOutcome> {
    const run = this.queue.then(() => this.updateNow(u))
    this.queue = run.catch(() => {})
    return run
  }

  private async updateNow(u: RefUpdate): Promise<RefUpdateOutcome> {
    if (!this.child || this.exited) this.start()
    const child = this.child!
    child.stdin.write(`start\nupdate ${u.ref} ${u.newOid}${u.oldOid === undefined ? '' : ` ${u.oldOid}`}\nprepare\ncommit\n`)
    const want = ['start: ok', 'prepare: ok', 'commit: ok']
    for (const expected of want) {
      const got = await this.line()
      if (got === expected) continue
      // The transaction failed and git ended: settle this update without it.
      this.close()
      if ((await this.readRef(u.ref)) === u.newOid) return {ok: true}
      return updateRef(this.cwd, u)
    }
    return {ok: true}
  }

  close(): void {
    const child = this.child
    this.child = null
    if (child && !this.exited) {
      child.stdin.end()
      child.kill()
    }
    this.exited = true
  }
}
