import {Args, Flags} from '@oclif/core'
import {TasksCommand, revisionFlag} from '../base-command'
import {engine} from '../engine-loader'
import type {CheckOutput} from '../../app/coordination-actions'
import type {Terminal} from '../../render/terminal'

/** One line for a check result: `passed chk-… (acceptance) on tsk-…: text`. */
export function renderCheckResult(r: CheckOutput, term: Terminal, verb: string): string {
  const c = r.check
  return engine().render.renderTaskLine(term, r.commit !== null ? verb : `already ${c.status}`, r.task, `${c.id} (${c.kind}): ${c.text}`)
}

export const checkArgs = {
  id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'}),
  check: Args.string({ignoreStdin: true, required: true, description: 'check id (chk-…) or a unique prefix'}),
}

export default class CheckPass extends TasksCommand<CheckOutput> {
  static override summary = 'Record that a check passed, with the evidence.'
  static override args = checkArgs
  static override flags = {evidence: Flags.string({description: 'What shows it passed (a test run, a commit, a URL).', required: true}), ...revisionFlag}
  static override examples = ['<%= config.bin %> check pass tsk-k3v9 chk-4f2a --evidence "CI run 1234 green"']

  protected async execute(): Promise<CheckOutput> {
    const {args, flags} = await this.parse(CheckPass)
    this.flagsForSession = flags
    return engine().coordination.checkRecord(await this.openSession(), args.id, args.check, 'passed', flags.evidence, flags['if-revision'])
  }

  protected render(r: CheckOutput, term: Terminal): string {
    return renderCheckResult(r, term, 'passed')
  }
}
