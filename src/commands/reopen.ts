import {Args} from '@oclif/core'
import {TasksCommand, overrideFlags} from './base-command'
import {type TaskResult, reopen} from '../app/task-actions'
import {renderTaskLine} from '../render/tasks'
import type {Terminal} from '../render/terminal'

export default class Reopen extends TasksCommand<TaskResult> {
  static override summary = 'Put a task back to todo and clear its owner.'
  static override args = {id: Args.string({required: true, description: 'task id or unique prefix'})}
  static override flags = {...overrideFlags}

  protected async execute(): Promise<TaskResult> {
    const {args, flags} = await this.parse(Reopen)
    this.flagsForSession = flags
    return reopen(await this.openSession(), args.id)
  }

  protected render(r: TaskResult, term: Terminal): string {
    return renderTaskLine(term, 'reopened', r.task)
  }
}
