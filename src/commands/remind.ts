import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {RemindOutput} from '../app/inbox-actions'
import type {Terminal} from '../render/terminal'
import {olderThanFlag} from './stale'

export default class Remind extends TasksCommand<RemindOutput> {
  static override summary = 'Send each owner of stale work one digest, and escalate cards whose owner is gone to their creator.'
  static override description =
    'At most one digest per owner per remind_every_seconds (config.yaml, 1 day); a card whose owner has not been seen for escalate_after_seconds (1 day) is escalated to its creator once per streak. What was sent is latched on the ref (reminders/), so clones that sync agree. Run it from cron or an agent runner.'
  static override flags = olderThanFlag
  static override examples = ['<%= config.bin %> remind', '<%= config.bin %> remind --older-than 4h --json']

  protected async execute(): Promise<RemindOutput> {
    const {flags} = await this.parse(Remind)
    this.flagsForSession = flags
    return engine().inbox.remindOwners(await this.openSession(), flags['older-than'])
  }

  protected render(r: RemindOutput, term: Terminal): string {
    return engine().renderInbox.renderRemind(term, r)
  }
}
