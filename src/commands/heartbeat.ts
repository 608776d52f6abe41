import {Args} from '@oclif/core'
import {TasksCommand, epochFlag} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import {leaseFlag} from './claim'
import type {Terminal} from '../render/terminal'

export default class Heartbeat extends TasksCommand<TaskResult> {
  static override summary = 'Extend the lease on a task you hold.'
  static override examples = ['<%= config.bin %> heartbeat tsk-k3v9 --lease 30m', '<%= config.bin %> heartbeat tsk-k3v9 --epoch 2 --json']
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...epochFlag, ...leaseFlag}

  protected async execute(): Promise<TaskResult> {
    const {args, flags} = await this.parse(Heartbeat)
    this.flagsForSession = flags
    return engine().actions.beat(await this.openSession(), args.id, flags.epoch, flags.lease)
  }

  protected render(r: TaskResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, 'lease extended', r.task, `until ${r.task.lease_expires}`)
  }
}
