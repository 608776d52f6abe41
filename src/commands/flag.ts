import {Args} from '@oclif/core'
import {TasksCommand, revisionFlag} from './base-command'
import {engine} from './engine-loader'
import type {TaskResult} from '../app/task-actions'
import type {Terminal} from '../render/terminal'

type Output = TaskResult

export default class Flag extends TasksCommand<Output> {
  static override summary = 'Flag a task: it cannot be finished, and anyone may take it over from its owner.'
  static override description = 'Taking the item over (`claim`, `next`, `takeover`) clears the flag and records it; `tasks unflag` clears it by hand.'
  static override args = {
    id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'}),
    reason: Args.string({ignoreStdin: true, required: true, description: 'what is wrong'}),
  }
  static override flags = {...revisionFlag}
  static override examples = ['<%= config.bin %> flag tsk-k3v9 "the agent is looping on the same test"']

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Flag)
    this.flagsForSession = flags
    return engine().coordination.flag(await this.openSession(), args.id, args.reason, flags['if-revision'])
  }

  protected render(r: Output, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.commit !== null ? 'flagged' : 'already flagged', r.task)
  }
}
