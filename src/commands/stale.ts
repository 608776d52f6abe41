import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {StaleResult} from '../app/inbox-actions'
import type {Terminal} from '../render/terminal'
import {parseDurationSeconds} from '../core/duration-flag'

export const olderThanFlag = {
  'older-than': Flags.custom<number>({
    description: 'Idle for at least this long: 90m, 2h, 1d (default: stale_after_seconds in config.yaml, 2h).',
    helpValue: 'DURATION',
    parse: async (input) => parseDurationSeconds(input, 'older-than'),
  })(),
}

export default class Stale extends TasksCommand<StaleResult> {
  static override summary = 'Work that is not moving: in-progress items without a change, todo items nobody picked up, by owner.'
  static override description = 'Blocked items (waiting on what their note names) and todo items waiting on unfinished dependencies are left out. A todo item is grouped under its assignee, else under nobody.'
  static override flags = olderThanFlag
  static override examples = ['<%= config.bin %> stale', '<%= config.bin %> stale --older-than 1d --json']

  protected async execute(): Promise<StaleResult> {
    const {flags} = await this.parse(Stale)
    this.flagsForSession = flags
    return engine().inbox.stale(await this.openSession(), flags['older-than'])
  }

  protected render(r: StaleResult, term: Terminal): string {
    return engine().renderInbox.renderStale(term, r)
  }
}
