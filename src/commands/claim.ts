import {Args, Flags} from '@oclif/core'
import {TasksCommand, overrideFlags, sessionFlag} from './base-command'
import type {ClaimOutput} from '../app/task-actions'
import {engine} from './engine-loader'
import {type Comment, MAX_LEASE_SECONDS} from '../core/task'
import type {Terminal} from '../render/terminal'
import {parseDurationSeconds} from '../core/duration-flag'

export const leaseFlag = {
  lease: Flags.custom<number>({
    description: `Lease length: 90s, 30m, 1h, 1h30m, or plain seconds, at most ${MAX_LEASE_SECONDS / 86400} days (default: lease_seconds in config.yaml, 3600).`,
    helpValue: 'DURATION',
    parse: async (input) => parseDurationSeconds(input, 'lease', MAX_LEASE_SECONDS),
  })(),
}

/** Shared text for claim-like results. */
export function renderClaim(r: ClaimOutput & {resumed?: boolean; checkpoint?: Comment | null}, term: Terminal): string {
  const verb = r.resumed ? 'resumed' : r.already_owned ? 'renewed' : r.took_over_from ? `took over (from ${r.took_over_from})` : 'claimed'
  const line = engine().render.renderTaskLine(term, verb, r.task, `epoch ${r.task.epoch}, lease until ${r.task.lease_expires ?? 'never'}`)
  const c = r.checkpoint
  return c ? `${line}last checkpoint (${c.author}, ${c.created_at}): ${c.body}${c.next ? `\nnext: ${c.next}` : ''}\n` : line
}

export default class Claim extends TasksCommand<ClaimOutput> {
  static override summary = 'Claim a task: it becomes in_progress, owned by you, with a lease.'
  static override description =
    'Atomic: when several agents claim the same item at once exactly one wins; the others exit 4 naming the holder. An expired lease may be claimed again (epoch + 1).'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...overrideFlags, ...leaseFlag, ...sessionFlag}
  static override examples = ['<%= config.bin %> claim tsk-k3v9 --json', '<%= config.bin %> claim tsk-k3v9 --lease 30m']

  protected async execute(): Promise<ClaimOutput> {
    const {args, flags} = await this.parse(Claim)
    this.flagsForSession = flags
    return engine().actions.claim(await this.openSession(), args.id, flags.lease)
  }

  protected render(r: ClaimOutput, term: Terminal): string {
    return renderClaim(r, term)
  }
}
