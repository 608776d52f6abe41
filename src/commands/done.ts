import {Args} from '@oclif/core'
import {TasksCommand, checkpointFlags, epochFlag, overrideFlags} from './base-command'
import type {TaskResult} from '../app/task-actions'
import type {BatchResult} from '../app/batch-actions'
import type {TaskView} from '../core/task-view'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

type Output = (TaskResult & {changed: boolean}) | BatchResult<{task: TaskView; changed: boolean}>

export default class Done extends TasksCommand<Output> {
  static override summary = 'Finish tasks you hold (a ready todo item is claimed and finished in one step).'
  static override examples = ['<%= config.bin %> done tsk-k3v9', '<%= config.bin %> done tsk-k3v9 --epoch 2 --json', '<%= config.bin %> done tsk-k3v9 tsk-8d2q tsk-p0ab']
  static override description =
    'Refused while a dependency or a sub-item is unfinished, or when someone else holds the item. Several ids are one commit, all or nothing: if one is refused, nothing is written and the error names it.'
  static override strict = false
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task ids or unique prefixes (one or more)'})}
  static override flags = {...overrideFlags, ...epochFlag, summary: checkpointFlags.summary, session: checkpointFlags.session}

  protected async execute(): Promise<Output> {
    const {argv, flags} = await this.parse(Done)
    this.flagsForSession = flags
    const checkpoint = flags.summary !== undefined ? {summary: flags.summary, session: flags.session} : undefined
    return engine().batch.finish(await this.openSession(), argv as string[], flags.epoch, checkpoint)
  }

  protected render(r: Output, term: Terminal): string {
    const items = 'results' in r ? r.results : [r]
    return items.map((i) => engine().render.renderTaskLine(term, i.changed ? 'done' : 'already done', i.task)).join('')
  }
}
