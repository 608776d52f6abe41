import {Args} from '@oclif/core'
import {TasksCommand, epochFlag, overrideFlags} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

type Output = TaskResult & {changed: boolean}

export default class Done extends TasksCommand<Output> {
  static override summary = 'Finish a task you hold (a ready todo item is claimed and finished in one step).'
  static override examples = ['<%= config.bin %> done tsk-k3v9', '<%= config.bin %> done tsk-k3v9 --epoch 2 --json']
  static override description = 'Refused while a dependency or a sub-item is unfinished, or when someone else holds the item.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...overrideFlags, ...epochFlag}

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Done)
    this.flagsForSession = flags
    return engine().actions.finish(await this.openSession(), args.id, flags.epoch)
  }

  protected render(r: Output, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.changed ? 'done' : 'already done', r.task)
  }
}
