import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {ActorListResult} from '../../app/inbox-actions'
import type {Terminal} from '../../render/terminal'

export default class ActorList extends TasksCommand<ActorListResult> {
  static override summary = "The list's actors: aliases, notification preferences and when each was last seen."
  static override examples = ['<%= config.bin %> actor list', '<%= config.bin %> actor list --json']

  protected async execute(): Promise<ActorListResult> {
    const {flags} = await this.parse(ActorList)
    this.flagsForSession = flags
    return engine().inbox.actorList(await this.openSession())
  }

  protected render(r: ActorListResult, term: Terminal): string {
    return engine().renderInbox.renderActors(term, r)
  }
}
