import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {RunResult} from '../../hooks/runner'

export default class HooksRun extends TasksCommand<RunResult> {
  static override summary = 'The hooks\' background worker: link queued commits to cards and close cards named by pushed commits.'
  static override description = 'Started detached by the hooks; safe to run by hand (one worker drains the queue at a time). Failures go to the hooks log, shown by `tasks hooks status`; it always exits 0.'
  static override hidden = true
  static override examples = ['<%= config.bin %> hooks run --json']

  protected async execute(): Promise<RunResult> {
    const {flags} = await this.parse(HooksRun)
    this.flagsForSession = flags
    // Started by a hook whose terminal may close: keep going.
    process.on('SIGHUP', () => undefined)
    try {
      return await engine().hooks.runQueue(process.cwd(), flags.list)
    } catch {
      return {processed: 0, linked: 0, closed: 0, failures: 1, busy: false}
    }
  }

  protected render(r: RunResult): string {
    return `processed ${r.processed}, linked ${r.linked}, closed ${r.closed}, failures ${r.failures}${r.busy ? ' (another worker holds the queue)' : ''}\n`
  }
}
