import {Args, Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {ServerHookResult} from '../../hooks/install'

export default class ServerInstallHook extends TasksCommand<ServerHookResult> {
  static override summary = 'Install `tasks verify` as the pre-receive hook of a (bare) repository: updates of refs/tasks/* are checked, branches pass.'
  static override description = 'An existing pre-receive is kept and runs first (renamed to pre-receive.git-tasks-chained). --uninstall puts it back.'
  static override args = {repository: Args.string({required: true, description: 'path of the repository (usually bare) the team pushes to'})}
  static override flags = {uninstall: Flags.boolean({description: 'Remove the guard and put back what was there.'})}
  static override examples = ['<%= config.bin %> server install-hook /srv/git/project.git']

  protected async execute(): Promise<ServerHookResult> {
    const {args, flags} = await this.parse(ServerInstallHook)
    this.flagsForSession = flags
    return engine().hooks.installServerHook(args.repository, process.argv[1] ?? 'tasks', flags.uninstall)
  }

  protected render(r: ServerHookResult): string {
    return engine().hooks.renderServerHook(r)
  }
}
