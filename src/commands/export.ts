import type {ExportDocument} from '../core/interchange'
import {exportDocument} from '../operations/history'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

let docFormat = 'json'
let output: string | undefined

const Generated = commandFrom<ExportDocument>(exportDocument, {
  // The command line writes the document itself in either format (to stdout or -o FILE): ask for the JSON.
  execute: ({args, run}) => {
    docFormat = args.format
    output = args.output
    return run({...args, format: 'json'})
  },
  render: () => '',
})

function emit(text: string): void {
  if (output) {
    const {writeFileSync, renameSync} = require('node:fs') as typeof import('node:fs')
    const tmp = `${output}.${process.pid}.tmp`
    writeFileSync(tmp, text)
    renameSync(tmp, output)
  } else process.stdout.write(text)
}

export default class Export extends Generated {
  /** --json: the document on one line, as every --json result. */
  protected override async writeJson(doc: ExportDocument): Promise<void> {
    emit(`${JSON.stringify(doc)}\n`)
  }

  /** The document is the output in both modes; the text mode writes it as it is (not neutralized: it is data). */
  public override async run(): Promise<void> {
    try {
      const doc = await this.execute()
      if (this.jsonMode()) await this.writeJson(doc)
      else emit(docFormat === 'md' ? engine().interchange.exportMarkdown(doc) : `${JSON.stringify(doc, null, 2)}\n`)
    } finally {
      this.session?.close()
    }
  }
}
