import {Args} from '@oclif/core'
import {TasksCommand, revisionFlag} from './base-command'
import {engine} from './engine-loader'
import type {TaskResult} from '../app/task-actions'
import type {Terminal} from '../render/terminal'

type Output = TaskResult

export default class Unflag extends TasksCommand<Output> {
  static override summary = "Clear a task's flag."
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...revisionFlag}
  static override examples = ['<%= config.bin %> unflag tsk-k3v9']

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Unflag)
    this.flagsForSession = flags
    return engine().coordination.unflag(await this.openSession(), args.id, flags['if-revision'])
  }

  protected render(r: Output, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.commit !== null ? 'unflagged' : 'not flagged', r.task)
  }
}
