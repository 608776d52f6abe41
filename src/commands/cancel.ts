import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {TaskView} from '../core/task-view'
import type {Terminal} from '../render/terminal'

type Output = TaskResult & {subitems: TaskView[]}

export default class Cancel extends TasksCommand<Output> {
  static override summary = 'Cancel a task (final), with a reason; its open sub-items are cancelled too.'
  static override examples = ['<%= config.bin %> cancel tsk-k3v9 --reason "superseded by tsk-8d2q"']
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {
    reason: Flags.string({char: 'r', description: 'Why it is cancelled.', required: true}),
    force: Flags.boolean({description: 'Cancel even though someone else holds it (recorded in history).'}),
  }

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Cancel)
    this.flagsForSession = flags
    return engine().actions.cancel(await this.openSession(), args.id, flags.reason)
  }

  protected render(r: Output, term: Terminal): string {
    return [r.task, ...r.subitems].map((t) => engine().render.renderTaskLine(term, 'cancelled', t)).join('')
  }
}
