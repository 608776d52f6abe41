import {Args, Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {ConfigChangeResult} from '../../app/config-actions'
import type {Terminal} from '../../render/terminal'

export default class ConfigSet extends TasksCommand<ConfigChangeResult> {
  static override summary = "Change one of the list's shared settings, as a commit on the ref (published like any change)."
  static override description =
    'lease_seconds, clock_skew_seconds and retention_seconds take durations (90s, 30m, 1h, 2d; a plain number is seconds); max_*_bytes take sizes (bytes, or 64k, 1m); admins takes a comma list, or --add/--remove; require_signed takes true or false; allowed_signers a path on the server (for the guard, docs/verify.md). Values outside the bounds the reader enforces are refused (exit 5). When admins are listed, only they may change settings (exit 6).'
  static override args = {
    key: Args.string({ignoreStdin: true, required: true, description: 'the setting'}),
    value: Args.string({ignoreStdin: true, description: 'the new value'}),
  }
  static override flags = {
    add: Flags.string({description: 'List settings (admins): add these comma-separated items.'}),
    remove: Flags.string({description: 'List settings (admins): remove these comma-separated items.'}),
  }
  static override examples = ['<%= config.bin %> config set lease_seconds 2h', '<%= config.bin %> config set admins alice,bob', '<%= config.bin %> config set admins --add carol', '<%= config.bin %> config set require_signed true']

  protected async execute(): Promise<ConfigChangeResult> {
    const {args, flags} = await this.parse(ConfigSet)
    this.flagsForSession = flags
    return engine().config.configSet(await this.openSession(), {key: args.key, value: args.value, add: flags.add, remove: flags.remove})
  }

  protected render(r: ConfigChangeResult, term: Terminal): string {
    return engine().renderHistory.renderConfigChange(term, r)
  }
}
