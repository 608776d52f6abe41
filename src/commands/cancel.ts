import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {TaskResult} from '../app/task-actions'
import type {BatchResult} from '../app/batch-actions'
import {engine} from './engine-loader'
import type {TaskView} from '../core/task-view'
import type {Terminal} from '../render/terminal'

type Item = {task: TaskView; subitems: TaskView[]}
type Output = (TaskResult & {subitems: TaskView[]}) | BatchResult<Item>

export default class Cancel extends TasksCommand<Output> {
  static override summary = 'Cancel tasks (final), with a reason; their open sub-items are cancelled too.'
  static override description = 'Several ids are one commit, all or nothing: if one is refused, nothing is written and the error names it.'
  static override examples = ['<%= config.bin %> cancel tsk-k3v9 --reason "superseded by tsk-8d2q"', '<%= config.bin %> cancel tsk-k3v9 tsk-p0ab -r "out of scope"']
  static override strict = false
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task ids or unique prefixes (one or more)'})}
  static override flags = {
    reason: Flags.string({char: 'r', description: 'Why it is cancelled.', required: true}),
    force: Flags.boolean({description: 'Cancel even though someone else holds it (recorded in history).'}),
  }

  protected async execute(): Promise<Output> {
    const {argv, flags} = await this.parse(Cancel)
    this.flagsForSession = flags
    return engine().batch.cancel(await this.openSession(), argv as string[], flags.reason)
  }

  protected render(r: Output, term: Terminal): string {
    const items: Item[] = 'results' in r ? r.results : [r]
    return items.flatMap((i) => [i.task, ...i.subitems]).map((t) => engine().render.renderTaskLine(term, 'cancelled', t)).join('')
  }
}
