import type {RemindOutput} from '../app/inbox-actions'
import type {RemindPass, RemindUnit} from '../app/remind-daemon'
import {remind} from '../operations/inbox'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

/** What the command printed itself: the daemon's passes as they ended, or nothing (one pass, or the unit). */
let printedAlready = false

/** The unit of `--install-unit`, printed as its own document (remind-unit.schema.json). */
let unit: RemindUnit | null = null

const DEFAULT_UNIT_EVERY = 600

const Generated = commandFrom<RemindOutput>(remind, {
  execute: async ({args, run, session, output}) => {
    if (args.installUnit) {
      remind.check?.(args as any)
      unit = await engine().remindDaemon.remindUnit(await session(), {everySeconds: args.every ?? DEFAULT_UNIT_EVERY, olderThan: args.olderThan, node: process.execPath, cli: process.argv[1] ?? 'tasks'})
      return undefined as unknown as RemindOutput
    }
    if (args.every === undefined) return run({olderThan: args.olderThan})
    remind.check?.(args as any)
    // The daemon: a pass every --every until SIGTERM or Ctrl-C; each pass printed as it ends.
    const s = await session()
    const stop = new AbortController()
    const end = (): void => stop.abort()
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, end)
    printedAlready = true
    const json = output !== 'text'
    const onPass = (pass: RemindPass): void => {
      if (pass.ok) {
        const pub = s.publication()
        const result = pub ? {...pass.result, published: pub.published} : pass.result
        if (json) process.stdout.write(`${JSON.stringify(result)}\n`)
        else process.stdout.write(`[${new Date().toISOString()}] ${engine().renderInbox.renderRemind(engine().detectTerminal(), engine().neutralizeDeep(result)).replace(/\n(?=.)/g, '\n  ')}`)
        return
      }
      // A failed pass (a remote that did not answer): said on stderr, and the daemon goes on.
      const error = engine().toTasksError(pass.error as Error)
      process.stderr.write(json ? `${JSON.stringify(error.toJSON())}\n` : `error: ${error.message} (next pass in ${args.every}s)\n`)
    }
    if (!json) process.stderr.write(`reminding every ${args.every}s for list ${s.list}; SIGTERM or Ctrl-C stops\n`)
    try {
      await engine().remindDaemon.remindEvery(s, {everySeconds: args.every, olderThan: args.olderThan, signal: stop.signal, onPass})
    } finally {
      for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.off(sig, end)
    }
    return undefined as unknown as RemindOutput
  },
  // The daemon printed its passes, and the unit is printed whole by writeHuman: nothing to render then.
  render: (r, term) => (printedAlready || unit ? '' : engine().renderInbox.renderRemind(term, r)),
})

export default class Remind extends Generated {
  protected override async writeJson(r: RemindOutput): Promise<void> {
    if (unit) process.stdout.write(`${JSON.stringify(unit)}\n`)
    else if (!printedAlready) await super.writeJson(r)
  }

  protected override async writeHuman(text: string): Promise<void> {
    if (unit) process.stdout.write(unit.unit)
    else if (!printedAlready) await super.writeHuman(text)
  }
}
