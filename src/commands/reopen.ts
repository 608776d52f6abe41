import {Args} from '@oclif/core'
import {TasksCommand, overrideFlags} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Reopen extends TasksCommand<TaskResult> {
  static override summary = 'Put a task back to todo and clear its owner.'
  static override examples = ['<%= config.bin %> reopen tsk-k3v9']
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...overrideFlags}

  protected async execute(): Promise<TaskResult> {
    const {args, flags} = await this.parse(Reopen)
    this.flagsForSession = flags
    return engine().actions.reopen(await this.openSession(), args.id)
  }

  protected render(r: TaskResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, 'reopened', r.task)
  }
}
