import {Args, Flags} from '@oclif/core'
import {TasksCommand, revisionFlag} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import {UsageError} from '../core/errors'
import {editTaskInEditor, interactive} from './editor'
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
    tag: Flags.string({char: 't', description: 'Add a tag (repeatable).', multiple: true, multipleNonGreedy: true}),
    untag: Flags.string({description: 'Remove a tag (repeatable).', multiple: true, multipleNonGreedy: true}),
    ...revisionFlag,
  }
  static override description = 'With no flags on a terminal, opens $VISUAL or $EDITOR (else vi) on the title and description.'
  static override examples = ['<%= config.bin %> edit tsk-k3v9 --title "Wire the claim CAS" -p 1', '<%= config.bin %> edit tsk-k3v9 --body-file notes.md --untag draft', '<%= config.bin %> edit tsk-k3v9    # in $EDITOR']

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Edit)
    this.flagsForSession = flags
    const given = [flags.title, flags.body, flags['body-file'], flags.priority, flags.tag, flags.untag].some((v) => v !== undefined)
    if (!given && interactive()) return editTaskInEditor(await this.openSession(), args.id, flags['if-revision'])
    if (!given) throw new UsageError('nothing to edit: pass --title, --body, --body-file, --priority, --tag or --untag (on a terminal, `tasks edit ID` alone opens $EDITOR)')
    const body = flags['body-file'] !== undefined ? readInputFile(flags['body-file'], 'body') : flags.body
    return engine().actions.edit(await this.openSession(), {id: args.id, title: flags.title, body, priority: flags.priority, addTags: flags.tag, removeTags: flags.untag, ifRevision: flags['if-revision']})
  }

  protected render(r: Output, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.fields.length ? 'edited' : 'unchanged', r.task, r.fields.join(', '))
  }
}
