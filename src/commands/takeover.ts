import {Args, Flags} from '@oclif/core'
import {TasksCommand, sessionFlag} from './base-command'
import {engine} from './engine-loader'
import type {ClaimOutput} from '../app/task-actions'
import type {Terminal} from '../render/terminal'
import {leaseFlag, renderClaim} from './claim'

export default class Takeover extends TasksCommand<ClaimOutput> {
  static override summary = 'Take a task over from an owner that will not come back (epoch + 1, recorded).'
  static override description = 'Works whether or not the lease has run out. The old owner\'s `done --epoch N` (and block, release, heartbeat) is then refused. Only admins when config.yaml lists them.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {reason: Flags.string({description: 'Why (recorded in the history).', required: true}), ...leaseFlag, ...sessionFlag}
  static override examples = ['<%= config.bin %> takeover tsk-k3v9 --reason "agent-3 crashed and its host is gone"']

  protected async execute(): Promise<ClaimOutput> {
    const {args, flags} = await this.parse(Takeover)
    this.flagsForSession = {...flags, reason: undefined}
    return engine().coordination.takeover(await this.openSession(), args.id, flags.reason, flags.lease)
  }

  protected render(r: ClaimOutput, term: Terminal): string {
    return renderClaim(r, term)
  }
}
