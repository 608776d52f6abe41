import {UsageError} from '../core/errors'
import {events} from '../operations/history'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

/**
 * The command line prints events as they are read (JSON Lines with
 * --json), and with --follow keeps watching until Ctrl-C; its result is the
 * number printed.
 */
const Generated = commandFrom<{events: number}>(events, {
  execute: async ({args, session, output}) => {
    let intervalSeconds: number | undefined
    if (args.interval !== undefined) {
      intervalSeconds = Number(args.interval)
      if (!/^\d+(\.\d+)?$/.test(String(args.interval).trim()) || !(intervalSeconds > 0) || intervalSeconds > 86400) {
        throw new UsageError(`--interval expects a number of seconds greater than 0, not "${args.interval}"`, {interval: args.interval}, 'usage')
      }
    }
    let stop!: () => void
    const stopped = new Promise<void>((r) => (stop = r))
    process.on('SIGINT', () => stop())
    process.on('SIGTERM', () => stop())
    if (args.limit !== undefined && args.follow) throw new UsageError('--limit takes the newest events of the history: not with --follow', {}, 'usage')
    if (args.at !== undefined && args.follow) throw new UsageError('--at reads the events up to a point in the past: not with --follow', {}, 'usage')
    const e = engine()
    const json = output !== 'text'
    const print = (ev: Parameters<typeof e.hooks.renderEvent>[0]): boolean => process.stdout.write(json ? `${JSON.stringify(ev)}\n` : e.hooks.renderEvent(e.neutralizeDeep(ev)))
    // --limit N: the newest N, so the events are held until the end (at most N of them).
    const held: Array<Parameters<typeof print>[0]> = []
    // --at: the events up to that commit (the session pinned there); text output says which point first.
    const past = args.at === undefined ? null : await e.timeTravel.pastSession(await session(), args.at)
    if (past && !json) process.stdout.write(`${e.timeTravel.atLine(past.at)}\n`)
    const count = await e.hooks.streamEvents(past ? past.past : await session(), {
      since: args.since,
      follow: args.follow,
      intervalSeconds,
      stopped,
      emit: (ev) => {
        if (args.limit === undefined) print(ev)
        else if (held.push(ev) > args.limit) held.shift()
      },
    })
    for (const ev of held) print(ev)
    return {events: args.limit === undefined ? count : held.length}
  },
  render: () => '',
})

export default class Events extends Generated {
  /** The events went out as they were read. */
  protected override async writeJson(): Promise<void> {}
}
