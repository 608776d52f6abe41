import {Args} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {DriverResult} from '../app/merge-driver'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class MergeDriver extends TasksCommand<DriverResult> {
  static override hidden = true
  static override summary = 'Git merge driver for task files (git calls it; `tasks init` registers it).'
  static override examples = ['git config merge.tasks.driver "<%= config.bin %> merge-driver %O %A %B %P"']
  static override description = 'merge.tasks.driver = tasks merge-driver %O %A %B %P. Writes the field-level merge of BASE, OURS and THEIRS over OURS. Text that cannot be merged (a description, a title, a note edited on both sides) stays in the file between conflict markers and the exit status is 1, so git reports a conflict.'
  static override args = {
    base: Args.string({ignoreStdin: true, required: true, description: '%O: the merge base version'}),
    ours: Args.string({ignoreStdin: true, required: true, description: '%A: our version; the result is written here'}),
    theirs: Args.string({ignoreStdin: true, required: true, description: '%B: their version'}),
    path: Args.string({ignoreStdin: true, required: true, description: '%P: the path in the tree'}),
  }

  protected async execute(): Promise<DriverResult> {
    const {args, flags} = await this.parse(MergeDriver)
    this.flagsForSession = flags
    const r = engine().runMergeDriver(args.base, args.ours, args.theirs, args.path, new Date().toISOString())
    // Non-zero tells git the file is still in conflict.
    if (!r.clean) process.exitCode = 1
    return r
  }

  protected render(r: DriverResult, _term: Terminal): string {
    // Git shows the driver's stdout; keep it to what a person merging should know.
    const lines = r.notes.map((n) => `git-tasks: ${r.path}: ${n}`)
    return lines.length ? `${lines.join('\n')}\n` : ''
  }
}
