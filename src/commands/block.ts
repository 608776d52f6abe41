import {Args} from '@oclif/core'
import {TasksCommand, epochFlag, overrideFlags, revisionFlag} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Block extends TasksCommand<TaskResult> {
  static override summary = 'Mark a task you hold as blocked, with a note saying on what.'
  static override description = 'A blocked item can be finished directly once the blocker clears, resumed with claim, or reopened.'
  static override args = {
    id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'}),
    reason: Args.string({ignoreStdin: true, required: true, description: 'what it is waiting on'}),
  }
  static override flags = {...overrideFlags, ...epochFlag, ...revisionFlag}
  static override examples = ['<%= config.bin %> block tsk-k3v9 "waiting on API review"']

  protected async execute(): Promise<TaskResult> {
    const {args, flags} = await this.parse(Block)
    this.flagsForSession = flags
    return engine().actions.block(await this.openSession(), args.id, args.reason, flags.epoch, flags['if-revision'])
  }

  protected render(r: TaskResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, 'blocked', r.task, r.task.block_note ?? '')
  }
}
