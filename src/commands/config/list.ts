import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {ConfigListResult} from '../../app/config-actions'
import type {Terminal} from '../../render/terminal'

export default class ConfigList extends TasksCommand<ConfigListResult> {
  static override summary = "The list's shared settings in effect, defaults marked."
  static override examples = ['<%= config.bin %> config list', '<%= config.bin %> config list --list release-2 --json']

  protected async execute(): Promise<ConfigListResult> {
    const {flags} = await this.parse(ConfigList)
    this.flagsForSession = flags
    return engine().config.configList(await this.openSession())
  }

  protected render(r: ConfigListResult, term: Terminal): string {
    return engine().renderHistory.renderConfigList(term, r)
  }
}
