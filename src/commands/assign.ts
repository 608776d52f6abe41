import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import {UsageError} from '../core/errors'
import type {Terminal} from '../render/terminal'

export default class Assign extends TasksCommand<TaskResult> {
  static override summary = 'Reserve a task for an actor (only they may claim it), or --none to clear.'
  static override examples = ['<%= config.bin %> assign tsk-k3v9 agent-2', '<%= config.bin %> assign tsk-k3v9 --none']
  static override args = {
    id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'}),
    assignee: Args.string({ignoreStdin: true, description: 'actor to reserve it for'}),
  }
  static override flags = {none: Flags.boolean({description: 'Clear the assignee.'})}

  protected async execute(): Promise<TaskResult> {
    const {args, flags} = await this.parse(Assign)
    this.flagsForSession = flags
    if (Boolean(flags.none) === (args.assignee !== undefined)) throw new UsageError('pass an ASSIGNEE, or --none to clear the assignee')
    return engine().actions.assign(await this.openSession(), args.id, flags.none ? null : args.assignee!)
  }

  protected render(r: TaskResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.task.assignee ? `assigned to ${r.task.assignee}:` : 'unassigned', r.task)
  }
}
