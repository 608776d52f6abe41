import {Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import {confirmOnTerminal} from '../confirm'
import {interactive} from '../editor'
import {UsageError} from '../../core/errors'
import type {InstallResult} from '../../app/mcp-install'
import type {Terminal} from '../../render/terminal'

const CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'gemini', 'codex', 'windsurf']

export default class McpInstall extends TasksCommand<InstallResult> {
  static override summary = "Print (or write) an agent client's MCP configuration for `tasks mcp`."
  static override description =
    "Prints the snippet for the client's MCP config file and where that file is. --write merges it into the file (other servers and settings are kept), after asking on a terminal unless --yes. Project-level clients (claude-code, cursor, vscode, gemini) use a file in this repository; user-level ones (claude-desktop, codex, windsurf) one in your home directory, with -C pointing at this repository. --fleet writes one entry per actor of the list's registry (`tasks actor list`), `git-tasks-<agent>` running `tasks mcp --agent <agent>`: start each agent's Claude Code with its own channel (`claude --dangerously-load-development-channels server:git-tasks-<agent>`)."
  static override flags = {
    client: Flags.string({description: 'The agent client.', options: CLIENTS, default: 'claude-code'}),
    agent: Flags.string({description: 'Start the server as this agent (its inbox is pushed as channel events).', exclusive: ['fleet']}),
    fleet: Flags.boolean({description: "One entry per actor of the list's registry (git-tasks-<agent>), each serving that agent."}),
    toolsets: Flags.string({description: 'The toolsets the server serves, as for `tasks mcp --toolsets` (default core); written into the entry\'s args.', default: 'core', helpValue: 'SETS'}),
    write: Flags.boolean({description: 'Merge the entries into the config file instead of printing them.'}),
    yes: Flags.boolean({char: 'y', description: 'With --write: do not ask on a terminal.'}),
  }
  static override examples = [
    '<%= config.bin %> mcp install',
    '<%= config.bin %> mcp install --client cursor --write',
    '<%= config.bin %> mcp install --toolsets core,planning --write',
    '<%= config.bin %> mcp install --client codex --agent agent-7',
    '<%= config.bin %> mcp install --fleet --write --yes',
  ]

  protected async execute(): Promise<InstallResult> {
    const {flags} = await this.parse(McpInstall)
    this.flagsForSession = flags
    const e = engine()
    const root = (await e.workTreeRoot(process.cwd())) ?? process.cwd()
    let agents: string[] | undefined
    if (flags.agent !== undefined && flags.agent.trim() === '') throw new UsageError('--agent needs a name: the actor whose inbox the server delivers', {flag: 'agent'})
    if (flags.fleet) {
      agents = (await e.inbox.actorList(await this.openSession())).actors.map((a) => a.id)
      if (agents.length === 0) throw new UsageError(`list ${flags.list} has no actors yet: register the agents with \`tasks actor add NAME\` (or let each run a command once), then run --fleet again`, {list: flags.list}, 'no_actors')
    }
    const all = e.mcpToolsets.parseToolsets(flags.toolsets)
    const toolsets = flags.toolsets.split(',').map((s) => s.trim()).includes('all') ? ['all'] : all
    const plan = e.mcpInstall.installPlan(flags.client, {repoRoot: root, list: flags.list, agent: flags.agent, agents, toolsets})
    const {merge, ...shown} = plan
    void merge
    if (!flags.write) return {...shown, written: false, changed: e.mcpInstall.wouldChange(plan)}
    if (!flags.yes && interactive() && e.mcpInstall.wouldChange(plan)) await confirmOnTerminal(`add ${plan.entries.length === 1 ? 'the git-tasks server' : `${plan.entries.length} git-tasks servers`} to ${plan.path}?`)
    const changed = e.mcpInstall.writeInstall(plan)
    return {...shown, written: true, changed}
  }

  protected render(r: InstallResult, _term: Terminal): string {
    // Claude Code loads a channel per session: the line that starts each agent's session with its own.
    const channels = r.client === 'claude-code'
      ? r.entries
          .filter((x) => x.agent)
          .map((x) => `# ${x.agent}'s session, with its inbox as a channel: claude --dangerously-load-development-channels server:${x.key}\n`)
          .join('')
      : ''
    if (r.written) return `${r.changed ? `wrote ${r.entries.length === 1 ? 'the git-tasks server' : `${r.entries.length} git-tasks servers (${r.entries.map((x) => x.key).join(', ')})`} into ${r.path}` : `${r.path} already has ${r.entries.length === 1 ? 'this git-tasks server' : 'these git-tasks servers'}`}\n${channels}`
    return `# ${r.path} (${r.client}; --write merges it in)\n${r.snippet}${channels}`
  }
}
