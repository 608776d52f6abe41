import {Args} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {ConfigChangeResult} from '../../app/config-actions'
import type {Terminal} from '../../render/terminal'

export default class ConfigUnset extends TasksCommand<ConfigChangeResult> {
  static override summary = 'Put one of the shared settings back to its default, as a commit on the ref.'
  static override args = {key: Args.string({ignoreStdin: true, required: true, description: 'the setting'})}
  static override examples = ['<%= config.bin %> config unset lease_seconds']

  protected async execute(): Promise<ConfigChangeResult> {
    const {args, flags} = await this.parse(ConfigUnset)
    this.flagsForSession = flags
    return engine().config.configSet(await this.openSession(), {key: args.key, unset: true})
  }

  protected render(r: ConfigChangeResult, term: Terminal): string {
    return engine().renderHistory.renderConfigChange(term, r)
  }
}
