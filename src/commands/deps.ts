import {Args} from '@oclif/core'
import {TasksCommand, revisionFlag} from './base-command'
import type {TaskResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Deps extends TasksCommand<TaskResult> {
  static override summary = "Replace a task's dependencies (none given: clear them)."
  static override description = 'Missing ids, self-dependencies, cycles and other lists are rejected; duplicates fold into one edge.'
  static override strict = false
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...revisionFlag}
  static override examples = ['<%= config.bin %> deps tsk-pub1 tsk-api2 tsk-ui33', '<%= config.bin %> deps tsk-pub1', '<%= config.bin %> deps tsk-pub1 tsk-api2 --if-revision 3']

  protected async execute(): Promise<TaskResult> {
    const {args, argv, flags} = await this.parse(Deps)
    this.flagsForSession = flags
    return engine().actions.deps(await this.openSession(), args.id, (argv as string[]).slice(1), flags['if-revision'])
  }

  protected render(r: TaskResult, term: Terminal): string {
    return engine().render.renderTaskLine(term, 'dependencies of', r.task, r.task.depends_on.length ? `→ ${r.task.depends_on.join(', ')}` : 'none')
  }
}
