import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {ClaimOutput} from '../app/task-actions'
import {engine} from './engine-loader'
import {leaseFlag, renderClaim} from './claim'
import type {Terminal} from '../render/terminal'

export default class Next extends TasksCommand<ClaimOutput> {
  static override summary = 'Claim the next ready task: lowest priority number, then oldest.'
  static override description =
    'Ready means todo, every dependency done, and not reserved for someone else; an in-progress item whose lease expired counts too. Parents whose sub-items are open are skipped. Exits 3 when nothing is ready.'
  static override flags = {
    tag: Flags.string({char: 't', description: 'Only items with this tag (repeatable).', multiple: true}),
    ...leaseFlag,
  }
  static override examples = ['<%= config.bin %> next --json', '<%= config.bin %> next --tag backend']

  protected async execute(): Promise<ClaimOutput> {
    const {flags} = await this.parse(Next)
    this.flagsForSession = flags
    return engine().actions.next(await this.openSession(), flags.tag ?? [], flags.lease)
  }

  protected render(r: ClaimOutput, term: Terminal): string {
    return renderClaim(r, term)
  }
}
