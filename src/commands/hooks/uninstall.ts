import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {HooksResult} from '../../hooks/install'

export default class HooksUninstall extends TasksCommand<HooksResult> {
  static override summary = 'Remove the git-tasks hooks and put back the hooks that were there before.'
  static override examples = ['<%= config.bin %> hooks uninstall']

  protected async execute(): Promise<HooksResult> {
    const {flags} = await this.parse(HooksUninstall)
    this.flagsForSession = flags
    return engine().hooks.uninstall(process.cwd())
  }

  protected render(r: HooksResult): string {
    return engine().hooks.renderHooks(r, 'installed')
  }
}
