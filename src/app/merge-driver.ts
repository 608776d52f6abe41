/**
 * The git merge driver (`merge.tasks.driver`): git calls it with the three
 * versions of one file and expects the result written over "ours", and a
 * non-zero exit when the file is still in conflict. The merge itself is
 * src/merge/driver-merge.ts (the rules of `tasks sync`); text it cannot merge
 * stays in the file between conflict markers, because git commits only the
 * file it handed over: a comment written beside it would never reach the
 * merge. This module only reads and writes the files.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {driverMerge} from '../merge/index'

export interface DriverResult {
  path: string
  clean: boolean
  notes: string[]
}

function readOrNull(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null
}

export function runMergeDriver(basePath: string, oursPath: string, theirsPath: string, path: string, now: string): DriverResult {
  const base = readOrNull(basePath)
  const r = driverMerge(path, base === '' ? null : base, readOrNull(oursPath), readOrNull(theirsPath), now)
  if (r.content !== null) writeFileSync(oursPath, r.content)
  return {path, clean: r.clean, notes: r.notes}
}
