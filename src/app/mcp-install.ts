/**
 * `tasks mcp install [--client NAME]`: the configuration snippet that makes
 * an agent client start `tasks mcp`, for the common clients' MCP config
 * files; printed, or merged into the file with `--write`.
 */
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'
import {InvalidError, UsageError} from '../core/errors'

export const MCP_CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'gemini', 'codex', 'windsurf'] as const
export type McpClient = (typeof MCP_CLIENTS)[number]

/** The server's name in every client's config. */
export const SERVER_KEY = 'git-tasks'

interface ClientSpec {
  /** Where its config lives: in the repository (project) or in the home directory (user). */
  scope: 'project' | 'user'
  path: (repoRoot: string, home: string) => string
  format: 'json' | 'toml'
  /** The JSON key holding servers (json only). */
  key?: 'mcpServers' | 'servers'
}

const CLIENTS: Record<McpClient, ClientSpec> = {
  'claude-code': {scope: 'project', path: (r) => join(r, '.mcp.json'), format: 'json', key: 'mcpServers'},
  'claude-desktop': {
    scope: 'user',
    path: (_r, h) => (process.platform === 'darwin' ? join(h, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json') : join(h, '.config', 'Claude', 'claude_desktop_config.json')),
    format: 'json',
    key: 'mcpServers',
  },
  cursor: {scope: 'project', path: (r) => join(r, '.cursor', 'mcp.json'), format: 'json', key: 'mcpServers'},
  vscode: {scope: 'project', path: (r) => join(r, '.vscode', 'mcp.json'), format: 'json', key: 'servers'},
  gemini: {scope: 'project', path: (r) => join(r, '.gemini', 'settings.json'), format: 'json', key: 'mcpServers'},
  codex: {scope: 'user', path: (_r, h) => join(h, '.codex', 'config.toml'), format: 'toml'},
  windsurf: {scope: 'user', path: (_r, h) => join(h, '.codeium', 'windsurf', 'mcp_config.json'), format: 'json', key: 'mcpServers'},
}

export interface InstallResult {
  client: McpClient
  path: string
  scope: 'project' | 'user'
  /** The server entry (command, args, and cwd for user-level clients). */
  server: {command: string; args: string[]; cwd?: string; type?: 'stdio'}
  /** The text to put in the file (the whole file for JSON when written). */
  snippet: string
  written: boolean
  /** False when the file already had exactly this entry. */
  changed: boolean
}

function tomlString(s: string): string {
  return JSON.stringify(s)
}

export function installPlan(client: string, options: {repoRoot: string; list: string; agent?: string; command?: string}): Omit<InstallResult, 'written' | 'changed'> & {merge: (old: string | null) => string} {
  if (!(MCP_CLIENTS as readonly string[]).includes(client)) {
    throw new UsageError(`"${client}" is not a client this knows: use ${MCP_CLIENTS.join(', ')}`, {client, clients: [...MCP_CLIENTS]}, 'usage')
  }
  const spec = CLIENTS[client as McpClient]
  const args = ['mcp']
  if (options.list !== 'main') args.push('--list', options.list)
  if (options.agent) args.push('--agent', options.agent)
  // A user-level config serves every project: the server runs in this repository (-C).
  if (spec.scope === 'user') args.unshift('-C', options.repoRoot)
  const server: InstallResult['server'] = {command: options.command ?? 'tasks', args}
  if (spec.key === 'servers') server.type = 'stdio'
  const path = spec.path(options.repoRoot, homedir())
  if (spec.format === 'toml') {
    const block = `[mcp_servers.${SERVER_KEY}]\ncommand = ${tomlString(server.command)}\nargs = [${server.args.map(tomlString).join(', ')}]\n`
    return {
      client: client as McpClient,
      path,
      scope: spec.scope,
      server,
      snippet: block,
      merge: (old) => {
        const text = old ?? ''
        const header = `[mcp_servers.${SERVER_KEY}]`
        const at = text.indexOf(header)
        if (at === -1) return `${text}${text && !text.endsWith('\n') ? '\n' : ''}${text ? '\n' : ''}${block}`
        const rest = text.slice(at + header.length)
        const end = rest.search(/^\[/m)
        return text.slice(0, at) + block + (end === -1 ? '' : `\n${rest.slice(end)}`)
      },
    }
  }
  const key = spec.key!
  const snippet = `${JSON.stringify({[key]: {[SERVER_KEY]: server}}, null, 2)}\n`
  return {
    client: client as McpClient,
    path,
    scope: spec.scope,
    server,
    snippet,
    merge: (old) => {
      let config: Record<string, unknown> = {}
      if (old !== null && old.trim()) {
        try {
          config = JSON.parse(old) as Record<string, unknown>
        } catch (error) {
          throw new InvalidError('bad_config_file', `${path} is not JSON (${(error as Error).message}); fix it or add the snippet by hand`, {path})
        }
        if (!config || typeof config !== 'object' || Array.isArray(config)) throw new InvalidError('bad_config_file', `${path} does not hold a JSON object`, {path})
      }
      const servers = (config[key] && typeof config[key] === 'object' ? config[key] : {}) as Record<string, unknown>
      return `${JSON.stringify({...config, [key]: {...servers, [SERVER_KEY]: server}}, null, 2)}\n`
    },
  }
}

/** Write the merged config (temp file and rename); returns whether the file changed. */
export function writeInstall(plan: ReturnType<typeof installPlan>): boolean {
  const old = existsSync(plan.path) ? readFileSync(plan.path, 'utf8') : null
  const next = plan.merge(old)
  if (next === old) return false
  mkdirSync(dirname(plan.path), {recursive: true})
  const tmp = `${plan.path}.${process.pid}.tmp`
  writeFileSync(tmp, next)
  renameSync(tmp, plan.path)
  return true
}

export function wouldChange(plan: ReturnType<typeof installPlan>): boolean {
  const old = existsSync(plan.path) ? readFileSync(plan.path, 'utf8') : null
  return plan.merge(old) !== old
}
