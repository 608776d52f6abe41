import {Args} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {RestoreOutput} from '../app/history-actions'
import type {Terminal} from '../render/terminal'

export default class Restore extends TasksCommand<RestoreOutput> {
  static override summary = 'Bring back a removed task, with its sub-items and comments, as a new commit.'
  static override description =
    'The task comes back as it was just before `tasks rm` removed it (found through the history: `tasks log ID` shows it). Refused when the id is in the list again, or when its parent is gone (restore the parent first) or finished. Dependencies on items that are gone are dropped, and the output says which.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'id or unique prefix of the removed task'})}
  static override examples = ['<%= config.bin %> restore tsk-k3v9', '<%= config.bin %> log tsk-k3v9   # what happened to it']

  protected async execute(): Promise<RestoreOutput> {
    const {args, flags} = await this.parse(Restore)
    this.flagsForSession = flags
    return engine().history.restore(await this.openSession(), args.id)
  }

  protected render(r: RestoreOutput, term: Terminal): string {
    return engine().renderHistory.renderRestore(term, r)
  }
}
