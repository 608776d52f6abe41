import type {BatchResult, TaskResult} from '../app/task-results'
import type {TaskView} from '../core/task-view'
import {UsageError} from '../core/errors'
import {normaliseIdInput} from '../core/ids'
import {assign} from '../operations/cards'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<TaskResult | BatchResult<{task: TaskView}>>(assign, {
  // The last argument is the assignee, as with `mv`; with --none every argument is an id.
  execute: ({args, flags, run}) => {
    const words = args.id as string[]
    if (!flags.none && words.length < 2) throw new UsageError('pass an ASSIGNEE, or --none to clear the assignee')
    if (flags.none && words.length > 1 && !isIdInput(words.at(-1)!)) throw new UsageError('pass an ASSIGNEE, or --none to clear the assignee, not both')
    return run({...args, id: flags.none ? words : words.slice(0, -1), assignee: flags.none ? null : words.at(-1)!})
  },
  render: (r, term) => {
    const items = 'results' in r ? r.results : [r]
    return items.map((i) => engine().render.renderTaskLine(term, i.task.assignee ? `assigned to ${i.task.assignee}:` : 'unassigned', i.task)).join('')
  },
})

/** Whether an argument could name a task (so `assign ID bob --none` is read as both an assignee and --none). */
function isIdInput(word: string): boolean {
  try {
    normaliseIdInput(word)
    return true
  } catch {
    return false
  }
}
