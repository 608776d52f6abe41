import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import {readInputFile} from './input-file'
import type {Terminal} from '../render/terminal'

type Output = TaskResult & {fields: string[]}

export default class Edit extends TasksCommand<Output> {
  static override summary = "Change a task's title, description, priority or tags."
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {
    title: Flags.string({description: 'New title.'}),
    body: Flags.string({char: 'b', description: 'New description (replaces the old one).', exclusive: ['body-file']}),
    'body-file': Flags.string({description: 'Read the new description from a file (- for stdin).'}),
    priority: Flags.string({char: 'p', description: 'New priority, 0 to 4.'}),
    tag: Flags.string({char: 't', description: 'Add a tag (repeatable).', multiple: true}),
    untag: Flags.string({description: 'Remove a tag (repeatable).', multiple: true}),
  }

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Edit)
    this.flagsForSession = flags
    const body = flags['body-file'] !== undefined ? readInputFile(flags['body-file'], 'body') : flags.body
    return engine().actions.edit(await this.openSession(), {id: args.id, title: flags.title, body, priority: flags.priority, addTags: flags.tag, removeTags: flags.untag})
  }

  protected render(r: Output, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.fields.length ? 'edited' : 'unchanged', r.task, r.fields.join(', '))
  }
}
