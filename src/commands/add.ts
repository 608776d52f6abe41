import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import {readInputFile} from './input-file'
import type {Terminal} from '../render/terminal'

type AddOutput = TaskResult & {created: boolean}

export default class Add extends TasksCommand<AddOutput> {
  static override summary = 'Add a task.'
  static override args = {title: Args.string({ignoreStdin: true, required: true, description: 'one-line title (at most 500 bytes)'})}
  static override flags = {
    body: Flags.string({char: 'b', description: 'Markdown description.', exclusive: ['body-file']}),
    'body-file': Flags.string({description: 'Read the description from a file (- for stdin).'}),
    tag: Flags.string({char: 't', description: 'Tag (repeatable, or comma-separated).', multiple: true, multipleNonGreedy: true}),
    parent: Flags.string({description: 'Make this a sub-item of PARENT (one level deep).'}),
    'depends-on': Flags.string({char: 'd', description: 'Wait for this task (repeatable).', multiple: true, multipleNonGreedy: true}),
    priority: Flags.string({char: 'p', description: 'Priority 0 (most urgent) to 4.', default: '2'}),
    assignee: Flags.string({description: 'Reserve the task for this actor.'}),
    key: Flags.string({description: 'Idempotency key: adding again with the same key returns the same task.'}),
  }
  static override examples = [
    '<%= config.bin %> add "Wire the claim CAS" --tag backend -p 1',
    '<%= config.bin %> add "Write the regression test" --parent tsk-k3v9',
    '<%= config.bin %> add "Publish" --depends-on tsk-k3v9 --depends-on tsk-8d2q',
  ]

  protected async execute(): Promise<AddOutput> {
    const {args, flags} = await this.parse(Add)
    this.flagsForSession = flags
    const body = flags['body-file'] !== undefined ? readInputFile(flags['body-file'], 'body') : flags.body
    return engine().actions.add(await this.openSession(), {
      title: args.title,
      body,
      tags: flags.tag,
      parent: flags.parent,
      dependsOn: flags['depends-on'],
      priority: flags.priority,
      assignee: flags.assignee,
      key: flags.key,
    })
  }

  protected render(r: AddOutput, term: Terminal): string {
    return engine().render.renderTaskLine(term, r.created ? 'added' : 'exists', r.task)
  }
}
