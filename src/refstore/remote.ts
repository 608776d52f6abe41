/**
 * The shared remote: fetch one list's ref into its remote-tracking ref and
 * push a new commit with an exact-old-value lease, so a push lands only if
 * the remote still holds the commit the op was computed on. Explicit
 * refspecs only: ordinary `git fetch`/`git push` of branches are untouched,
 * and nothing here ever changes a branch.
 *
 * Must never: push without a lease, or report success for a push git did
 * not accept.
 */
import {EnvironmentError} from '../core/errors'
import {git} from './git-process'

export function trackingRef(remote: string, list: string): string {
  return `refs/remotes/${remote}/tasks/${list}`
}

const UNREACHABLE = /Could not read from remote|does not appear to be a git repository|unable to access|Connection refused|Could not resolve host|No such file or directory|not found|unable to connect|Permission denied/i

/** The line of git's stderr that says what went wrong (its first `fatal:`/`error:`), not its generic advice. */
export function gitReason(detail: string): string {
  const lines = detail.split('\n').map((l) => l.trim()).filter(Boolean)
  const line = lines.find((l) => /^(fatal|error):/i.test(l)) ?? lines[0] ?? 'unknown error'
  return line.replace(/^(fatal|error):\s*/i, '').replace(/\.$/, '')
}

function unreachable(remote: string, detail: string): EnvironmentError {
  return new EnvironmentError('remote_unreachable', `cannot reach remote "${remote}": ${gitReason(detail)}. Work offline with --offline (or TASKS_OFFLINE=1) and run \`tasks sync\` later.`, {
    remote,
    detail,
  })
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
export async function fetchList(cwd: string, remote: string, list: string, readRef?: ReadRef): Promise<string | null> {
  const ref = `refs/tasks/${list}`
  const tracking = trackingRef(remote, list)
  // One ref, explicitly: no tags, no FETCH_HEAD, no submodules, and none of
  // fetch's after-work (forced-update scan, auto maintenance) on this hot path.
  const args = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--no-show-forced-updates', '--no-auto-maintenance', remote, `+${ref}:${tracking}`]
  let r = await git(args, {cwd})
  // Another process of this clone fetching at the same moment holds the tracking ref's lock: its fetch is as good as ours.
  for (let i = 0; i < 10 && r.code !== 0 && /cannot lock ref|Unable to create .*\.lock|but expected/i.test(r.stderr); i++) {
    await new Promise((done) => setTimeout(done, 10 + Math.random() * 40))
    r = await git(args, {cwd})
  }
  if (r.code !== 0) {
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
 * success the tracking ref is moved too.
 */
export async function pushList(cwd: string, remote: string, list: string, newOid: string, expectedOld: string | null): Promise<PushOutcome> {
  const ref = `refs/tasks/${list}`
  const r = await git(['push', '--porcelain', '--quiet', '--no-verify', `--force-with-lease=${ref}:${expectedOld ?? ''}`, remote, `${newOid}:${ref}`], {cwd})
  const rejected = r.stdout.split('\n').find((l) => l.startsWith('!'))
  if (r.code === 0 && !rejected) {
    await git(['update-ref', trackingRef(remote, list), newOid], {cwd})
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
