import {Args, Flags} from '@oclif/core'
import {TasksCommand, epochFlag, overrideFlags} from './base-command'
import {engine} from './engine-loader'
import type {TaskView} from '../core/task-view'
import type {Terminal} from '../render/terminal'

type Output = {released: TaskView[]; commit: string | null}

export default class Release extends TasksCommand<Output> {
  static override summary = 'Give a claim back (the task returns to todo), or --all of yours.'
  static override description = 'Run `tasks release --all` when an agent session stops so its claims do not wait for their leases to run out.'
  static override args = {id: Args.string({ignoreStdin: true, description: 'task id or unique prefix'})}
  static override flags = {
    all: Flags.boolean({description: 'Release every item you hold, in one commit.'}),
    ...overrideFlags,
    ...epochFlag,
  }
  static override examples = ['<%= config.bin %> release tsk-k3v9', '<%= config.bin %> release --all']

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Release)
    this.flagsForSession = flags
    return engine().actions.release(await this.openSession(), args.id, flags.all, flags.epoch)
  }

  protected render(r: Output, term: Terminal): string {
    if (r.released.length === 0) return 'nothing to release\n'
    return r.released.map((t) => engine().render.renderTaskLine(term, 'released', t)).join('')
  }
}
