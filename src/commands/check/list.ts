import {Args} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {CheckListOutput} from '../../app/coordination-actions'
import type {Terminal} from '../../render/terminal'

export default class CheckList extends TasksCommand<CheckListOutput> {
  static override summary = "List a task's checks and what still stands in the way of done."
  static override args = {id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'})}
  static override examples = ['<%= config.bin %> check list tsk-k3v9', '<%= config.bin %> check list tsk-k3v9 --json']

  protected async execute(): Promise<CheckListOutput> {
    const {args, flags} = await this.parse(CheckList)
    this.flagsForSession = flags
    return engine().coordination.checkList(await this.openSession(), args.id)
  }

  protected render(r: CheckListOutput, _term: Terminal): string {
    if (r.checks.length === 0) return `${r.task.short_id}: no checks\n`
    const lines = r.checks.map((c) => `${c.id}  ${c.status.padEnd(10)} ${c.kind.padEnd(10)} ${c.text}${c.evidence ? `\n    evidence: ${c.evidence}` : ''}${c.supersede_reason ? `\n    superseded: ${c.supersede_reason}` : ''}`)
    const tail = r.unmet.length ? `${r.unmet.length} check${r.unmet.length === 1 ? '' : 's'} not passed with evidence: done is refused until they are\n` : 'every active check passed with evidence\n'
    return `${lines.join('\n')}\n${tail}${r.broken.map((b) => `unreadable: ${b.path}: ${b.error}\n`).join('')}`
  }
}
