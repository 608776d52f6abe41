import {Args, Flags} from '@oclif/core'
import {TasksCommand, revisionFlag} from '../base-command'
import {engine} from '../engine-loader'
import type {CheckOutput} from '../../app/coordination-actions'
import type {Terminal} from '../../render/terminal'
import {UsageError} from '../../core/errors'
import {renderCheckResult} from './pass'

export default class CheckAdd extends TasksCommand<CheckOutput> {
  static override summary = 'Add an acceptance criterion or a test to a task; it starts pending.'
  static override description =
    'The task cannot be done while an active check has not passed with evidence. Give exactly one of --acceptance or --test.'
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override flags = {
    acceptance: Flags.string({description: 'An acceptance criterion (what must be true).'}),
    test: Flags.string({description: 'A test to run (what must pass).'}),
    ...revisionFlag,
  }
  static override examples = ['<%= config.bin %> check add tsk-k3v9 --acceptance "login works with SSO"', '<%= config.bin %> check add tsk-k3v9 --test "npm test -- auth" --json']

  protected async execute(): Promise<CheckOutput> {
    const {args, flags} = await this.parse(CheckAdd)
    this.flagsForSession = flags
    if ((flags.acceptance === undefined) === (flags.test === undefined)) throw new UsageError('give exactly one of --acceptance TEXT or --test TEXT')
    const kind = flags.acceptance !== undefined ? 'acceptance' : 'test'
    return engine().coordination.checkAdd(await this.openSession(), args.id, kind, (flags.acceptance ?? flags.test)!, flags['if-revision'])
  }

  protected render(r: CheckOutput, term: Terminal): string {
    return renderCheckResult(r, term, 'added')
  }
}
