import {Args} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import {leaseFlag, renderClaim} from './claim'
import type {BranchOutput} from '../hooks/branch'
import type {Terminal} from '../render/terminal'

export default class Branch extends TasksCommand<BranchOutput> {
  static override summary = 'Claim a task and check out task/<short id>-<slug> from HEAD for its work.'
  static override description =
    'The claim comes first: when it is refused, no branch is created. A branch that exists already is checked out (the claim renewed). Commits on the branch are linked to the card by the hooks (`tasks hooks install`).'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...leaseFlag}
  static override examples = ['<%= config.bin %> branch tsk-k3v9']

  protected async execute(): Promise<BranchOutput> {
    const {args, flags} = await this.parse(Branch)
    this.flagsForSession = flags
    return engine().hooks.branchForTask(await this.openSession(), args.id, flags.lease)
  }

  protected render(r: BranchOutput, term: Terminal): string {
    return `${renderClaim(r, term)}${r.created ? 'created and checked out' : 'checked out'} ${r.branch}\n`
  }
}
