import {Args} from '@oclif/core'
import {TasksCommand, checkpointFlags, epochFlag} from './base-command'
import type {TaskResult} from '../app/task-actions'
import type {Comment} from '../core/task'
import {engine} from './engine-loader'
import {leaseFlag} from './claim'
import {UsageError} from '../core/errors'
import type {Terminal} from '../render/terminal'

type Output = TaskResult & {checkpoint: Comment}

export default class Checkpoint extends TasksCommand<Output> {
  static override summary = 'Record progress on a task you hold (what is done, the next step) and renew the lease.'
  static override description =
    'The checkpoint is a typed comment on the card. `show` and `next --json` return the newest one first, so whoever picks the item up next (after a release, a lost context, an expired lease or a takeover) starts where you stopped.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...checkpointFlags, ...epochFlag, ...leaseFlag}
  static override examples = [
    '<%= config.bin %> checkpoint tsk-k3v9 --summary "CAS loop done, tests green" --next "wire the online path in transaction.ts"',
    '<%= config.bin %> checkpoint tsk-k3v9 --summary "…" --next "…" --session s-42 --json',
  ]

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Checkpoint)
    this.flagsForSession = flags
    if (flags.summary === undefined || flags.next === undefined) throw new UsageError('tasks checkpoint needs --summary (what is done) and --next (the next step)')
    return engine().actions.checkpoint(await this.openSession(), args.id, {summary: flags.summary, next: flags.next, session: flags.session, epoch: flags.epoch, leaseSeconds: flags.lease})
  }

  protected render(r: Output, term: Terminal): string {
    return engine().render.renderTaskLine(term, 'checkpoint on', r.task, `next: ${r.checkpoint.next ?? ''}`)
  }
}
