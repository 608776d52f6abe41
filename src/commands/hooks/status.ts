import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {HooksResult} from '../../hooks/install'

export default class HooksStatus extends TasksCommand<HooksResult> {
  static override summary = 'Which git-tasks hooks are installed, where, what they chain to, and the last failures of their background work.'
  static override examples = ['<%= config.bin %> hooks status --json']

  protected async execute(): Promise<HooksResult> {
    const {flags} = await this.parse(HooksStatus)
    this.flagsForSession = flags
    return engine().hooks.status(process.cwd())
  }

  protected render(r: HooksResult): string {
    return engine().hooks.renderHooks(r, 'installed')
  }
}
