import {TasksCommand} from '../base-command'
import type {RemoteStatus} from '../../app/sharing'
import {engine} from '../engine-loader'
import type {Terminal} from '../../render/terminal'

export default class Remote extends TasksCommand<RemoteStatus> {
  static override summary = 'Show the remote the lists are shared through, and where this list stands with it.'
  static override description =
    'No network: compares the local list with the remote\'s as this clone last fetched it (refs/tasks-remote/<remote>/<list>), and says how many commits are not published or not here yet. `tasks sync` fetches and settles both.'
  static override examples = ['<%= config.bin %> remote', '<%= config.bin %> remote --json', '<%= config.bin %> remote set origin']

  protected async execute(): Promise<RemoteStatus> {
    const {flags} = await this.parse(Remote)
    this.flagsForSession = flags
    return engine().sharing.remoteStatus(await this.openSession())
  }

  protected render(r: RemoteStatus, _term: Terminal): string {
    return engine().sharingRender.renderRemoteStatus(r)
  }
}
