import {Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {McpDoctorResult} from '../../agent/mcp-doctor'
import type {Terminal} from '../../render/terminal'

export default class McpDoctor extends TasksCommand<McpDoctorResult> {
  static override summary = 'Check that an agent client can run `tasks mcp` here: git, the repository, the list, the identity, the client configs.'
  static override description =
    'One line a check: ok, problem (with what to do) or note. Client configs are those `tasks mcp install` writes (claude-code, claude-desktop, cursor, vscode, gemini, codex, windsurf): each git-tasks entry must start a command on PATH running `mcp` in this repository, and an --agent it names must be an actor of the list. Exits 5 when there is a problem.'
  static override flags = {
    agent: Flags.string({description: 'Also check this agent against the actor registry (as `tasks mcp --agent` does at start).'}),
  }
  static override examples = ['<%= config.bin %> mcp doctor', '<%= config.bin %> mcp doctor --agent agent-7 --json']

  protected async execute(): Promise<McpDoctorResult> {
    const {flags} = await this.parse(McpDoctor)
    this.flagsForSession = flags
    const e = engine()
    const repoRoot = await e.workTreeRoot(process.cwd())
    const r = await e.mcpDoctor.mcpDoctor({cwd: process.cwd(), list: flags.list, as: flags.as, offline: flags.offline, json: this.jsonMode(), repoRoot, agent: flags.agent})
    if (!r.ok) process.exitCode = 5
    return r
  }

  protected render(r: McpDoctorResult, _term: Terminal): string {
    const lines = r.checks.map((c) => `${c.status.padEnd(7)} ${c.check}: ${c.message}${c.hint ? `\n        fix: ${c.hint}` : ''}`)
    lines.push(r.ok ? 'no problems found' : `${r.problems} problem${r.problems === 1 ? '' : 's'}`)
    return `${lines.join('\n')}\n`
  }
}
