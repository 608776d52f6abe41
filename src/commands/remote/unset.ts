import {TasksCommand} from '../base-command'
import type {RemoteResult} from '../../app/task-actions'
import {engine} from '../engine-loader'
import type {Terminal} from '../../render/terminal'

export default class RemoteUnset extends TasksCommand<RemoteResult> {
  static override summary = 'Stop sharing through a remote: every mutation commits locally only.'
  static override examples = ['<%= config.bin %> remote unset']

  protected async execute(): Promise<RemoteResult> {
    const {flags} = await this.parse(RemoteUnset)
    this.flagsForSession = flags
    return engine().actions.setRemote(await this.openSession(), null)
  }

  protected render(r: RemoteResult, _term: Terminal): string {
    return r.previous ? `tasks remote unset (was ${r.previous})\n` : 'no tasks remote was set\n'
  }
}
