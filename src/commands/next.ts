import {Flags} from '@oclif/core'
import {TasksCommand, formatFlag, sessionFlag} from './base-command'
import type {NextOutput} from '../app/task-actions'
import {engine} from './engine-loader'
import {leaseFlag, renderClaim} from './claim'
import type {Terminal} from '../render/terminal'

export default class Next extends TasksCommand<NextOutput> {
  static override summary = 'Claim the next ready task, or resume the one you hold.'
  static override description =
    'Safe to retry: when you already hold an in-progress item, next hands it back (lease renewed, "resumed": true) instead of taking another; --another takes one more. Otherwise it claims the first ready item: reserved for you first, then by priority, then oldest. Ready means todo, nothing to wait on (its own dependencies and its parent\'s), not reserved for someone else, and no open sub-items; an in-progress item whose lease expired counts too. --json includes the description and the newest comments. Exits 3 when nothing is ready.'
  static override flags = {
    ...formatFlag,
    tag: Flags.string({char: 't', description: 'Only items with this tag (repeatable).', multiple: true, multipleNonGreedy: true}),
    another: Flags.boolean({description: 'Take one more item even if you already hold one (do not resume).'}),
    ...leaseFlag,
    ...sessionFlag,
  }
  static override examples = ['<%= config.bin %> next --json', '<%= config.bin %> next --tag backend', '<%= config.bin %> next --another']

  protected async execute(): Promise<NextOutput> {
    const {flags} = await this.parse(Next)
    this.flagsForSession = flags
    this.useFormat(flags)
    return engine().actions.next(await this.openSession(), {tags: flags.tag ?? [], leaseSeconds: flags.lease, another: flags.another})
  }

  protected override renderCompact(r: NextOutput): string {
    return engine().compact.compactNext(r)
  }

  protected render(r: NextOutput, term: Terminal): string {
    return renderClaim(r, term)
  }
}
