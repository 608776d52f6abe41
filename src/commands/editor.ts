/**
 * Opening the user's editor on a template, as `git commit` does: only when
 * stdin and stdout are both terminals (an agent or a pipe never waits on an
 * editor); $VISUAL, else $EDITOR, else vi, run through `sh -c` so an editor
 * with arguments (`code --wait`) works. The file lives in a temporary
 * directory and is removed afterwards.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {EnvironmentError, UsageError} from '../core/errors'
import {commentTemplate, editTemplate, parseCommentTemplate, parseEditTemplate} from '../core/edit-template'
import type {Session} from '../app/session'
import type {TaskResult} from '../app/task-results'
import {engine} from './engine-loader'
import {readInputFile} from './input-file'

/** Whether a person is at a terminal who can use an editor. */
export function interactive(): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY)
}

/** Let the user edit `template` (saved as `name`); returns the saved text. */
export function editInEditor(template: string, name: string): string {
  const editor = process.env.VISUAL || process.env.EDITOR || 'vi'
  const dir = mkdtempSync(join(tmpdir(), 'git-tasks-edit-'))
  const file = join(dir, name)
  try {
    writeFileSync(file, template)
    const r = spawnSync('sh', ['-c', `${editor} "$@"`, editor, file], {stdio: 'inherit'})
    if (r.error || r.status !== 0) {
      const why = r.error ? `could not start (${r.error.message})` : r.signal ? `was killed (${r.signal})` : `exited with status ${r.status}`
      throw new EnvironmentError('editor_failed', `the editor "${editor}" ${why}; nothing was written (set VISUAL or EDITOR)`, {editor})
    }
    // Bounded like any file handed in (the largest description a list allows); the op checks the list's own limit.
    return readInputFile(file, 'body')
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** `tasks edit ID` on a terminal: the title and description in the editor; only what changed is written. */
export async function editTaskInEditor(session: Session, id: string, ifRevision?: number, reason?: string): Promise<TaskResult & {fields: string[]}> {
  const current = await engine().listing.show(session, {id})
  const template = editTemplate(current.task.id, current.task.title, current.body ?? '')
  const edited = parseEditTemplate(editInEditor(template, `${current.task.id}.md`), template)
  if (!edited) throw new UsageError('the file was left empty: edit aborted, nothing written', {id: current.task.id}, 'edit_aborted')
  if (!edited.title) throw new UsageError('the first line (the title) was left empty: edit aborted, nothing written', {id: current.task.id}, 'edit_aborted')
  const title = edited.title !== current.task.title ? edited.title : undefined
  const body = edited.body.trimEnd() !== (current.body ?? '').trimEnd() ? edited.body : undefined
  if (title === undefined && body === undefined) return {task: current.task, fields: [], commit: null}
  const saved = `${edited.title}\n\n${edited.body}`
  return keepTextOnFailure(saved, current.task.id, () => engine().cards.edit(session, {id: current.task.id, title, body, ifRevision, reason}))
}

/**
 * Run `write`; if it fails, what the user typed in the editor is not lost:
 * it is saved to a file in the temporary directory, named in the error
 * (message and `saved` in --json), as git keeps .git/COMMIT_EDITMSG.
 */
export async function keepTextOnFailure<T>(text: string, id: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    const e = error as Error & {data?: Record<string, unknown>}
    const file = join(tmpdir(), `git-tasks-${id.replace(/[^\w-]/g, '')}-${process.pid}.md`)
    try {
      writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`)
      e.message = `${e.message} (your text is saved in ${file})`
      if (e.data && typeof e.data === 'object') e.data.saved = file
    } catch {
      // Keep the original error.
    }
    throw e
  }
}

/** `tasks comment ID` on a terminal: the comment text from the editor. */
export function commentFromEditor(id: string, kind: string): string {
  const template = commentTemplate(id, kind)
  const text = parseCommentTemplate(editInEditor(template, 'COMMENT.md'), template)
  if (text === null) throw new UsageError('the comment was left empty: nothing posted', {id}, 'edit_aborted')
  return text
}
