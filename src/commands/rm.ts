import {Args} from '@oclif/core'
import {TasksCommand, overrideFlags} from './base-command'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

type Output = {removed: Array<{id: string; title: string}>; commit: string | null}

export default class Rm extends TasksCommand<Output> {
  static override summary = 'Remove a task and its sub-items (history keeps them).'
  static override examples = ['<%= config.bin %> rm tsk-k3v9']
  static override description = 'Refused while another task depends on it: change that dependency first.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {...overrideFlags}

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Rm)
    this.flagsForSession = flags
    return engine().actions.remove(await this.openSession(), args.id)
  }

  protected render(r: Output, term: Terminal): string {
    return r.removed.map((t) => `removed ${engine().paint(term, 'yellow', t.id)}  ${t.title}\n`).join('')
  }
}
