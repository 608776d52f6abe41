import {writeFileSync} from 'node:fs'
import {Args, Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {GraphResult} from '../app/graph-actions'
import {EnvironmentError} from '../core/errors'
import {engine, graphSvg} from './engine-loader'

export const GRAPH_FORMATS = ['svg', 'mermaid', 'dot'] as const
type GraphFormat = (typeof GRAPH_FORMATS)[number]

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

export default class Graph extends TasksCommand<GraphOutput> {
  static override summary = 'Draw the dependency graph: SVG, Mermaid or Graphviz DOT.'
  static override description =
    'The open items (or with IDs, what they reach through their dependencies and sub-items), coloured by state. The critical path (the longest chain of unfinished work) is red; items ready now are outlined green; sub-items hang from their parent by dashed lines. The format comes from --format, else from the --out file name, else svg. --json prints the graph itself (nodes, edges, critical_path, frontier).'
  static override strict = false
  static override args = {ids: Args.string({ignoreStdin: true, description: 'task ids or unique prefixes (several allowed)'})}
  static override flags = {
    format: Flags.string({char: 'f', description: 'svg, mermaid or dot (default: from --out, else svg).', options: [...GRAPH_FORMATS]}),
    all: Flags.boolean({char: 'a', description: 'Include done and cancelled items.'}),
    out: Flags.string({char: 'o', description: 'Write the drawing to FILE instead of stdout.', helpValue: 'FILE'}),
  }
  static override examples = [
    '<%= config.bin %> graph --out graph.svg',
    '<%= config.bin %> graph tsk-k3v9 --format mermaid',
    '<%= config.bin %> graph --all --format dot | dot -Tpng > graph.png',
  ]

  private drawing = ''

  protected async execute(): Promise<GraphOutput> {
    const {argv, flags} = await this.parse(Graph)
    this.flagsForSession = flags
    const format = (flags.format as GraphFormat | undefined) ?? (flags.out ? formatOfPath(flags.out) : null) ?? 'svg'
    const g = await engine().graph.taskGraph(await this.openSession(), argv as string[], {all: flags.all})
    const result: GraphOutput = {...g, format, out: flags.out ?? null}
    // --json without --out is the graph itself: nothing to draw.
    if (this.jsonMode() && !flags.out) return result
    const title = `${g.list}: ${g.nodes.length} items`
    this.drawing = format === 'svg' ? graphSvg().renderSvg(g, title) : format === 'dot' ? engine().renderDot(g) : engine().renderMermaid(g)
    if (flags.out) {
      try {
        writeFileSync(flags.out, this.drawing)
      } catch (error) {
        throw new EnvironmentError('write_failed', `cannot write ${flags.out}: ${(error as Error).message}`, {path: flags.out})
      }
    }
    return result
  }

  protected render(r: GraphOutput): string {
    if (r.out === null) return this.drawing
    return `wrote ${r.out} (${r.format}): ${r.nodes.length} items, ${r.edges.length} edges, critical path ${r.critical_path.length}, ${r.frontier.length} ready\n`
  }
}
