import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import {UsageError} from '../core/errors'

type Output = {events: number}

export default class Events extends TasksCommand<Output> {
  static override summary = 'One event per commit of the tasks ref (op, items and their revisions, actor, time, commit); --follow keeps printing new ones.'
  static override description =
    'Derived from the commits\' trailers. With --json, JSON Lines: one event object per line. --follow watches the ref (online: fetches the remote\'s list every --interval seconds), survives a non-fast-forward such as a sync merge, and ends cleanly on Ctrl-C. An event is a hint: re-read the item it names.'
  static override flags = {
    since: Flags.string({description: 'Only events after this revision of the ref (a commit id).'}),
    follow: Flags.boolean({char: 'f', description: 'Keep watching and print new events as they land.'}),
    interval: Flags.string({description: 'Seconds between looks at the ref with --follow (default 1; online, 5 between fetches).'}),
  }
  static override examples = ['<%= config.bin %> events --json', '<%= config.bin %> events --follow --json --since $(git rev-parse refs/tasks/main)']

  protected async execute(): Promise<Output> {
    const {flags} = await this.parse(Events)
    this.flagsForSession = flags
    let interval: number | undefined
    if (flags.interval !== undefined) {
      interval = Number(flags.interval)
      if (!/^\d+(\.\d+)?$/.test(flags.interval.trim()) || !(interval > 0) || interval > 86400) {
        throw new UsageError(`--interval expects a number of seconds greater than 0, not "${flags.interval}"`, {interval: flags.interval}, 'usage')
      }
    }
    const json = this.jsonMode()
    let stop!: () => void
    const stopped = new Promise<void>((r) => (stop = r))
    process.on('SIGINT', () => stop())
    process.on('SIGTERM', () => stop())
    const e = engine()
    const count = await e.hooks.streamEvents(await this.openSession(), {
      since: flags.since,
      follow: flags.follow,
      intervalSeconds: interval,
      stopped,
      emit: (ev) => process.stdout.write(json ? `${JSON.stringify(ev)}\n` : e.hooks.renderEvent(e.neutralizeDeep(ev))),
    })
    return {events: count}
  }

  /** The events were streamed as they came; nothing more to print. */
  protected override async writeJson(): Promise<void> {}

  protected render(): string {
    return ''
  }
}
