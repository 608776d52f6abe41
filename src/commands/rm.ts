import {Args, Flags} from '@oclif/core'
import {TasksCommand, overrideFlags} from './base-command'
import {confirmOnTerminal} from './confirm'
import {interactive} from './editor'
import {neutralize} from '../core/untrusted-text'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

type Output = {removed: Array<{id: string; title: string}>; commit: string | null}

export default class Rm extends TasksCommand<Output> {
  static override summary = 'Remove tasks and their sub-items (history keeps them).'
  static override examples = ['<%= config.bin %> rm tsk-k3v9', '<%= config.bin %> rm -y tsk-k3v9 tsk-8d2q']
  static override description =
    'Refused while another task depends on one of them: change that dependency first. Several ids are one commit, all or nothing. On a terminal it asks first unless --yes; scripts and agents (no terminal) are not asked.'
  static override strict = false
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task ids or unique prefixes (one or more)'})}
  static override flags = {...overrideFlags, yes: Flags.boolean({char: 'y', description: 'Do not ask for confirmation on a terminal.'})}

  protected async execute(): Promise<Output> {
    const {argv, flags} = await this.parse(Rm)
    this.flagsForSession = flags
    const ids = argv as string[]
    if (!flags.yes && interactive()) await confirmOnTerminal(`remove ${neutralize(ids.join(', '))} and ${ids.length === 1 ? 'its' : 'their'} sub-items?`)
    return engine().batch.remove(await this.openSession(), ids)
  }

  protected render(r: Output, term: Terminal): string {
    return r.removed.map((t) => `removed ${engine().paint(term, 'yellow', t.id)}  ${t.title}\n`).join('')
  }
}
