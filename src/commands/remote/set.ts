import {Args} from '@oclif/core'
import {TasksCommand} from '../base-command'
import type {RemoteResult} from '../../app/task-actions'
import {engine} from '../engine-loader'
import type {Terminal} from '../../render/terminal'

export default class RemoteSet extends TasksCommand<RemoteResult> {
  static override summary = 'Share the task lists through this git remote (git config tasks.remote).'
  static override examples = ['<%= config.bin %> remote set origin']
  static override description = 'Mutations then fetch, run on the remote list and push with a lease (online mode); --offline or TASKS_OFFLINE=1 commits locally only.'
  static override args = {name: Args.string({ignoreStdin: true, required: true, description: 'a git remote, e.g. origin'})}

  protected async execute(): Promise<RemoteResult> {
    const {args, flags} = await this.parse(RemoteSet)
    this.flagsForSession = flags
    return engine().actions.setRemote(await this.openSession(), args.name)
  }

  protected render(r: RemoteResult, _term: Terminal): string {
    return `tasks remote: ${r.remote}${r.previous && r.previous !== r.remote ? ` (was ${r.previous})` : ''}\n`
  }
}
