import {Args, Flags} from '@oclif/core'
import {TasksCommand, formatFlag} from './base-command'
import {engine} from './engine-loader'
import {pagerCommand, writeThroughPager} from './pager'
import type {LogResult} from '../app/history-actions'
import type {Terminal} from '../render/terminal'

export default class Log extends TasksCommand<LogResult> {
  static override summary = 'The audit log: who did what, when, and why, from the commits of the tasks ref.'
  static override description =
    'Each event shows what its commit recorded: a forced override and its reason, a takeover and from whom, a renewed lease, the epoch, a block note, a cancel reason, an assignee. With ID, the history of that task, also of one that was removed (see `tasks restore`). Times are local with their offset (JSON: exact ISO-8601). On a terminal the output goes through $TASKS_PAGER, $PAGER or `less -FRX`.'
  static override args = {id: Args.string({ignoreStdin: true, description: 'task id or unique prefix (also of a removed task)'})}
  static override flags = {
    ...formatFlag,
    limit: Flags.integer({char: 'n', description: 'Show at most this many events.', min: 1}),
    actor: Flags.string({description: 'Only events by this actor (@me: you); repeatable or comma-separated.', multiple: true, multipleNonGreedy: true}),
    since: Flags.string({description: 'Only events at or after this date, time or duration ago (2026-11-30, "2026-11-30 14:00", 2h, 3d).'}),
    until: Flags.string({description: 'Only events at or before this date, time or duration ago.'}),
    op: Flags.string({description: 'Only these ops (claim, done, rm, …); repeatable or comma-separated.', multiple: true, multipleNonGreedy: true}),
    'no-pager': Flags.boolean({description: 'Print directly, never through a pager.'}),
  }
  static override examples = ['<%= config.bin %> log', '<%= config.bin %> log tsk-k3v9 --json', '<%= config.bin %> log --since 2d --op claim,done --actor @me']

  private noPager = false

  protected async execute(): Promise<LogResult> {
    const {args, flags} = await this.parse(Log)
    this.flagsForSession = flags
    this.useFormat(flags)
    this.noPager = flags['no-pager']
    return engine().history.log(await this.openSession(), args.id, {limit: flags.limit, actor: flags.actor, since: flags.since, until: flags.until, op: flags.op})
  }

  protected override renderCompact(r: LogResult): string {
    return engine().compact.compactLog(r)
  }

  protected render(r: LogResult, term: Terminal): string {
    return engine().renderHistory.renderLog(term, r)
  }

  protected override async writeHuman(text: string): Promise<void> {
    const pager = pagerCommand(process.env, process.stdout.isTTY === true, this.noPager)
    if (pager) await writeThroughPager(pager, text)
    else process.stdout.write(text)
  }
}
