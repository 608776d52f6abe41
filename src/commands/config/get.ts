import {Args} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {ConfigSetting} from '../../app/config-actions'
import type {Terminal} from '../../render/terminal'

type Output = ConfigSetting & {list: string}

export default class ConfigGet extends TasksCommand<Output> {
  static override summary = "Print one of the list's shared settings (config.yaml on the ref)."
  static override description = 'Keys: lease_seconds, clock_skew_seconds, max_title_bytes, max_body_bytes, max_comment_bytes, admins, retention_seconds. The value in effect; the JSON says whether it is the default.'
  static override args = {key: Args.string({ignoreStdin: true, required: true, description: 'the setting'})}
  static override examples = ['<%= config.bin %> config get lease_seconds', '<%= config.bin %> config get admins --json']

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(ConfigGet)
    this.flagsForSession = flags
    return engine().config.configGet(await this.openSession(), args.key)
  }

  protected render(r: Output, term: Terminal): string {
    return engine().renderHistory.renderConfigGet(term, r)
  }
}
