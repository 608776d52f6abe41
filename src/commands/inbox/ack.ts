import {Args, Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {AckResult} from '../../app/inbox-actions'
import type {Terminal} from '../../render/terminal'

export default class InboxAck extends TasksCommand<AckResult> {
  static override summary = 'Mark inbox records seen (by id, its last 8 characters, or --all).'
  static override description = 'Seen is an empty marker file beside each record, so acks made on several clones merge without loss.'
  static override strict = false
  static override args = {id: Args.string({ignoreStdin: true, description: 'record ids (one or more)'})}
  static override flags = {all: Flags.boolean({description: 'Mark every unseen record seen.'})}
  static override examples = ['<%= config.bin %> inbox ack 1a2b3c4d', '<%= config.bin %> inbox ack --all --json']

  protected async execute(): Promise<AckResult> {
    const {argv, flags} = await this.parse(InboxAck)
    this.flagsForSession = flags
    return engine().inbox.inboxAck(await this.openSession(), argv as string[], flags.all)
  }

  protected render(r: AckResult, term: Terminal): string {
    return engine().renderInbox.renderAck(term, r)
  }
}
