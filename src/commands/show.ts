import {Args, Flags} from '@oclif/core'
import {TasksCommand, formatFlag} from './base-command'
import type {ShowResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Show extends TasksCommand<ShowResult> {
  static override summary = 'Show one task: fields, description, comments, dependencies, dependents and sub-items.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...formatFlag, history: Flags.boolean({description: 'Also show who did what when to this card, from the ref\'s history (claims, merges, repairs, linked commits).'})}
  static override examples = ['<%= config.bin %> show tsk-k3v9', '<%= config.bin %> show k3v9 --format compact', '<%= config.bin %> show tsk-k3v9 --history --json']

  protected async execute(): Promise<ShowResult> {
    const {args, flags} = await this.parse(Show)
    this.flagsForSession = flags
    this.useFormat(flags)
    const session = await this.openSession()
    const shown = await engine().actions.show(session, args.id)
    if (!flags.history) return shown
    // The same events as `tasks log ID`: one source for a card's history.
    const log = await engine().history.log(session, shown.task.id)
    return {...shown, history: log.events}
  }

  protected override renderCompact(r: ShowResult): string {
    return engine().compact.compactShow(r)
  }

  protected render(r: ShowResult, term: Terminal): string {
    const detail = engine().render.renderTaskDetail(term, r)
    if (!r.history) return detail
    return `${detail}\nHistory:\n${engine().renderHistory.renderLog(term, {list: '', task: r.task.id, removed: false, events: r.history})}`
  }
}
