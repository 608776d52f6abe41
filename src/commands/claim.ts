import {Args, Flags} from '@oclif/core'
import {TasksCommand, overrideFlags} from './base-command'
import type {ClaimOutput} from '../app/task-actions'
import {engine} from './engine-loader'
import {MAX_LEASE_SECONDS} from '../core/task'
import type {Terminal} from '../render/terminal'

export const leaseFlag = {
  lease: Flags.integer({description: `Lease length in seconds, 1 to ${MAX_LEASE_SECONDS} (default: lease_seconds in config.yaml, 3600).`, min: 1, max: MAX_LEASE_SECONDS}),
}

/** Shared text for claim-like results. */
export function renderClaim(r: ClaimOutput, term: Terminal): string {
  const verb = r.already_owned ? 'renewed' : r.took_over_from ? `took over (from ${r.took_over_from})` : 'claimed'
  return engine().render.renderTaskLine(term, verb, r.task, `epoch ${r.task.epoch}, lease until ${r.task.lease_expires ?? 'never'}`)
}

export default class Claim extends TasksCommand<ClaimOutput> {
  static override summary = 'Claim a task: it becomes in_progress, owned by you, with a lease.'
  static override description =
    'Atomic: when several agents claim the same item at once exactly one wins; the others exit 4 naming the holder. An expired lease may be claimed again (epoch + 1).'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...overrideFlags, ...leaseFlag}
  static override examples = ['<%= config.bin %> claim tsk-k3v9 --json']

  protected async execute(): Promise<ClaimOutput> {
    const {args, flags} = await this.parse(Claim)
    this.flagsForSession = flags
    return engine().actions.claim(await this.openSession(), args.id, flags.lease)
  }

  protected render(r: ClaimOutput, term: Terminal): string {
    return renderClaim(r, term)
  }
}
