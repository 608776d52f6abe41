import {Args} from '@oclif/core'
import {TasksCommand, formatFlag} from './base-command'
import type {ShowResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Show extends TasksCommand<ShowResult> {
  static override summary = 'Show one task: fields, description, comments, dependencies, dependents and sub-items.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...formatFlag}
  static override examples = ['<%= config.bin %> show tsk-k3v9', '<%= config.bin %> show k3v9 --format compact']

  protected async execute(): Promise<ShowResult> {
    const {args, flags} = await this.parse(Show)
    this.flagsForSession = flags
    this.useFormat(flags)
    return engine().actions.show(await this.openSession(), args.id)
  }

  protected override renderCompact(r: ShowResult): string {
    return engine().compact.compactShow(r)
  }

  protected render(r: ShowResult, term: Terminal): string {
    return engine().render.renderTaskDetail(term, r)
  }
}
