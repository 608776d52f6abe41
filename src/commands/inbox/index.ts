import {Flags} from '@oclif/core'
import {TasksCommand, formatFlag} from '../base-command'
import {engine} from '../engine-loader'
import type {InboxResult} from '../../app/inbox-actions'
import type {Terminal} from '../../render/terminal'

export default class Inbox extends TasksCommand<InboxResult> {
  static override summary = 'Your inbox: records of changes that concern you, unseen ones, newest last.'
  static override description =
    'Every change writes, in its own commit, a record for each person it concerns (never the one who made it): owner, assignee, creator, collaborators and subscribers, as the list\'s notify rules, your preferences and the card say. --as A reads A\'s inbox (aliases fold into one). `tasks inbox ack ID…|--all` marks records seen.'
  static override flags = {...formatFlag, all: Flags.boolean({description: 'Show seen records too.'})}
  static override examples = ['<%= config.bin %> inbox', '<%= config.bin %> inbox --json --as agent-7', '<%= config.bin %> inbox --all', '<%= config.bin %> inbox --format compact']

  protected async execute(): Promise<InboxResult> {
    const {flags} = await this.parse(Inbox)
    this.flagsForSession = flags
    this.useFormat(flags)
    return engine().inbox.inbox(await this.openSession(), {all: flags.all})
  }

  protected override renderCompact(r: InboxResult): string {
    return engine().compact.compactInbox(r)
  }

  protected render(r: InboxResult, term: Terminal): string {
    return engine().renderInbox.renderInbox(term, r)
  }
}
