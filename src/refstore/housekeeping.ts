/**
 * Housekeeping after writes, the way git's own porcelain does it: when the
 * repository looks due (more loose objects than gc.auto allows, or more
 * packs than gc.autoPackLimit), start `git maintenance run --auto` in the
 * background and do not wait for it. git makes the real decision (it reads
 * every config level, honours gc.auto=0 and maintenance.auto=false, and
 * takes its own lock); the check here only keeps a command from starting a
 * process every time. It estimates the way `git gc --auto` does: by
 * counting the loose objects in one fan-out directory (objects/17).
 *
 * Must never: slow the command down or fail it.
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {gitDetached} from './git-process'
import {readLocalConfigValue, type Repository} from './repository'

/** git's defaults for gc.auto and gc.autoPackLimit. */
const GC_AUTO_DEFAULT = 6700
const PACK_LIMIT_DEFAULT = 50

function setting(repo: Repository, key: string, fallback: number): number {
  const v = readLocalConfigValue(repo.commonDir, 'gc', key)
  const n = v === null || v === undefined ? Number.NaN : Number(v)
  return Number.isInteger(n) ? n : fallback
}

function count(dir: string, match: (name: string) => boolean): number {
  try {
    return readdirSync(dir).filter(match).length
  } catch {
    return 0
  }
}

/** Whether the object store looks due for `git gc --auto` (an estimate; git decides). */
export function maintenanceDue(repo: Repository): boolean {
  const gcAuto = setting(repo, 'auto', GC_AUTO_DEFAULT)
  if (gcAuto <= 0) return false
  const rest = repo.algorithm === 'sha1' ? 38 : 62
  const loose = count(join(repo.objectsDir, '17'), (n) => n.length === rest && /^[0-9a-f]+$/.test(n))
  if (loose > Math.ceil(gcAuto / 256)) return true
  const packLimit = setting(repo, 'autopacklimit', PACK_LIMIT_DEFAULT)
  return packLimit > 0 && count(join(repo.objectsDir, 'pack'), (n) => n.endsWith('.pack')) > packLimit
}

/** Start `git maintenance run --auto` detached when the repository looks due; returns whether it was started. */
export function autoMaintenance(repo: Repository): boolean {
  if (!maintenanceDue(repo)) return false
  gitDetached(['maintenance', 'run', '--auto', '--quiet'], repo.cwd)
  return true
}
