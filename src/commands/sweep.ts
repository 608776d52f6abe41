import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {TaskView} from '../core/task-view'
import type {Terminal} from '../render/terminal'

type Output = {swept: TaskView[]; commit: string | null}

export default class Sweep extends TasksCommand<Output> {
  static override summary = 'Reopen in-progress items whose lease expired (owner cleared, assignment kept), in one commit.'
  static override description = '`claim` and `next` do the same in the commit of their claim; run this to do it on its own (from a timer, say). The epoch moves on, so the old owner\'s --epoch is refused. Blocked items are left alone.'
  static override examples = ['<%= config.bin %> sweep', '<%= config.bin %> sweep --json']

  protected async execute(): Promise<Output> {
    const {flags} = await this.parse(Sweep)
    this.flagsForSession = flags
    return engine().coordination.sweep(await this.openSession())
  }

  protected render(r: Output, term: Terminal): string {
    if (r.swept.length === 0) return 'no expired leases\n'
    return r.swept.map((t) => engine().render.renderTaskLine(term, 'swept', t)).join('')
  }
}
