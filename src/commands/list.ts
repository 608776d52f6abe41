import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {ListResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class List extends TasksCommand<ListResult> {
  static override summary = 'List tasks (open ones by default), sub-items under their parents.'
  static override description = 'WHY BLOCKED shows the unfinished dependencies of waiting items and the note of blocked ones.'
  static override flags = {
    status: Flags.string({char: 's', description: 'Only these statuses (todo, in_progress, blocked, done, cancelled; the derived ready and waiting; open, all; repeatable).', multiple: true}),
    tag: Flags.string({char: 't', description: 'Only items with this tag (repeatable: all must match).', multiple: true}),
    owner: Flags.string({description: 'Only items claimed by this actor.'}),
    assignee: Flags.string({description: 'Only items assigned to this actor.'}),
    ready: Flags.boolean({description: 'Only items you could claim now.'}),
    all: Flags.boolean({char: 'a', description: 'Include done and cancelled items.'}),
  }
  static override examples = ['<%= config.bin %> list', '<%= config.bin %> list --ready --json', '<%= config.bin %> list --status blocked --tag backend']

  protected async execute(): Promise<ListResult> {
    const {flags} = await this.parse(List)
    this.flagsForSession = flags
    return engine().actions.list(await this.openSession(), {status: flags.status, tags: flags.tag, owner: flags.owner, assignee: flags.assignee, ready: flags.ready, all: flags.all})
  }

  protected render(r: ListResult, term: Terminal): string {
    const short = new Map(r.tasks.map((t) => [t.id, t.short_id]))
    let out = engine().render.renderTaskList(term, r.tasks.map((view) => ({view, depth: view.depth})), (id) => short.get(id) ?? id.slice(0, 8))
    for (const b of r.broken) out += engine().paint(term, 'red', engine().visible(`unreadable: ${b.path}: ${b.error}`)) + '\n'
    for (const w of r.warnings) out += engine().paint(term, 'red', `warning: ${w}`) + '\n'
    return out
  }
}
