import {Args} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {RoleResult} from '../app/inbox-actions'
import type {Terminal} from '../render/terminal'

export default class Watch extends TasksCommand<RoleResult> {
  static override summary = 'Subscribe to a task: its changes reach your inbox (tasks inbox).'
  static override description = 'Adds you to the card\'s subscribers and lifts a mute of yours on it. Which events reach subscribers is the list\'s notify rules (tasks config set notify.EVENT ROLES) and the card\'s own (tasks notify).'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override examples = ['<%= config.bin %> watch tsk-k3v9', '<%= config.bin %> watch tsk-k3v9 --as bob --json']

  protected async execute(): Promise<RoleResult> {
    const {args, flags} = await this.parse(Watch)
    this.flagsForSession = flags
    return engine().inbox.watch(await this.openSession(), args.id, true)
  }

  protected render(r: RoleResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.commit ? 'watching' : 'already watching', r.task)
  }
}
