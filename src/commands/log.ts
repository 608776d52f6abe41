import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {HistoryEvent} from '../app/task-actions'
import type {Terminal} from '../render/terminal'

type Output = {list: string; task: string | null; events: HistoryEvent[]}

export default class Log extends TasksCommand<Output> {
  static override summary = 'History of the list, or of one task, from git log of the tasks ref.'
  static override args = {id: Args.string({ignoreStdin: true, description: 'task id or unique prefix'})}
  static override flags = {limit: Flags.integer({char: 'n', description: 'Show at most this many events.', min: 1})}
  static override examples = ['<%= config.bin %> log', '<%= config.bin %> log tsk-k3v9 --json']

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Log)
    this.flagsForSession = flags
    return engine().actions.log(await this.openSession(), args.id, flags.limit)
  }

  protected render(r: Output, term: Terminal): string {
    return engine().render.renderEvents(term, r.events)
  }
}
