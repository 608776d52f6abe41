/**
 * Turn anything thrown into a TasksError: ours pass through, oclif's parse
 * errors become usage errors (exit 2), anything else is an internal bug
 * (exit 1) with a message that says how to report it.
 */
import {EXIT, TasksError, UsageError} from '../core/errors'

export function toTasksError(err: Error & {oclif?: {exit?: number}; code?: unknown}): TasksError {
  if (err instanceof TasksError) return err
  // The command bundle has its own copy of the error classes: recognise them by shape.
  const shaped = err as Partial<TasksError>
  if (typeof shaped.code === 'string' && typeof shaped.exitCode === 'number' && typeof shaped.toJSON === 'function') return err as TasksError
  const name = err.constructor?.name ?? ''
  if (err.oclif?.exit === 2 || /Flag|Arg|Parse|Validation/i.test(name) || /^(Nonexistent flag|Unexpected argument|Missing \d+ required arg|Expected )/m.test(err.message)) {
    // oclif puts what is wrong on the following lines ("Missing 1 required arg:\ntitle  one-line title"); keep them, minus help hints.
    const lines = err.message.replace(/^Error: /, '').split('\n').map((l) => l.trim()).filter((l) => l && !/^See more help with/.test(l))
    return new UsageError(lines.join(' '), {}, 'usage')
  }
  return new TasksError('internal', EXIT.error, `internal error: ${err.message}. This is a bug in git-tasks; please report it with the command you ran (TASKS_DEBUG=1 prints the stack).`)
}
