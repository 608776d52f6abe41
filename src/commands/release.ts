import {Args, Flags} from '@oclif/core'
import {TasksCommand, checkpointFlags, epochFlag, overrideFlags} from './base-command'
import {UsageError} from '../core/errors'
import {engine} from './engine-loader'
import type {TaskView} from '../core/task-view'
import type {Terminal} from '../render/terminal'

type Output = {released: TaskView[]; commit: string | null}

export default class Release extends TasksCommand<Output> {
  static override summary = 'Give claims back (the tasks return to todo), or --all of yours.'
  static override description =
    'Run `tasks release --all` when an agent session stops so its claims do not wait for their leases to run out. Several ids are one commit, all or nothing.'
  static override strict = false
  static override args = {id: Args.string({ignoreStdin: true, description: 'task ids or unique prefixes (one or more)'})}
  static override flags = {
    all: Flags.boolean({description: 'Release every item you hold, in one commit.'}),
    session: Flags.string({description: 'Release every item this agent session holds (whoever the owner), in one commit: what a runner calls when its agent stops.'}),
    ...overrideFlags,
    ...epochFlag,
    summary: checkpointFlags.summary,
    next: checkpointFlags.next,
  }
  static override examples = [
    '<%= config.bin %> release tsk-k3v9',
    '<%= config.bin %> release tsk-k3v9 tsk-8d2q',
    '<%= config.bin %> release --all',
    '<%= config.bin %> release --session agent-7-run-42',
    '<%= config.bin %> release tsk-k3v9 --summary "parser done" --next "hook it into sync"',
  ]

  protected async execute(): Promise<Output> {
    const {argv, flags} = await this.parse(Release)
    this.flagsForSession = {...flags, session: undefined}
    if (flags.session !== undefined) {
      if (flags.all || (argv as string[]).length > 0 || flags.summary !== undefined || flags.next !== undefined) throw new UsageError('pass --session S alone: not with IDs, --all, --summary or --next')
      return engine().coordination.releaseBySession(await this.openSession(), flags.session)
    }
    if ((flags.summary === undefined) !== (flags.next === undefined)) throw new UsageError('release records a checkpoint with both --summary (what is done) and --next (the next step)')
    // The checkpoint names the session from the environment: --session here means "release that session's items".
    const checkpoint = flags.summary !== undefined ? {summary: flags.summary, next: flags.next, session: process.env.TASKS_SESSION || undefined} : undefined
    return engine().batch.release(await this.openSession(), argv as string[], flags.all, flags.epoch, checkpoint)
  }

  protected render(r: Output, term: Terminal): string {
    if (r.released.length === 0) return 'nothing to release\n'
    return r.released.map((t) => engine().render.renderTaskLine(term, 'released', t)).join('')
  }
}
