import {Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import {OPERATIONS} from '../../operations/table'
import {parseDurationSeconds} from '../../core/duration-flag'
import {UsageError} from '../../core/errors'

/** What `tasks mcp --http --json` prints once it listens (schemas/output/mcp-http.schema.json). */
export interface McpHttpStarted {
  url: string
  host: string
  port: number
  exposed: boolean
  token_required: boolean
  agent: string | null
  list: string
}

export default class Mcp extends TasksCommand<void> {
  static override summary = 'Serve the task list to an agent over the Model Context Protocol (stdio, or HTTP with --http).'
  static override description =
    "A long-lived MCP server on stdin/stdout for agent clients: each operation is a tool in one toolset; by default only core is served (list, show, next, claim, heartbeat, checkpoint, check_pass, done, block, release, comment, inbox, poll_inbox, toolsets), --toolsets adds planning, coordination, sessions, history, admin (or all), and the `toolsets` tool tells an agent what the others hold. Reads answer in compact text and writes with what the item became (format \"json\": the same JSON as --json); errors are tool errors with the same codes. Resources: tasks://<list>, tasks://<list>/<id>, tasks://guide. With --agent A it is a Claude Code channel: A's new inbox records are pushed as `notifications/claude/channel` events (A must be an actor of the list: `tasks actor list`). --http serves the same over Streamable HTTP at /mcp (127.0.0.1 unless --host; any other address needs TASKS_MCP_TOKEN, sent as `Authorization: Bearer`). `tasks mcp install` prints a client's configuration, `tasks mcp doctor` checks the set-up, `tasks mcp list-tools` lists the tools."
  static override flags = {
    agent: Flags.string({description: "The agent this server acts for: its inbox is pushed as Claude Code channel events (also the actor unless --as)."}),
    poll: Flags.custom<number>({description: 'How often to poll the inbox (default 2s).', helpValue: 'DURATION', parse: async (input) => parseDurationSeconds(input, 'poll', 3600)})(),
    http: Flags.boolean({description: 'Serve over Streamable HTTP at /mcp instead of stdio.'}),
    port: Flags.integer({description: 'With --http: the port (default 8765; 0: any free port).', min: 0, max: 65535}),
    host: Flags.string({description: 'With --http: the address to listen on (default 127.0.0.1; any other needs TASKS_MCP_TOKEN).'}),
    toolsets: Flags.string({description: 'The toolsets served, comma-separated: core (the claim loop, always served), planning, coordination, sessions, history, admin, or all.', default: 'core', helpValue: 'SETS'}),
  }
  static override examples = [
    '<%= config.bin %> mcp',
    '<%= config.bin %> mcp --agent agent-7',
    '<%= config.bin %> mcp --toolsets core,planning,history',
    '<%= config.bin %> mcp --http --port 8765',
    'TASKS_MCP_TOKEN=$(openssl rand -hex 24) <%= config.bin %> mcp --http --host 0.0.0.0',
    '<%= config.bin %> mcp install --client claude-code',
  ]

  protected async execute(): Promise<void> {
    const {flags} = await this.parse(Mcp)
    this.flagsForSession = flags
    if (!flags.http && (flags.port !== undefined || flags.host !== undefined)) throw new UsageError('--port and --host go with --http', {flag: flags.port !== undefined ? 'port' : 'host'})
    const e = engine()
    const toolsets = e.mcpToolsets.parseToolsets(flags.toolsets)
    const options = {toolsets, cwd: process.cwd(), list: flags.list, as: flags.as, offline: flags.offline, json: true, agent: flags.agent, pollMs: flags.poll === undefined ? undefined : flags.poll * 1000, version: this.config.version, engine: e, operations: OPERATIONS}
    if (!flags.http) return e.serveStdio(options)
    const token = process.env.TASKS_MCP_TOKEN || undefined
    const running = await e.serveHttp({...options, json: this.jsonMode(), host: flags.host ?? e.mcpHttp.DEFAULT_HTTP_HOST, port: flags.port ?? e.mcpHttp.DEFAULT_HTTP_PORT, token})
    const started: McpHttpStarted = {url: running.url, host: running.host, port: running.port, exposed: running.exposed, token_required: running.token_required, agent: running.agent, list: running.list}
    if (this.jsonMode()) process.stdout.write(`${JSON.stringify(started)}\n`)
    else process.stdout.write(`MCP over HTTP for list ${started.list}${started.agent ? `, agent ${started.agent}` : ''}: ${started.url}${started.token_required ? ' (send Authorization: Bearer $TASKS_MCP_TOKEN)' : ''}\n(Ctrl-C stops it)\n`)
    await new Promise<void>((resolve) => {
      const stop = () => resolve()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
      process.once('SIGHUP', stop)
    })
    await running.close()
    setTimeout(() => process.exit(), 1000).unref()
  }

  /** Nothing to print at the end: stdout belongs to the protocol (stdio), or the start line was printed (--http). */
  public override async run(): Promise<void> {
    await this.execute()
  }

  protected render(): string {
    return ''
  }
}
