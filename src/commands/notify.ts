import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {RoleResult} from '../app/inbox-actions'
import type {Terminal} from '../render/terminal'
import {UsageError} from '../core/errors'

export default class Notify extends TasksCommand<RoleResult> {
  static override summary = "Set who a card's changes notify, replacing the list's rules for it."
  static override description =
    'Each RULE is ROLE (every event) or EVENT:ROLE (one event: comment, done, claim, … any op name), ROLE one of owner, assignee, creator, collaborators, subscribers. The rules replace the list\'s (config.yaml notify) for this card; people still mute or watch events for themselves (tasks actor add --mute/--watch), and `tasks unwatch ID --mute` silences one person on the card. --clear goes back to the list\'s rules.'
  static override strict = false
  static override args = {
    id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'}),
    rules: Args.string({ignoreStdin: true, description: 'ROLE or EVENT:ROLE, several allowed'}),
  }
  static override flags = {clear: Flags.boolean({description: "Remove the card's rules: the list's apply again."})}
  static override examples = ['<%= config.bin %> notify tsk-k3v9 comment:owner done:creator', '<%= config.bin %> notify tsk-k3v9 --clear']

  protected async execute(): Promise<RoleResult> {
    const {args, argv, flags} = await this.parse(Notify)
    this.flagsForSession = flags
    const rules = (argv as string[]).slice(1)
    if (flags.clear && rules.length > 0) throw new UsageError('pass RULEs or --clear, not both')
    if (!flags.clear && rules.length === 0) throw new UsageError('tasks notify needs RULEs (ROLE or EVENT:ROLE), or --clear')
    void args
    return engine().inbox.notify(await this.openSession(), args.id, rules)
  }

  protected render(r: RoleResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.commit ? 'notify rules' : 'unchanged', r.task, r.task.notify_roles.join(' ') || "(the list's)")
  }
}
