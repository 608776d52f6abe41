/**
 * Compare-and-swap on a ref, in git's own words: an update names the ref,
 * the new object id and the old one it must still point at (the zero id
 * meaning "must not exist yet"). `git update-ref` takes git's lock, checks
 * the old value under it and moves the ref, so other git processes and
 * worktrees are safe. A held lock (git waits core.filesRefLockTimeout, 100 ms
 * by default) and a moved ref are both an INCORRECT_OLD_VALUE to us: the
 * caller takes a fresh snapshot and re-runs its op.
 */
import {git} from './git-process'
import {EnvironmentError} from '../core/errors'

export interface RefUpdate {
  ref: string
  newOid: string
  /** Expected current value; the zero id means the ref must not exist. */
  oldOid: string
  message: string
}

export type RefUpdateOutcome = {ok: true} | {ok: false; reason: 'incorrect_old_value'; detail: string}

const LOST_RACE = /cannot lock ref|is at [0-9a-f]+ but expected|reference already exists|unable to resolve reference|File exists|but expected/i

export async function updateRef(cwd: string, u: RefUpdate): Promise<RefUpdateOutcome> {
  const r = await git(['update-ref', '-m', u.message.split('\n')[0]!, u.ref, u.newOid, u.oldOid], {cwd})
  if (r.code === 0) return {ok: true}
  const detail = r.stderr.trim()
  if (LOST_RACE.test(detail)) return {ok: false, reason: 'incorrect_old_value', detail}
  throw new EnvironmentError('git_failed', `git update-ref failed: ${detail}`, {ref: u.ref})
}
