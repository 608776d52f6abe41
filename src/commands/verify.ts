import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {VerifyResult} from '../hooks/verify'

export default class Verify extends TasksCommand<VerifyResult> {
  static override summary = 'Check that an update of a tasks ref (OLD to NEW) follows the rules: what the server guard runs.'
  static override description =
    'Every new commit: files parse and validate, the store format is known, each status change is a legal transition made by someone allowed to make it (the owner, after the lease expired, or with a recorded override), no removal of an item others depend on, no reuse of a removed id, checks moved only by legal transitions with evidence and done only with every active check passed, no done while flagged or while a sub-item is open, no open sub-item under a finished parent, with require_checks every card added and finished with an active acceptance and test check and no last check of a kind superseded, takeovers and sweeps as the rules say, inbox records only added and seen markers only by their recipient, actor entries changed only by their own actor or an admin, a merge only when it is the one `tasks sync` makes, and with require_signed, a signature by the actor\'s key; no commit dated after the server\'s clock or before its parent beyond clock_skew_seconds; no file outside the known kinds unless allowed_paths allows it, none over max_file_bytes. Exit 5 when anything is refused, each refusal naming the commit, the file and the rule. OLD all zeros: a new ref.'
  static override args = {
    old: Args.string({required: true, description: 'the ref\'s old commit id (zeros: it did not exist)'}),
    new: Args.string({required: true, description: 'the ref\'s new commit id'}),
  }
  static override flags = {
    ref: Flags.string({description: 'The ref being updated (default refs/tasks/main).'}),
    now: Flags.string({description: 'Judge as of this time (ISO-8601), for an audit: commits dated after it (beyond clock_skew_seconds) are refused, leases and cutoffs are judged at it. Default: this machine\'s clock (TASKS_NOW when set).'}),
  }
  static override examples = [
    '<%= config.bin %> verify $OLD $NEW --ref refs/tasks/main',
    'git rev-parse refs/tasks/main@{1} refs/tasks/main | xargs <%= config.bin %> verify',
    '<%= config.bin %> verify 0000000000000000000000000000000000000000 $TIP --now 2025-06-30T12:00:00Z',
  ]

  protected async execute(): Promise<VerifyResult> {
    const {args, flags} = await this.parse(Verify)
    this.flagsForSession = flags
    const r = await engine().hooks.verify(process.cwd(), args.old, args.new, flags.ref, flags.now === undefined ? {} : {now: flags.now})
    if (!r.ok) process.exitCode = 5
    return r
  }

  protected render(r: VerifyResult): string {
    return engine().hooks.renderVerify(r)
  }

  protected override async writeHuman(text: string): Promise<void> {
    // A refusal is read by the pusher through git's "remote:" lines, which carry stderr.
    if (process.exitCode === 5) process.stderr.write(text)
    else process.stdout.write(text)
  }
}
