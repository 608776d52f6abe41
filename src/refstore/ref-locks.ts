/**
 * Lock files git leaves behind when a process dies while updating a ref:
 * `<ref>.lock` beside a loose ref, or `packed-refs.lock`. Only the refs this
 * tool owns are looked at: the lists (`refs/tasks/**`), their
 * remote-tracking copies (`refs/tasks-remote/**`, and the place older
 * versions used, `refs/remotes/<remote>/tasks/**`) and packed-refs.lock (which blocks deleting or packing any ref). A lock
 * younger than LOCK_HELD_AFTER_MS belongs to a write in progress and is not
 * reported; one older than STALE_LOCK_MS may be removed.
 */
import {readdirSync, rmSync, statSync} from 'node:fs'
import {join, relative, sep} from 'node:path'
import {LOCK_HELD_AFTER_MS} from './ref-transaction'

/**
 * Age from which `doctor --fix` removes a lock: ten minutes. git holds a
 * ref lock for milliseconds and packed-refs.lock for seconds even in big
 * repositories, so a lock this old has no living owner; a younger one is
 * reported (it may be a stuck process, which removing the lock would not
 * fix) but left alone.
 */
export const STALE_LOCK_MS = 600_000

export interface RefLock {
  /** Absolute path of the lock file. */
  path: string
  /** The ref it locks (`packed-refs` for packed-refs.lock). */
  ref: string
  age_seconds: number
  /** Old enough for `doctor --fix` to remove. */
  stale: boolean
  /** Removed by `doctor --fix`. */
  removed: boolean
}

function locksUnder(commonDir: string, dir: string, out: string[]): void {
  let entries
  try {
    entries = readdirSync(dir, {withFileTypes: true})
  } catch {
    return
  }
  for (const e of entries) {
    const p = join(dir, e.name)
    if (e.isDirectory()) locksUnder(commonDir, p, out)
    else if (e.name.endsWith('.lock')) out.push(p)
  }
}

/** Lock files on the task refs, their tracking refs and packed-refs that have outlived any write in progress. */
export function findRefLocks(commonDir: string, now = Date.now()): RefLock[] {
  const paths: string[] = []
  locksUnder(commonDir, join(commonDir, 'refs', 'tasks'), paths)
  locksUnder(commonDir, join(commonDir, 'refs', 'tasks-remote'), paths)
  let remotes: string[] = []
  try {
    remotes = readdirSync(join(commonDir, 'refs', 'remotes'))
  } catch {
    // No remotes.
  }
  // Older versions kept tracking refs here; a lock left on one would stop moving it.
  for (const r of remotes) locksUnder(commonDir, join(commonDir, 'refs', 'remotes', r, 'tasks'), paths)
  paths.push(join(commonDir, 'packed-refs.lock'))
  const locks: RefLock[] = []
  for (const path of paths) {
    let mtime: number
    try {
      mtime = statSync(path).mtimeMs
    } catch {
      continue
    }
    const ageMs = Math.max(0, now - mtime)
    if (ageMs < LOCK_HELD_AFTER_MS) continue
    const ref = relative(commonDir, path).split(sep).join('/').replace(/\.lock$/, '')
    locks.push({path, ref, age_seconds: Math.round(ageMs / 1000), stale: ageMs >= STALE_LOCK_MS, removed: false})
  }
  return locks.sort((a, b) => (a.path < b.path ? -1 : 1))
}

/** Remove the stale locks among `locks` (marking them removed); younger ones are left. */
export function removeStaleLocks(locks: RefLock[]): RefLock[] {
  return locks.map((l) => {
    if (!l.stale) return l
    rmSync(l.path, {force: true})
    return {...l, removed: true}
  })
}
