import {Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import {OPERATIONS} from '../../operations/table'
import {parseDurationSeconds} from '../../core/duration-flag'

export default class Mcp extends TasksCommand<void> {
  static override summary = 'Serve the task list to an agent over the Model Context Protocol (stdio).'
  static override description =
    'A long-lived MCP server on stdin/stdout for agent clients: every command is a tool (list, show, add, claim, next, heartbeat, done, …) returning the same JSON as --json, errors as tool errors with the same codes. Resources: tasks://<list>, tasks://<list>/<id>, tasks://guide. With --agent A it also drains A\'s inbox into notifications. `tasks mcp install` prints the client configuration.'
  static override flags = {
    agent: Flags.string({description: 'The agent this server acts for: its inbox is delivered as notifications (also the actor unless --as).'}),
    poll: Flags.custom<number>({description: 'How often to poll the inbox (default 2s).', helpValue: 'DURATION', parse: async (input) => parseDurationSeconds(input, 'poll', 3600)})(),
  }
  static override examples = ['<%= config.bin %> mcp', '<%= config.bin %> mcp --agent agent-7', '<%= config.bin %> mcp install --client claude-code']

  protected async execute(): Promise<void> {
    const {flags} = await this.parse(Mcp)
    this.flagsForSession = flags
    await engine().serveStdio({cwd: process.cwd(), list: flags.list, as: flags.as, offline: flags.offline, json: true, agent: flags.agent, pollMs: flags.poll === undefined ? undefined : flags.poll * 1000, version: this.config.version, engine: engine(), operations: OPERATIONS})
  }

  /** Nothing to print: stdout belongs to the protocol. */
  public override async run(): Promise<void> {
    await this.execute()
  }

  protected render(): string {
    return ''
  }
}
