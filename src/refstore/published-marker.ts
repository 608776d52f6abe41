/**
 * A note that this clone published a commit but could not move its own ref
 * to it (the local ref's lock was held): `<common-dir>/git-tasks/published-<list>`
 * holds that commit id. The next command reads it and fast-forwards the
 * local ref, so a successful push never leaves the local list silently
 * behind. Derived bookkeeping like the index cache: deleting it loses
 * nothing that `tasks sync` would not restore.
 */
import {mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

function markerPath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `published-${list}`)
}

/** Remember that `commit` was published but the local ref did not follow. */
export function recordPublished(commonDir: string, list: string, commit: string): void {
  const path = markerPath(commonDir, list)
  mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, `${commit}\n`)
  renameSync(tmp, path)
}

/** The published commit the local ref has yet to follow, or null (one failed open when there is none). */
export function readPublished(commonDir: string, list: string): string | null {
  try {
    const text = readFileSync(markerPath(commonDir, list), 'utf8').trim()
    return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text) ? text : null
  } catch {
    return null
  }
}

/** Forget the note (the local ref followed, or moved on by itself). */
export function clearPublished(commonDir: string, list: string, commit: string): void {
  if (readPublished(commonDir, list) === commit) rmSync(markerPath(commonDir, list), {force: true})
}
