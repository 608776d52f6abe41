import {Args} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {RoleResult} from '../../app/inbox-actions'
import type {Terminal} from '../../render/terminal'

export default class CollabAdd extends TasksCommand<RoleResult> {
  static override summary = 'Add a collaborator to a task (they get its inbox records as the list\'s rules say).'
  static override args = {
    id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'}),
    actor: Args.string({ignoreStdin: true, required: true, description: 'the collaborator'}),
  }
  static override examples = ['<%= config.bin %> collab add tsk-k3v9 bob@example.com']

  protected async execute(): Promise<RoleResult> {
    const {args, flags} = await this.parse(CollabAdd)
    this.flagsForSession = flags
    return engine().inbox.collab(await this.openSession(), args.id, args.actor, false)
  }

  protected render(r: RoleResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.commit ? 'collaborators' : 'unchanged', r.task, r.task.collaborators.join(', ') || '(none)')
  }
}
