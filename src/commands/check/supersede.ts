import {Flags} from '@oclif/core'
import {TasksCommand, revisionFlag} from '../base-command'
import {engine} from '../engine-loader'
import type {CheckOutput} from '../../app/coordination-actions'
import type {Terminal} from '../../render/terminal'
import {checkArgs, renderCheckResult} from './pass'

export default class CheckSupersede extends TasksCommand<CheckOutput> {
  static override summary = 'Take a check out of the active set (it keeps its evidence and history).'
  static override args = checkArgs
  static override flags = {reason: Flags.string({description: 'Why the check no longer applies.', required: true}), ...revisionFlag}
  static override examples = ['<%= config.bin %> check supersede tsk-k3v9 chk-4f2a --reason "replaced by chk-9x0b"']

  protected async execute(): Promise<CheckOutput> {
    const {args, flags} = await this.parse(CheckSupersede)
    this.flagsForSession = {...flags, reason: undefined}
    return engine().coordination.checkSupersede(await this.openSession(), args.id, args.check, flags.reason, flags['if-revision'])
  }

  protected render(r: CheckOutput, term: Terminal): string {
    return renderCheckResult(r, term, 'superseded')
  }
}
