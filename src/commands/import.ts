import {Args} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {ImportOutput} from '../app/interchange'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Import extends TasksCommand<ImportOutput> {
  static override summary = 'Import a document from `tasks export`, or a Taskwarrior `task export`, as one commit.'
  static override description =
    'Idempotent by key: cards keep their ids (Taskwarrior tasks get the id of the key taskwarrior:<uuid>), a card that already holds what the file says is left alone, a different one is updated, comments are added once. Importing the same file twice changes nothing. Taskwarrior: pending/waiting/recurring → todo, completed → done, deleted → cancelled, priority H/M/L → 1/2/3, project → tag project:NAME, annotations → comments, depends → dependencies. A progress bar shows on a terminal for large files (never with --json).'
  static override args = {file: Args.string({ignoreStdin: true, required: true, description: 'the JSON file (- for stdin)'})}
  static override examples = ['<%= config.bin %> import tasks.json', 'task export | <%= config.bin %> import -', '<%= config.bin %> import backup.json --json']

  protected async execute(): Promise<ImportOutput> {
    const {args, flags} = await this.parse(Import)
    this.flagsForSession = flags
    return engine().interchange.importFile(await this.openSession(), args.file, {quiet: this.jsonMode()})
  }

  protected render(r: ImportOutput, _term: Terminal): string {
    const what = r.commit ? `imported from ${r.source}: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.comments_added} comments added` : `nothing to import: the list already holds all ${r.tasks.length} tasks of the file`
    return `${[what, ...r.warnings.map((w) => `warning: ${w}`)].join('\n')}\n`
  }
}
