import {Args, Flags} from '@oclif/core'
import {TasksCommand, sessionFlag} from './base-command'
import {engine} from './engine-loader'
import {readInputFile} from './input-file'
import type {BatchFileResult} from '../core/ops/batch-file'
import type {Terminal} from '../render/terminal'

type Output = BatchFileResult & {commit: string | null}

export default class Batch extends TasksCommand<Output> {
  static override summary = 'Apply a JSON list of operations as one commit, or none (--each: one by one, reporting each).'
  static override description = [
    'FILE (or - for standard input) holds a JSON list of operations, each an object with "op": create, edit, comment, deps, claim, next, heartbeat, done, block, reopen, release, cancel, assign, rm, check, flag, unflag, takeover, sweep, and the fields of the single command (docs/cli.md, "batch").',
    'A create (or a check add) may carry "name": "a"; later operations refer to that item as "$a" wherever an id goes (id, parent, depends_on, check).',
    'By default the first refused operation aborts the batch: nothing is written, and the error is that operation\'s own, with its index. With --each, refused operations are reported and skipped, and the rest are written in one commit.',
  ].join('\n\n')
  static override args = {file: Args.string({ignoreStdin: true, required: true, description: 'JSON file of operations, or - for standard input'})}
  static override flags = {each: Flags.boolean({description: 'Apply what can be applied and report each refused operation, instead of all or nothing.'}), ...sessionFlag}
  static override examples = [
    `<%= config.bin %> batch plan.json --json`,
    `echo '[{"op":"create","name":"a","title":"Parse"},{"op":"create","title":"Emit","depends_on":["$a"]}]' | <%= config.bin %> batch -`,
    '<%= config.bin %> batch ops.json --each --json',
  ]

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(Batch)
    this.flagsForSession = flags
    const text = readInputFile(args.file, 'batch')
    return engine().coordination.batchFile(await this.openSession(), text, flags.each ? 'each' : 'atomic')
  }

  protected render(r: Output, _term: Terminal): string {
    const lines = r.results.filter((i) => !i.ok).map((i) => `operation ${i.index + 1} (${i.op}) refused: ${i.error?.message ?? ''}\n`)
    return `${lines.join('')}${r.applied} operation${r.applied === 1 ? '' : 's'} applied${r.failed ? `, ${r.failed} refused` : ''}${r.commit ? ` in ${r.commit.slice(0, 12)}` : ''}\n`
  }
}
