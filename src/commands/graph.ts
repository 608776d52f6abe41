import {writeFileSync} from 'node:fs'
import type {GraphResult} from '../app/graph-actions'
import type {AtPoint} from '../app/at'
import {EnvironmentError, UsageError} from '../core/errors'
import {graph} from '../operations/history'
import {engine, graphSvg} from './engine-loader'
import {commandFrom} from './from-spec'
import {printsOutline} from './graph-tty'

type GraphFormat = 'svg' | 'png' | 'mermaid' | 'dot'

export interface GraphOutput extends GraphResult {
  format: GraphFormat
  /** The point read with --at. */
  at?: AtPoint
  /** The file written with --out, else null (the drawing went to stdout). */
  out: string | null
}

/** The format a file name asks for (.svg, .png, .dot/.gv, .mmd/.mermaid/.md), else null. */
function formatOfPath(path: string): GraphFormat | null {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase()
  if (ext === 'svg') return 'svg'
  if (ext === 'png') return 'png'
  if (ext === 'dot' || ext === 'gv') return 'dot'
  if (ext === 'mmd' || ext === 'mermaid' || ext === 'md') return 'mermaid'
  return null
}

let drawing = ''
let outlineTitle: string | null = null

/** The command line draws the graph (SVG through d3-dag, or Mermaid/DOT text) to stdout or --out; --json is the graph itself. */
export default commandFrom<GraphOutput>(graph, {
  execute: async ({args, run, output}) => {
    if (args.format === 'json') throw new UsageError('--format json is --json: pass --json for the graph itself')
    let format = args.format as GraphFormat | undefined
    if (format === undefined && args.out) {
      // Never a drawing in a format the name does not say (an SVG's bytes in g.png).
      format = formatOfPath(args.out) ?? undefined
      if (format === undefined) {
        throw new UsageError(`cannot tell the format from the name "${args.out}": end it in .svg, .png, .dot, .gv, .mmd, .mermaid or .md, or pass --format`, {path: args.out})
      }
    }
    const outline = output === 'text' && printsOutline(format, args.out, process.stdout.isTTY === true)
    format ??= 'svg'
    // A PNG is bytes for a file, not text for a terminal or a pipe.
    if (format === 'png' && !args.out) throw new UsageError('--format png writes a file: pass --out FILE.png', {flag: 'format'})
    const g = (await run({ids: args.ids, all: args.all, format: 'json', at: args.at})) as GraphResult & {at?: AtPoint}
    const result: GraphOutput = {...g, format, out: args.out ?? null}
    // --json without --out is the graph itself: nothing to draw.
    if (output !== 'text' && !args.out) return result
    // A past state (--at) says which in the drawing's title.
    const title = `${g.list}: ${g.nodes.length} items${g.at ? ` as of ${g.at.date} (commit ${g.at.commit.slice(0, 7)})` : ''}`
    outlineTitle = outline ? title : null
    if (outline) return result
    drawing = format === 'svg' || format === 'png' ? graphSvg().renderSvg(g, title) : format === 'dot' ? engine().renderDot(g) : engine().renderMermaid(g)
    // The PNG is the SVG rendered at its own size (@resvg/resvg-js, loaded only now).
    const bytes: string | Buffer = format === 'png' ? engine().graph.svgToPng(drawing) : drawing
    if (args.out) {
      try {
        writeFileSync(args.out, bytes)
      } catch (error) {
        throw new EnvironmentError('write_failed', `cannot write ${args.out}: ${(error as Error).message}`, {path: args.out})
      }
    }
    return result
  },
  render: (r, term) =>
    outlineTitle !== null
      ? engine().renderGraphOutline(term, r, outlineTitle)
      : r.out === null
        ? drawing : `${r.at ? `${engine().timeTravel.atLine(r.at)}\n` : ''}wrote ${r.out} (${r.format}): ${r.nodes.length} items, ${r.edges.length} edges, critical path ${r.critical_path.length}, ${r.frontier.length} ready\n`,
})
