import {Args, Flags} from '@oclif/core'
import {TasksCommand, revisionFlag} from './base-command'
import type {TaskResult} from '../app/task-actions'
import type {BatchResult} from '../app/batch-actions'
import type {TaskView} from '../core/task-view'
import {engine} from './engine-loader'
import {UsageError} from '../core/errors'
import {normaliseIdInput} from '../core/ids'
import type {Terminal} from '../render/terminal'

type Output = TaskResult | BatchResult<{task: TaskView}>

export default class Assign extends TasksCommand<Output> {
  static override summary = 'Reserve tasks for an actor (only they may claim them), or --none to clear.'
  static override description =
    'The last argument is the assignee, as with `mv`; with --none every argument is an id. Several ids are one commit, all or nothing.'
  static override examples = [
    '<%= config.bin %> assign tsk-k3v9 agent-2',
    '<%= config.bin %> assign tsk-k3v9 tsk-8d2q agent-2',
    '<%= config.bin %> assign tsk-k3v9 --none',
  ]
  static override strict = false
  static override args = {
    id: Args.string({ignoreStdin: true, required: true, description: 'task ids or unique prefixes (one or more)'}),
    assignee: Args.string({ignoreStdin: true, description: 'actor to reserve them for (the last argument)'}),
  }
  static override flags = {none: Flags.boolean({description: 'Clear the assignee.'}), ...revisionFlag}

  protected async execute(): Promise<Output> {
    const {argv, flags} = await this.parse(Assign)
    this.flagsForSession = flags
    const words = argv as string[]
    if (!flags.none && words.length < 2) throw new UsageError('pass an ASSIGNEE, or --none to clear the assignee')
    if (flags.none && words.length > 1 && !isIdInput(words.at(-1)!)) throw new UsageError('pass an ASSIGNEE, or --none to clear the assignee, not both')
    const ids = flags.none ? words : words.slice(0, -1)
    return engine().batch.assign(await this.openSession(), ids, flags.none ? null : words.at(-1)!, flags['if-revision'])
  }

  protected render(r: Output, term: Terminal): string {
    const items = 'results' in r ? r.results : [r]
    return items.map((i) => engine().render.renderTaskLine(term, i.task.assignee ? `assigned to ${i.task.assignee}:` : 'unassigned', i.task)).join('')
  }
}

/** Whether an argument could name a task (so `assign ID bob --none` is read as both an assignee and --none). */
function isIdInput(word: string): boolean {
  try {
    normaliseIdInput(word)
    return true
  } catch {
    return false
  }
}
