import {Args, Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {ActorChangeResult} from '../../app/inbox-actions'
import type {Terminal} from '../../render/terminal'

const events = (description: string) => Flags.string({description, multiple: true, helpValue: 'EVENT'})

export default class ActorAdd extends TasksCommand<ActorChangeResult> {
  static override summary = 'Register an actor, or change their notification preferences and aliases.'
  static override description =
    'An EVENT is an op name (comment, done, claim, assign, … or * for all). --mute EVENT: no inbox record for that event, whatever the role; --watch EVENT: a record for that event on every card where the actor holds any role, whatever the list\'s rules. --alias NAME makes NAME another name of the actor (tasks actor alias). Running it again updates the entry.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'the actor id'})}
  static override flags = {
    alias: Flags.string({description: 'Another name of this actor (repeatable).', multiple: true}),
    mute: events('Get no inbox record for EVENT (repeatable, or comma list).'),
    unmute: events('Lift a --mute.'),
    watch: events('Get a record for EVENT on every card you hold a role on (repeatable).'),
    unwatch: events('Lift a --watch.'),
  }
  static override examples = ['<%= config.bin %> actor add alice --alias alice@example.com --mute heartbeat', '<%= config.bin %> actor add bob --watch claim']

  protected async execute(): Promise<ActorChangeResult> {
    const {args, flags} = await this.parse(ActorAdd)
    this.flagsForSession = flags
    return engine().inbox.actorAdd(await this.openSession(), args.id, {mute: flags.mute, unmute: flags.unmute, watch: flags.watch, unwatch: flags.unwatch}, flags.alias ?? [])
  }

  protected render(r: ActorChangeResult, term: Terminal): string {
    return engine().renderInbox.renderActorChange(term, r)
  }
}
