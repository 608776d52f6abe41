import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {PruneResult} from '../core/ops/prune'
import type {Terminal} from '../render/terminal'
import {parseDurationSeconds} from '../core/duration-flag'

type Output = PruneResult & {commit: string | null}

export default class Prune extends TasksCommand<Output> {
  static override summary = 'Remove finished items closed longer ago than the retention, in one commit (history keeps them).'
  static override description =
    'The retention is retention_seconds in config.yaml (7 days) unless --older-than is given. Items a staying item depends on, and parents of staying sub-items, are kept. `tasks restore ID` brings one back.'
  static override flags = {
    'older-than': Flags.custom<number>({
      description: 'Age of a finished item to remove: 90s, 30m, 12h, 7d, 2w.',
      helpValue: 'DURATION',
      parse: async (input) => parseDurationSeconds(input, 'older-than'),
    })(),
  }
  static override examples = ['<%= config.bin %> prune', '<%= config.bin %> prune --older-than 30d --json']

  protected async execute(): Promise<Output> {
    const {flags} = await this.parse(Prune)
    this.flagsForSession = flags
    return engine().coordination.prune(await this.openSession(), flags['older-than'])
  }

  protected render(r: Output, _term: Terminal): string {
    const lines = r.removed.map((t) => `removed ${t.id} (${t.status}) ${t.title}\n`)
    const kept = r.kept.map((k) => `kept ${k.id}: ${k.reason === 'parent' ? 'parent of' : 'needed by'} ${k.by}\n`)
    return `${lines.join('')}${kept.join('')}${r.removed.length === 0 ? `nothing finished before ${r.cutoff}\n` : ''}`
  }
}
