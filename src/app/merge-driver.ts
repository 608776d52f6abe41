/**
 * The git merge driver (`merge.tasks.driver`): git calls it with the three
 * versions of one file and expects the result written over "ours". The same
 * field-level rules as `tasks sync` apply (src/merge), so a person merging a
 * checked-out tasks branch with plain git gets no conflict markers in task
 * files. Files the merge adds (a comment that keeps a losing description)
 * are written into the work tree beside it, to be committed with the merge.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {mergeFiles} from '../merge/index'

export interface DriverResult {
  path: string
  clean: boolean
  extra_files: string[]
  notes: string[]
}

function readOrNull(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null
}

export function runMergeDriver(basePath: string, oursPath: string, theirsPath: string, path: string, now: string, workTree: string): DriverResult {
  const base = readOrNull(basePath)
  const merged = mergeFiles([{path, base: base === '' ? null : base, ours: readOrNull(oursPath), theirs: readOrNull(theirsPath)}], {now, published: 'theirs'})
  // Two tasks created with one id: the merge would move one of them to a new
  // id, but git merges its comment files (and other tasks' references to it)
  // without the driver, so they would stay with the other task. Leave the
  // conflict to git; `tasks sync` moves the whole task.
  const collision = merged.notes.find((n) => n.kind === 'id_collision')
  if (collision) {
    return {path, clean: false, extra_files: [], notes: [`${collision.message}; a plain git merge cannot move its comments: merge with \`tasks sync\` instead`]}
  }
  const extra: string[] = []
  for (const f of merged.files) {
    if (f.path === path) {
      if (f.content !== null) writeFileSync(oursPath, f.content)
      continue
    }
    if (f.content === null) continue
    const target = join(workTree, f.path)
    mkdirSync(dirname(target), {recursive: true})
    writeFileSync(target, f.content)
    extra.push(f.path)
  }
  return {path, clean: true, extra_files: extra, notes: merged.notes.map((n) => n.message)}
}
