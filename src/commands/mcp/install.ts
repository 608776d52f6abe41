import {Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import {confirmOnTerminal} from '../confirm'
import type {InstallResult} from '../../app/mcp-install'
import type {Terminal} from '../../render/terminal'

const CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'gemini', 'codex', 'windsurf']

export default class McpInstall extends TasksCommand<InstallResult> {
  static override summary = "Print (or write) an agent client's MCP configuration for `tasks mcp`."
  static override description =
    'Prints the snippet for the client\'s MCP config file and where that file is. --write merges it into the file (other servers and settings are kept), after asking on a terminal unless --yes. Project-level clients (claude-code, cursor, vscode, gemini) use a file in this repository; user-level ones (claude-desktop, codex, windsurf) one in your home directory, with -C pointing at this repository.'
  static override flags = {
    client: Flags.string({description: 'The agent client.', options: CLIENTS, default: 'claude-code'}),
    agent: Flags.string({description: 'Start the server as this agent (its inbox becomes notifications).'}),
    write: Flags.boolean({description: 'Merge the entry into the config file instead of printing it.'}),
    yes: Flags.boolean({char: 'y', description: 'With --write: do not ask on a terminal.'}),
  }
  static override examples = ['<%= config.bin %> mcp install', '<%= config.bin %> mcp install --client cursor --write', '<%= config.bin %> mcp install --client codex --agent agent-7']

  protected async execute(): Promise<InstallResult> {
    const {flags} = await this.parse(McpInstall)
    this.flagsForSession = flags
    const e = engine()
    const root = (await e.workTreeRoot(process.cwd())) ?? process.cwd()
    const plan = e.mcpInstall.installPlan(flags.client, {repoRoot: root, list: flags.list, agent: flags.agent})
    const {merge, ...shown} = plan
    void merge
    if (!flags.write) return {...shown, written: false, changed: e.mcpInstall.wouldChange(plan)}
    if (!flags.yes && process.stdin.isTTY && process.stdout.isTTY && e.mcpInstall.wouldChange(plan)) await confirmOnTerminal(`add the git-tasks server to ${plan.path}?`)
    const changed = e.mcpInstall.writeInstall(plan)
    return {...shown, written: true, changed}
  }

  protected render(r: InstallResult, _term: Terminal): string {
    if (r.written) return r.changed ? `wrote the git-tasks server into ${r.path}\n` : `${r.path} already has this git-tasks server\n`
    return `# ${r.path} (${r.client}; --write merges it in)\n${r.snippet}`
  }
}
