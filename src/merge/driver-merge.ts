/**
 * What the git merge driver does with one file, as a pure function: git
 * hands the driver three versions of one path and takes back one file and
 * an exit status, so nothing the merge would put in another file (a comment
 * keeping a losing description, a sibling path) can reach the merge commit.
 * Text that cannot be merged is therefore left in the file between git
 * conflict markers and the merge reported as conflicted; everything else is
 * merged by the same rules as `tasks sync` (docs/merge.md).
 *
 * Values in, values out: src/app/merge-driver.ts reads and writes the files.
 */
import type {ConflictLabels} from './text-merge'
import {mergeFiles} from './tree-merge'

/** Labels of the driver's conflict markers (git's own say HEAD and the branch). */
export const DRIVER_LABELS: ConflictLabels = {ours: 'ours', theirs: 'theirs'}

/** The driver's result for one path. */
export interface DriverMerge {
  /** What to write over "ours" (%A); null: leave it as it is. */
  content: string | null
  /** False: exit non-zero, so git records the path as conflicted. */
  clean: boolean
  /** What the merge decided or left, one line each, for the person merging. */
  notes: string[]
}

/** What a person does after the driver left markers, said once per file. */
export const RESOLVE_ADVICE =
  'left in conflict between <<<<<<< ours and >>>>>>> theirs markers: edit it to keep what should stay, `git add` it and commit, move the tasks ref to that commit, then run `tasks doctor`; ' +
  'or run `git merge --abort` and merge with `tasks sync`, which keeps both texts (the other one as a comment) without stopping'

/**
 * Merge one path for the git merge driver. `base` is null when the path has
 * no merge base (git passes an empty file). "theirs" is treated as the
 * published side: what is being merged in is what others have seen.
 */
export function driverMerge(path: string, base: string | null, ours: string | null, theirs: string | null, now: string): DriverMerge {
  const merged = mergeFiles([{path, base, ours, theirs}], {now, published: 'theirs', markers: DRIVER_LABELS})
  // Two tasks created with one id: the merge would move one of them to a new
  // id, but git merges its comment files (and other tasks' references to it)
  // without the driver, so they would stay with the other task. Leave the
  // conflict to git; `tasks sync` moves the whole task.
  const collision = merged.notes.find((n) => n.kind === 'id_collision')
  if (collision) {
    return {content: null, clean: false, notes: [`${collision.message}; a plain git merge cannot move its comments: run \`git merge --abort\` and merge with \`tasks sync\` instead`]}
  }
  const file = merged.files.find((f) => f.path === path)
  const notes = merged.notes.map((n) => n.message)
  const clean = !merged.conflicted.includes(path)
  if (!clean) notes.push(RESOLVE_ADVICE)
  return {content: file?.content ?? null, clean, notes}
}
