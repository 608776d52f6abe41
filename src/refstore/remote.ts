/**
 * The shared remote: fetch one list's ref into its remote-tracking ref and
 * push a new commit with an exact-old-value lease, so a push lands only if
 * the remote still holds the commit the op was computed on. Explicit
 * refspecs only: ordinary `git fetch`/`git push` of branches are untouched,
 * and nothing here ever changes a branch.
 *
 * Every network call is bounded (NetworkLimits): idle limits git and ssh
 * enforce themselves, and a hard deadline after which the whole git process
 * group is killed. Running out of time is `remote_timeout`.
 *
 * Must never: push without a lease, report success for a push git did not
 * accept, or wait on a remote without a bound.
 */
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {EnvironmentError, UsageError} from '../core/errors'
import {isValidListName} from '../core/store-layout'
import {formatDuration, parseDuration} from '../core/duration'
import {git, gitOk} from './git-process'
import {heldLock, lockIn, refLockedError} from './ref-transaction'
import {configMayMention, readConfig} from './repository'

/**
 * Where this clone keeps its copy of a remote's list: outside `refs/remotes/`
 * (there git shows it in `git branch -r`, `git fetch --prune` deletes it and
 * `git checkout tasks/main` makes a branch of it) and outside `refs/tasks/`
 * (where it could collide with a list name and a wildcard push would
 * publish it). A list name is one ref component, so the last component is
 * always the list, whatever the remote is called.
 */
export function trackingRef(remote: string, list: string): string {
  return `${TRACKING_NAMESPACE}${remote}/${list}`
}

/** The namespace of every tracking ref (`refs/tasks-remote/<remote>/<list>`). */
export const TRACKING_NAMESPACE = 'refs/tasks-remote/'

/** Where versions before 0.2 kept the tracking ref. */
export function legacyTrackingRef(remote: string, list: string): string {
  return `refs/remotes/${remote}/tasks/${list}`
}

const LEGACY_TRACKING = /^refs\/remotes\/(.+)\/tasks\/([A-Za-z0-9][A-Za-z0-9._-]*)$/
const MIGRATED_MARKER = 'tracking-refs-moved'

/**
 * Move tracking refs an older version left under `refs/remotes/<remote>/tasks/<list>`
 * to `refs/tasks-remote/<remote>/<list>`, once per repository (a marker in
 * `<common-dir>/git-tasks/` records that it was done, so later calls cost
 * one stat). Only refs whose commit holds a `meta.yaml` at its root are
 * moved: a branch someone named `tasks/<x>` on the remote is left alone. A
 * new-style ref that already exists is kept (it is newer); the old one is
 * deleted either way. One `git update-ref --stdin` transaction; if it
 * fails (a concurrent update), nothing is marked and the next call tries
 * again. Returns what was moved.
 */
export async function migrateTrackingRefs(cwd: string, commonDir: string): Promise<Array<{from: string; to: string}>> {
  const marker = join(commonDir, 'git-tasks', MIGRATED_MARKER)
  if (existsSync(marker)) return []
  const listing = await git(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/remotes/', TRACKING_NAMESPACE], {cwd})
  if (listing.code !== 0) return []
  const existing = new Set<string>()
  const candidates: Array<{from: string; to: string; oid: string}> = []
  for (const line of listing.stdout.split('\n').filter(Boolean)) {
    const [ref, oid] = line.split(' ') as [string, string]
    if (ref.startsWith(TRACKING_NAMESPACE)) existing.add(ref)
    const m = LEGACY_TRACKING.exec(ref)
    if (m && isValidListName(m[2]!)) candidates.push({from: ref, to: trackingRef(m[1]!, m[2]!), oid})
  }
  const moved: Array<{from: string; to: string}> = []
  if (candidates.length > 0) {
    const check = await git(['cat-file', '--batch-check=%(objecttype)'], {cwd, input: candidates.map((c) => `${c.oid}:meta.yaml\n`).join('')})
    const kinds = check.stdout.split('\n')
    const lists = candidates.filter((_, i) => kinds[i] === 'blob')
    if (lists.length > 0) {
      const script = lists.flatMap((c) => [...(existing.has(c.to) ? [] : [`create ${c.to} ${c.oid}`]), `delete ${c.from} ${c.oid}`]).join('\n')
      const r = await git(['update-ref', '--stdin'], {cwd, input: `${script}\n`})
      if (r.code !== 0) return []
      moved.push(...lists.map(({from, to}) => ({from, to})))
    }
  }
  try {
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    writeFileSync(marker, '')
  } catch {
    // Not recorded: the next call looks again (and finds nothing to move).
  }
  return moved
}

export const UNREACHABLE = /Could not read from remote|does not appear to be a git repository|unable to access|Connection refused|Could not resolve host|No such file or directory|not found|unable to connect|Permission denied/i

/** The line of git's stderr that says what went wrong (its first `fatal:`/`error:`), not its generic advice. */
export function gitReason(detail: string): string {
  const lines = detail.split('\n').map((l) => l.trim()).filter(Boolean)
  const line = lines.find((l) => /^(fatal|error):/i.test(l)) ?? lines[0] ?? 'unknown error'
  return line.replace(/^(fatal|error):\s*/i, '').replace(/\.$/, '')
}

export function unreachable(remote: string, detail: string): EnvironmentError {
  return new EnvironmentError('remote_unreachable', `cannot reach remote "${remote}": ${gitReason(detail)}. Work offline with --offline (or TASKS_OFFLINE=1) and run \`tasks sync\` later.`, {
    remote,
    detail,
  })
}

/** Default hard deadline of one network git call made by a mutation. */
export const MUTATION_TIMEOUT_MS = 30_000
/** Default for `tasks sync` (and `init --remote`): a first sync may fetch a whole list's history. */
export const SYNC_TIMEOUT_MS = 120_000

/** How long one network git call may take, and how. */
export interface NetworkLimits {
  /** Hard deadline per git call in ms (0: none); then the git process group is killed. */
  deadlineMs: number
  /** Git config (`-c`) for http(s): abort when nothing arrives for this long. */
  config: string[]
  /** Environment for ssh (GIT_SSH_COMMAND), only when the user set no ssh command of their own. */
  env: Record<string, string>
  /** Where the deadline came from, for the error message. */
  source: string
}

/**
 * The limits for network calls: the deadline is TASKS_REMOTE_TIMEOUT, else
 * git config `tasks.remoteTimeout`, else `defaultMs` (30 s for a mutation,
 * 120 s for sync); `0` turns the deadline off (the idle limits stay). The
 * idle limit is half the deadline, at most 15 s: http(s) through
 * http.lowSpeedLimit/lowSpeedTime, ssh through ConnectTimeout and
 * ServerAlive* options, unless GIT_SSH_COMMAND, GIT_SSH or core.sshCommand
 * is set (the user's own ssh command is used as it is). git:// has no idle
 * setting in git: only the deadline bounds it.
 */
export async function networkLimits(cwd: string, defaultMs: number, commonDir?: string): Promise<NetworkLimits> {
  const userSsh = Boolean(process.env.GIT_SSH_COMMAND || process.env.GIT_SSH)
  const fromEnv = process.env.TASKS_REMOTE_TIMEOUT
  // No config file that names either key (configMayMention: one read of each, no process): nothing to ask git.
  const none = (fromEnv !== undefined && userSsh) || (commonDir !== undefined && !configMayMention(commonDir, /sshcommand|remotetimeout/i))
  const config = none ? new Map<string, string>() : await readConfig(cwd, '^(core\\.sshcommand|tasks\\.remotetimeout)$')
  let deadlineMs = defaultMs
  let source = 'the default'
  const setting = fromEnv ?? config.get('tasks.remotetimeout')
  if (setting !== undefined) {
    const parsed = parseDuration(setting)
    const name = fromEnv !== undefined ? 'TASKS_REMOTE_TIMEOUT' : 'git config tasks.remoteTimeout'
    if (parsed === null) {
      throw new UsageError(`${name}="${setting}" is not a duration: use e.g. 30s, 2m or 1500ms (0 turns the deadline off)`, {setting: name, value: setting}, 'bad_remote_timeout')
    }
    deadlineMs = parsed
    source = name
  }
  const idleS = Math.max(1, Math.min(15, Math.ceil((deadlineMs || 30_000) / 2000)))
  const env: Record<string, string> = {}
  if (!userSsh && !config.get('core.sshcommand')) {
    env.GIT_SSH_COMMAND = `ssh -o ConnectTimeout=${Math.min(10, idleS)} -o ServerAliveInterval=${Math.max(1, Math.ceil(idleS / 3))} -o ServerAliveCountMax=3`
  }
  return {deadlineMs, config: ['-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${idleS}`], env, source}
}

/** No deadline and no idle limits: for callers that do not say (tests of the plain git behaviour). */
const UNBOUNDED: NetworkLimits = {deadlineMs: 0, config: [], env: {}, source: 'none'}

/** What git says when its own idle or connect limit ran out (curl, ssh). */
const TIMED_OUT = /Operation too slow|Operation timed out|Connection timed out|timed out during banner exchange|Timeout, server .* not responding/i

function remoteTimeout(remote: string, operation: 'fetch' | 'push', limits: NetworkLimits, waitedMs: number, detail: string): EnvironmentError {
  const bound = limits.deadlineMs > 0 ? `within ${formatDuration(limits.deadlineMs)} (${limits.source})` : 'in time'
  const after =
    operation === 'push'
      ? 'The push may or may not have reached it; the next command (or `tasks sync`) finds out and nothing is lost.'
      : 'Nothing was changed locally.'
  return new EnvironmentError(
    'remote_timeout',
    `remote "${remote}" did not answer ${bound}: git ${operation} gave up after ${formatDuration(Math.round(waitedMs / 100) * 100)}. ${after} Work offline with --offline (or TASKS_OFFLINE=1) and run \`tasks sync\` later, or allow longer with git config tasks.remoteTimeout (or TASKS_REMOTE_TIMEOUT).`,
    {remote, operation, timeout_seconds: limits.deadlineMs / 1000, waited_seconds: Math.round(waitedMs / 100) / 10, ...(detail ? {detail} : {})},
  )
}

/** Run one network git call within `limits`; a timeout (ours or git's own) throws remote_timeout. */
export async function networkGit(cwd: string, remote: string, operation: 'fetch' | 'push', args: string[], limits: NetworkLimits) {
  const started = Date.now()
  const r = await git([...limits.config, ...args], {cwd, env: limits.env, deadlineMs: limits.deadlineMs})
  if (r.timedOut || (r.code !== 0 && TIMED_OUT.test(r.stderr))) throw remoteTimeout(remote, operation, limits, Date.now() - started, r.stderr.trim())
  return r
}

/** Resolve a ref name to a commit id (null: no such ref). */
export type ReadRef = (ref: string) => Promise<string | null>

async function revParse(cwd: string, ref: string): Promise<string | null> {
  const rp = await git(['rev-parse', '--verify', '-q', `${ref}^{commit}`], {cwd})
  return rp.code === 0 ? rp.stdout.trim() : null
}

/**
 * Fetch `refs/tasks/<list>` from `remote` into its tracking ref. Returns the
 * remote's commit id, or null when the remote has no such list yet. The
 * tracking ref is read with `readRef` when given (a batch reader already
 * running), else with `git rev-parse`.
 */
export async function fetchList(cwd: string, remote: string, list: string, readRef?: ReadRef, limits: NetworkLimits = UNBOUNDED, claims = false): Promise<string | null> {
  const ref = `refs/tasks/${list}`
  const tracking = trackingRef(remote, list)
  // One ref, explicitly: no tags, no FETCH_HEAD, no submodules, and none of
  // fetch's after-work (forced-update scan, auto maintenance) on this hot path.
  // With `claims`, also the list's pending per-item changes (claim-refs.ts), pruning copies of those that are gone.
  const args = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--no-show-forced-updates', '--no-auto-maintenance', ...(claims ? ['--prune'] : []), remote, `+${ref}:${tracking}`, ...(claims ? [`+refs/tasks-claims/${list}/*:refs/tasks-claims-remote/${remote}/${list}/*`] : [])]
  let r = await networkGit(cwd, remote, 'fetch', args, limits)
  // Another process of this clone fetching at the same moment holds the tracking ref's lock: its fetch is as good as ours.
  // A lock that stays was left by a dead process: that is ref_locked, not contention and not an unreachable remote.
  for (let i = 0; i < 10 && r.code !== 0 && /cannot lock ref|Unable to create .*\.lock|but expected/i.test(r.stderr); i++) {
    const lock = lockIn(r.stderr, cwd)
    const held = lock && (await heldLock(lock))
    if (held) throw refLockedError(tracking, held)
    await new Promise((done) => setTimeout(done, 10 + Math.random() * 40))
    r = await networkGit(cwd, remote, 'fetch', args, limits)
  }
  if (r.code !== 0) {
    const lock = lockIn(r.stderr, cwd)
    if (lock) throw refLockedError(tracking, lock)
    if (/couldn't find remote ref|no such ref/i.test(r.stderr)) {
      // The remote has no list: drop a stale tracking ref so it cannot mislead.
      await git(['update-ref', '-d', tracking], {cwd})
      return null
    }
    throw unreachable(remote, r.stderr.trim())
  }
  return readRef ? readRef(tracking) : revParse(cwd, tracking)
}

/**
 * stale: someone else pushed first (the lease did not hold): re-run the op.
 * declined: the server refused the update itself (a hook, a protected ref):
 * retrying a few times covers a transient refusal, then it is reported.
 */
export type PushOutcome = {ok: true} | {ok: false; reason: 'stale' | 'declined'; detail: string}

/**
 * Push `newOid` to `refs/tasks/<list>` on `remote` if and only if the remote
 * still holds `expectedOld` (null: the remote must not have the ref). On
 * success the tracking ref is moved too (with `setRef` when given: a
 * long-lived store moves it through its kept `update-ref --stdin`).
 */
export async function pushList(
  cwd: string,
  remote: string,
  list: string,
  newOid: string,
  expectedOld: string | null,
  limits: NetworkLimits = UNBOUNDED,
  setRef: (ref: string, oid: string) => Promise<unknown> = (ref, oid) => git(['update-ref', ref, oid], {cwd}),
): Promise<PushOutcome> {
  const ref = `refs/tasks/${list}`
  const r = await networkGit(cwd, remote, 'push', ['push', '--porcelain', '--quiet', '--no-verify', `--force-with-lease=${ref}:${expectedOld ?? ''}`, remote, `${newOid}:${ref}`], limits)
  const rejected = r.stdout.split('\n').find((l) => l.startsWith('!'))
  if (r.code === 0 && !rejected) {
    await setRef(trackingRef(remote, list), newOid)
    return {ok: true}
  }
  const text = `${r.stdout}\n${r.stderr}`
  // A server-side lost race ("failed to update ref: cannot lock ref … but expected …") is stale, not a refusal.
  const race = /cannot lock ref|but expected|stale info|fetch first|non-fast-forward|incorrect old value/i
  if (rejected && !race.test(text) && /hook declined|declined|denied|protected|not allowed|remote rejected/i.test(rejected)) {
    const hook = r.stderr.split('\n').filter((l) => /^remote:/.test(l)).map((l) => l.replace(/^remote:\s*/, '').trim()).filter(Boolean).join(' ')
    return {ok: false, reason: 'declined', detail: `${rejected.split('\t').pop()?.trim() ?? 'rejected'}${hook ? `: ${hook}` : ''}`}
  }
  if (rejected || /stale info|fetch first|non-fast-forward|rejected|failed to update ref|cannot lock ref|incorrect old value/i.test(text)) {
    return {ok: false, reason: 'stale', detail: (rejected ?? r.stderr).trim()}
  }
  if (UNREACHABLE.test(text)) throw unreachable(remote, r.stderr.trim())
  throw new EnvironmentError('push_failed', `git push to ${remote} failed: ${r.stderr.trim().split('\n').pop() ?? `exit ${r.code}`}`, {remote, detail: r.stderr.trim()})
}

/**
 * Local commits not on the remote from which packUnpublished packs their
 * objects (fewer: the push's own packing is quick, and a pack a sync would
 * be waste). `TASKS_PREPACK_COMMITS` sets another (the tests use 2).
 */
const PREPACK_COMMITS = 32

function prepackCommits(): number {
  const v = Number(process.env.TASKS_PREPACK_COMMITS)
  return Number.isSafeInteger(v) && v > 0 ? v : PREPACK_COMMITS
}

/** A `git pack-objects` started by packUnpublished: `done` when it has ended (never rejects); `cancel` stops it. */
export interface Prepack {
  done: Promise<void>
  cancel(): void
}

/**
 * Pack this clone's objects that a push of `tip` over `published` will send
 * (`git pack-objects --revs --local --incremental`, one thread), in the
 * background, so that the push reuses the deltas found here instead of
 * searching for them while the caller waits. The objects a mutation writes
 * are loose, so after a long offline run (thousands of them) the push's
 * delta search is a large part of a sync (docs/scale.md, "`sync` of 1,000
 * changes on each side").
 * Started before the fetch, it runs beside the fetch and the merge. Only
 * when `tip` has at least PREPACK_COMMITS commits that `published` lacks.
 * Nothing fails: the push packs whatever it must itself.
 */
export function packUnpublished(cwd: string, objectsDir: string, tip: string, published: string): Prepack {
  const stop = new AbortController()
  const done = (async () => {
    try {
      const {ahead} = await aheadBehind(cwd, tip, published)
      if (ahead < prepackCommits() || stop.signal.aborted) return
      // git removes its temporary pack files when it is stopped.
      await git(['pack-objects', '--revs', '--local', '--incremental', '--delta-base-offset', '--threads=1', '-q', join(objectsDir, 'pack', 'pack')], {cwd, input: `${tip}\n^${published}\n`, signal: stop.signal})
    } catch {
      // Only a head start for the push (stopped, or git failed).
    }
  })()
  return {done, cancel: () => stop.abort()}
}

/** True when the named remote exists in this repository's config. */
export async function remoteExists(cwd: string, remote: string): Promise<boolean> {
  const r = await git(['remote', 'get-url', remote], {cwd})
  return r.code === 0
}

/**
 * How two commits relate: 'same', 'ahead' (a contains b), 'behind' (b
 * contains a) or 'diverged' with their merge base (null: unrelated histories).
 */
export async function relate(cwd: string, a: string, b: string): Promise<{kind: 'same'} | {kind: 'ahead'} | {kind: 'behind'} | {kind: 'diverged'; base: string | null}> {
  if (a === b) return {kind: 'same'}
  const r = await git(['merge-base', a, b], {cwd})
  const base = r.code === 0 ? r.stdout.trim() : null
  if (base === b) return {kind: 'ahead'}
  if (base === a) return {kind: 'behind'}
  return {kind: 'diverged', base}
}

/** Commits only in `a` (ahead) and only in `b` (behind): one `git rev-list --left-right --count`. */
export async function aheadBehind(cwd: string, a: string, b: string): Promise<{ahead: number; behind: number}> {
  const r = await gitOk(['rev-list', '--left-right', '--count', `${a}...${b}`], {cwd})
  const [ahead, behind] = r.trim().split(/\s+/).map(Number) as [number, number]
  return {ahead, behind}
}

/** Every ref under the given prefixes with its commit (one `git for-each-ref`). */
export async function listRefs(cwd: string, prefixes: string[]): Promise<Array<{ref: string; oid: string}>> {
  const out = await gitOk(['for-each-ref', '--format=%(refname) %(objectname)', ...prefixes], {cwd})
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [ref, oid] = line.split(' ') as [string, string]
      return {ref, oid}
    })
}

/** The names of this repository's remotes (`git remote`). */
export async function remoteNames(cwd: string): Promise<string[]> {
  const r = await git(['remote'], {cwd})
  return r.code === 0 ? r.stdout.split('\n').map((l) => l.trim()).filter(Boolean) : []
}

/** A remote's fetch URL (`git remote get-url`), or null. */
export async function remoteUrl(cwd: string, remote: string): Promise<string | null> {
  const r = await git(['remote', 'get-url', remote], {cwd})
  return r.code === 0 ? r.stdout.trim() || null : null
}

/**
 * Whether `remote` has `ref`, asked with `git ls-remote` within `limits`.
 * Null when the remote could not be asked (unreachable, timed out): the
 * callers only improve a message with this, so it never throws.
 */
export async function lsRemoteList(cwd: string, remote: string, ref: string, limits: NetworkLimits = UNBOUNDED): Promise<string | null> {
  const r = await git([...limits.config, 'ls-remote', '--refs', remote, ref], {cwd, env: limits.env, deadlineMs: limits.deadlineMs})
  if (r.code !== 0 || r.timedOut) return null
  const line = r.stdout.split('\n').find((l) => l.endsWith(`\t${ref}`))
  return line ? line.split('\t')[0]! : null
}

function fetchNotePath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `fetched-${list}`)
}

/**
 * Note when this clone last fetched `list` from `remote` (`<common-dir>/git-tasks/fetched-<list>`), and how
 * many pending changes of others that fetch found when it is known; best-effort.
 */
export function recordFetch(commonDir: string, remote: string, list: string, at = new Date(), pending?: number): void {
  try {
    const path = fetchNotePath(commonDir, list)
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify({remote, at: at.toISOString(), ...(pending === undefined ? {} : {pending})})}\n`)
    renameSync(tmp, path)
  } catch {
    // Bookkeeping (`tasks remote`, and whether a change may skip its fetch): without it, the next change fetches.
  }
}

/** The fetch note of `list` when it is about `remote`: when (ISO-8601) and, if noted, how many pending changes it found. */
function fetchNote(commonDir: string, remote: string, list: string): {at: string; pending: number | undefined} | null {
  try {
    const note = JSON.parse(readFileSync(fetchNotePath(commonDir, list), 'utf8')) as {remote?: unknown; at?: unknown; pending?: unknown}
    if (note.remote !== remote || typeof note.at !== 'string') return null
    return {at: note.at, pending: typeof note.pending === 'number' ? note.pending : undefined}
  } catch {
    return null
  }
}

/** Whether this clone's last fetch of `list` from `remote` was at most `withinMs` ago and found at least `pending` pending changes. */
export function fetchedBusy(commonDir: string, remote: string, list: string, withinMs: number, pending: number, now = Date.now()): boolean {
  const note = fetchNote(commonDir, remote, list)
  if (!note || note.pending === undefined) return false
  const age = now - Date.parse(note.at)
  return age >= 0 && age <= withinMs && note.pending >= pending
}

/** When this clone last fetched `list` from `remote` (ISO-8601), or null when not noted. */
export function lastFetch(commonDir: string, remote: string, list: string): string | null {
  return fetchNote(commonDir, remote, list)?.at ?? null
}
