import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {RoleResult} from '../app/inbox-actions'
import type {Terminal} from '../render/terminal'

export default class Unwatch extends TasksCommand<RoleResult> {
  static override summary = 'Unsubscribe from a task; with --mute, get no inbox record about it whatever your role.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {mute: Flags.boolean({description: 'Also mute the card for you (owner, assignee, creator or collaborator included).'})}
  static override examples = ['<%= config.bin %> unwatch tsk-k3v9', '<%= config.bin %> unwatch tsk-k3v9 --mute']

  protected async execute(): Promise<RoleResult> {
    const {args, flags} = await this.parse(Unwatch)
    this.flagsForSession = flags
    return engine().inbox.watch(await this.openSession(), args.id, false, flags.mute)
  }

  protected render(r: RoleResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.commit ? 'stopped watching' : 'not watching', r.task)
  }
}
