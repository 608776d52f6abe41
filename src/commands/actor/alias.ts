import {Args, Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {ActorChangeResult} from '../../app/inbox-actions'
import type {Terminal} from '../../render/terminal'

export default class ActorAlias extends TasksCommand<ActorChangeResult> {
  static override summary = 'Make ALIAS another name of actor ID: one recipient, one inbox, one last_seen.'
  static override description = 'Records for ALIAS then go to ID\'s inbox and ID\'s preferences apply; `tasks inbox --as ALIAS` reads ID\'s inbox. --remove makes ALIAS a name of its own again.'
  static override args = {
    id: Args.string({ignoreStdin: true, required: true, description: 'the actor'}),
    alias: Args.string({ignoreStdin: true, required: true, description: 'another name of the actor (an email, a session name)'}),
  }
  static override flags = {remove: Flags.boolean({description: 'Remove the alias.'})}
  static override examples = ['<%= config.bin %> actor alias alice alice@example.com', '<%= config.bin %> actor alias alice sess-42 --remove']

  protected async execute(): Promise<ActorChangeResult> {
    const {args, flags} = await this.parse(ActorAlias)
    this.flagsForSession = flags
    return engine().inbox.actorAlias(await this.openSession(), args.id, args.alias, flags.remove)
  }

  protected render(r: ActorChangeResult, term: Terminal): string {
    return engine().renderInbox.renderActorChange(term, r)
  }
}
