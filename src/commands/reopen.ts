import {Args} from '@oclif/core'
import {TasksCommand, overrideFlags} from './base-command'
import type {TaskResult} from '../app/task-actions'
import type {BatchResult} from '../app/batch-actions'
import type {TaskView} from '../core/task-view'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

type Output = TaskResult | BatchResult<{task: TaskView}>

export default class Reopen extends TasksCommand<Output> {
  static override summary = 'Put tasks back to todo and clear their owners.'
  static override description = 'Several ids are one commit, all or nothing: if one is refused, nothing is written and the error names it.'
  static override examples = ['<%= config.bin %> reopen tsk-k3v9', '<%= config.bin %> reopen tsk-k3v9 tsk-8d2q']
  static override strict = false
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task ids or unique prefixes (one or more)'})}
  static override flags = {...overrideFlags}

  protected async execute(): Promise<Output> {
    const {argv, flags} = await this.parse(Reopen)
    this.flagsForSession = flags
    return engine().batch.reopen(await this.openSession(), argv as string[])
  }

  protected render(r: Output, term: Terminal): string {
    const items = 'results' in r ? r.results : [r]
    return items.map((i) => engine().render.renderTaskLine(term, 'reopened', i.task)).join('')
  }
}
