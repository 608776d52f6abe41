import {Flags} from '@oclif/core'
import {TasksCommand, revisionFlag} from '../base-command'
import {engine} from '../engine-loader'
import type {CheckOutput} from '../../app/coordination-actions'
import type {Terminal} from '../../render/terminal'
import {checkArgs, renderCheckResult} from './pass'

export default class CheckFail extends TasksCommand<CheckOutput> {
  static override summary = 'Record that a check failed, with the evidence (kept on the check).'
  static override args = checkArgs
  static override flags = {evidence: Flags.string({description: 'What shows it failed.', required: true}), ...revisionFlag}
  static override examples = ['<%= config.bin %> check fail tsk-k3v9 chk-4f2a --evidence "timeout in test_login"']

  protected async execute(): Promise<CheckOutput> {
    const {args, flags} = await this.parse(CheckFail)
    this.flagsForSession = flags
    return engine().coordination.checkRecord(await this.openSession(), args.id, args.check, 'failed', flags.evidence, flags['if-revision'])
  }

  protected render(r: CheckOutput, term: Terminal): string {
    return renderCheckResult(r, term, 'failed')
  }
}
