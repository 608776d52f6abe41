import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {ExportDocument} from '../core/interchange'
import {engine} from './engine-loader'

export default class Export extends TasksCommand<ExportDocument> {
  static override summary = 'Write the list (or some cards) as a versioned document: JSON to import elsewhere, or Markdown to read.'
  static override description =
    'Every card with its description and comments, ids kept, sorted by id; never the claim fencing tokens (epoch). The JSON document ("format": "git-tasks/export", "version": 1) is what `tasks import` reads. --json is the same as --format json.'
  static override args = {id: Args.string({ignoreStdin: true, description: 'task ids or unique prefixes (default: the whole list)'})}
  static override strict = false
  static override flags = {
    format: Flags.string({description: 'json (for import) or md (for people).', options: ['json', 'md'], default: 'json'}),
    output: Flags.string({char: 'o', description: 'Write to this file instead of stdout.', helpValue: 'FILE'}),
  }
  static override examples = ['<%= config.bin %> export > tasks.json', '<%= config.bin %> export tsk-k3v9 tsk-8d2q --format md', '<%= config.bin %> export -o backup.json']

  private docFormat = 'json'
  private output: string | undefined

  protected async execute(): Promise<ExportDocument> {
    const {argv, flags} = await this.parse(Export)
    this.flagsForSession = flags
    this.docFormat = flags.format
    this.output = flags.output
    return engine().interchange.exportDocument(await this.openSession(), argv as string[])
  }

  private emit(text: string): void {
    if (this.output) {
      const {writeFileSync, renameSync} = require('node:fs') as typeof import('node:fs')
      const tmp = `${this.output}.${process.pid}.tmp`
      writeFileSync(tmp, text)
      renameSync(tmp, this.output)
    } else process.stdout.write(text)
  }

  /** --json: the document on one line, as every --json result. */
  protected override async writeJson(doc: ExportDocument): Promise<void> {
    this.emit(`${JSON.stringify(doc)}\n`)
  }

  /** The document is the output in both modes; the text mode writes it as it is (not neutralized: it is data). */
  public override async run(): Promise<void> {
    try {
      const doc = await this.execute()
      if (this.jsonMode()) await this.writeJson(doc)
      else this.emit(this.docFormat === 'md' ? engine().interchange.exportMarkdown(doc) : `${JSON.stringify(doc, null, 2)}\n`)
    } finally {
      this.session?.close()
    }
  }

  protected render(): string {
    return ''
  }
}
