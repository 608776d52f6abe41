import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {DoctorResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

/**
 * Violations --fix repairs. A done item with an unfinished dependency is
 * only reported: ops reach that state (done --force, a dependency reopened
 * afterwards), so only a merge that creates it reopens the item.
 */
function repairable(r: DoctorResult): DoctorResult['violations'] {
  return r.violations.filter((v) => v.kind !== 'done_with_open_dependency')
}

export default class Doctor extends TasksCommand<DoctorResult> {
  static override summary = "Check the list's invariants (cycles, dangling edges, nesting, done-before-dependencies) and stale ref locks; --fix repairs."
  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --fix --json']
  static override description =
    'The same checks and repairs the reconciler runs after every merge. Unreadable files are reported by path. An item done before its dependencies is reported but not repaired (ops reach that state: --force, or a dependency reopened later). Ref lock files left by killed git processes on the task refs, their tracking refs and packed-refs are reported; --fix removes those older than 10 minutes. Exits 0 when healthy or repaired, 5 when problems remain.'
  static override flags = {fix: Flags.boolean({description: 'Repair what is found, in one commit, recording why on each card.'})}

  protected async execute(): Promise<DoctorResult> {
    const {flags} = await this.parse(Doctor)
    this.flagsForSession = flags
    const r = await engine().actions.doctor(await this.openSession(), Boolean(flags.fix), process.argv[1] ?? 'tasks')
    if ((repairable(r).length > 0 && !r.fixed) || r.broken.length > 0 || r.locks.some((l) => !l.removed)) process.exitCode = 5
    return r
  }

  protected render(r: DoctorResult, _term: Terminal): string {
    if (r.violations.length === 0 && r.broken.length === 0 && r.locks.length === 0) return 'no problems found\n'
    const lines: string[] = []
    for (const l of r.locks) {
      const age = l.age_seconds >= 120 ? `${Math.floor(l.age_seconds / 60)} min` : `${l.age_seconds} s`
      const what = l.removed ? 'removed' : l.stale ? 'run `tasks doctor --fix` to remove it' : 'left alone until it is 10 minutes old (remove it yourself if no git process is running)'
      lines.push(`ref lock: ${l.path} (${l.ref}, ${age} old): ${what}`)
    }
    for (const v of r.violations) lines.push(`${v.kind.replace(/_/g, ' ')}: ${v.message}`)
    for (const b of r.broken) lines.push(engine().visible(`unreadable: ${b.path}: ${b.error}`))
    if (r.fixed) lines.push(`repaired ${r.repairs.length} in ${r.fixed.slice(0, 10)}`)
    else if (repairable(r).length > 0) lines.push('run `tasks doctor --fix` to repair')
    return `${lines.join('\n')}\n`
  }
}
