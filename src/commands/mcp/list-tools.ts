import {Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import {OPERATIONS} from '../../operations/table'
import type {ListToolsResult} from '../../agent/list-tools'
import type {Terminal} from '../../render/terminal'

export default class McpListTools extends TasksCommand<ListToolsResult> {
  static override summary = 'List the tools `tasks mcp` serves: names and one-line summaries (--json: with their input schemas).'
  static override description = 'Asks a server built as `tasks mcp` builds it (through the SDK client, in memory): what a client sees in tools/list. Needs no repository.'
  static override flags = {
    toolsets: Flags.string({description: 'The toolsets, as for `tasks mcp --toolsets` (default core; all: every tool).', default: 'core', helpValue: 'SETS'}),
  }
  static override examples = ['<%= config.bin %> mcp list-tools', '<%= config.bin %> mcp list-tools --toolsets all --json']

  protected async execute(): Promise<ListToolsResult> {
    const {flags} = await this.parse(McpListTools)
    this.flagsForSession = flags
    const e = engine()
    return e.mcpTools.listTools({toolsets: e.mcpToolsets.parseToolsets(flags.toolsets), cwd: process.cwd(), list: flags.list, as: flags.as, offline: flags.offline, json: true, version: this.config.version, engine: e, operations: OPERATIONS})
  }

  protected render(r: ListToolsResult, _term: Terminal): string {
    const width = Math.max(...r.tools.map((t) => t.name.length))
    return `${r.tools.map((t) => `${t.name.padEnd(width)}  ${t.read_only ? '(read) ' : ''}${t.summary}`).join('\n')}\n${r.tools.length} tools\n`
  }
}
