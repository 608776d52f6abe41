import {writeFileSync} from 'node:fs'
import type {GraphResult} from '../app/graph-actions'
import {EnvironmentError, UsageError} from '../core/errors'
import {graph} from '../operations/history'
import {engine, graphSvg} from './engine-loader'
import {commandFrom} from './from-spec'

type GraphFormat = 'svg' | 'mermaid' | 'dot'

export interface GraphOutput extends GraphResult {
  format: GraphFormat
  /** The file written with --out, else null (the drawing went to stdout). */
  out: string | null
}

/** The format a file name asks for (.svg, .dot/.gv, .mmd/.mermaid/.md), else null. */
function formatOfPath(path: string): GraphFormat | null {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase()
  if (ext === 'svg') return 'svg'
  if (ext === 'dot' || ext === 'gv') return 'dot'
  if (ext === 'mmd' || ext === 'mermaid' || ext === 'md') return 'mermaid'
  return null
}

let drawing = ''

/** The command line draws the graph (SVG through d3-dag, or Mermaid/DOT text) to stdout or --out; --json is the graph itself. */
export default commandFrom<GraphOutput>(graph, {
  execute: async ({args, run, output}) => {
    if (args.format === 'json') throw new UsageError('--format json is --json: pass --json for the graph itself')
    const format: GraphFormat = (args.format as GraphFormat | undefined) ?? (args.out ? formatOfPath(args.out) : null) ?? 'svg'
    const g = (await run({ids: args.ids, all: args.all, format: 'json'})) as GraphResult
    const result: GraphOutput = {...g, format, out: args.out ?? null}
    // --json without --out is the graph itself: nothing to draw.
    if (output !== 'text' && !args.out) return result
    const title = `${g.list}: ${g.nodes.length} items`
    drawing = format === 'svg' ? graphSvg().renderSvg(g, title) : format === 'dot' ? engine().renderDot(g) : engine().renderMermaid(g)
    if (args.out) {
      try {
        writeFileSync(args.out, drawing)
      } catch (error) {
        throw new EnvironmentError('write_failed', `cannot write ${args.out}: ${(error as Error).message}`, {path: args.out})
      }
    }
    return result
  },
  render: (r) =>
    r.out === null ? drawing : `wrote ${r.out} (${r.format}): ${r.nodes.length} items, ${r.edges.length} edges, critical path ${r.critical_path.length}, ${r.frontier.length} ready\n`,
})
