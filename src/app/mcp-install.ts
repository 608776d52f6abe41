/**
 * `tasks mcp install [--client NAME]`: the configuration snippet that makes
 * an agent client start `tasks mcp`, for the common clients' MCP config
 * files; printed, or merged into the file with `--write`. `--fleet`: one
 * entry per agent of the list's actor registry. `tasks mcp doctor` reads
 * the same files back (configuredClient).
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

export interface ServerEntry {
  command: string
  args: string[]
  cwd?: string
  type?: 'stdio'
}

export interface InstallResult {
  client: McpClient
  path: string
  scope: 'project' | 'user'
  /** The server entry (command, args, and cwd for user-level clients); absent with --fleet (see entries). */
  server?: ServerEntry
  /** Every entry written: one (key git-tasks), or with --fleet one per agent (key git-tasks-<agent>). */
  entries: Array<{key: string; agent: string | null; server: ServerEntry}>
  /** The text to put in the file (the whole file for JSON when written). */
  snippet: string
  written: boolean
  /** False when the file already had exactly this entry. */
  changed: boolean
}

function tomlString(s: string): string {
  return JSON.stringify(s)
}

/** The config key of an agent's entry with --fleet: git-tasks-<agent>, in the characters a TOML bare key and a Claude Code `server:` name take. */
export function fleetKey(agent: string): string {
  return `${SERVER_KEY}-${agent.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'agent'}`
}

export type InstallPlan = Omit<InstallResult, 'written' | 'changed'> & {merge: (old: string | null) => string}

/**
 * The plan for one client: the entries, the snippet, and how to merge them
 * into the file. `agents` (--fleet) makes one entry per agent, each
 * `tasks mcp --agent A` under its own key; else one entry `git-tasks`.
 */
export function installPlan(client: string, options: {repoRoot: string; list: string; agent?: string; agents?: readonly string[]; command?: string; toolsets?: readonly string[]}): InstallPlan {
  if (!(MCP_CLIENTS as readonly string[]).includes(client)) {
    throw new UsageError(`"${client}" is not a client this knows: use ${MCP_CLIENTS.join(', ')}`, {client, clients: [...MCP_CLIENTS]}, 'usage')
  }
  const spec = CLIENTS[client as McpClient]
  const serverFor = (agent: string | undefined): ServerEntry => {
    const args = ['mcp']
    if (options.list !== 'main') args.push('--list', options.list)
    if (agent) args.push('--agent', agent)
    // The default (core) needs no flag; any other set is written into the client's command line.
    if (options.toolsets && options.toolsets.join(',') !== 'core') args.push('--toolsets', options.toolsets.join(','))
    // A user-level config serves every project: the server runs in this repository (-C).
    if (spec.scope === 'user') args.unshift('-C', options.repoRoot)
    const server: ServerEntry = {command: options.command ?? 'tasks', args}
    if (spec.key === 'servers') server.type = 'stdio'
    return server
  }
  const entries: InstallResult['entries'] = []
  if (options.agents) {
    const used = new Set<string>()
    for (const agent of options.agents) {
      let key = fleetKey(agent)
      for (let n = 2; used.has(key); n++) key = `${fleetKey(agent)}-${n}`
      used.add(key)
      entries.push({key, agent, server: serverFor(agent)})
    }
  } else {
    entries.push({key: SERVER_KEY, agent: options.agent ?? null, server: serverFor(options.agent)})
  }
  const single = options.agents ? {} : {server: entries[0]!.server}
  const path = spec.path(options.repoRoot, homedir())
  if (spec.format === 'toml') {
    const blockOf = (e: InstallResult['entries'][number]) => `[mcp_servers.${e.key}]\ncommand = ${tomlString(e.server.command)}\nargs = [${e.server.args.map(tomlString).join(', ')}]\n`
    return {
      client: client as McpClient,
      path,
      scope: spec.scope,
      ...single,
      entries,
      snippet: entries.map(blockOf).join('\n'),
      merge: (old) => entries.reduce((text, e) => mergeTomlBlock(text, `[mcp_servers.${e.key}]`, blockOf(e)), old ?? ''),
    }
  }
  const key = spec.key!
  const servers = Object.fromEntries(entries.map((e) => [e.key, e.server]))
  const snippet = `${JSON.stringify({[key]: servers}, null, 2)}\n`
  return {
    client: client as McpClient,
    path,
    scope: spec.scope,
    ...single,
    entries,
    snippet,
    merge: (old) => {
      const config = readJsonConfig(old, path)
      const existing = (config[key] && typeof config[key] === 'object' ? config[key] : {}) as Record<string, unknown>
      return `${JSON.stringify({...config, [key]: {...existing, ...servers}}, null, 2)}\n`
    },
  }
}

/** A TOML file with the table `header` replaced by `block` (or `block` appended). */
function mergeTomlBlock(text: string, header: string, block: string): string {
  const at = text.split('\n').findIndex((line) => line.trim() === header)
  if (at === -1) return `${text}${text && !text.endsWith('\n') ? '\n' : ''}${text ? '\n' : ''}${block}`
  const lines = text.split('\n')
  const start = lines.slice(0, at).join('\n').length + (at > 0 ? 1 : 0)
  const rest = text.slice(start + header.length)
  const end = rest.search(/^\[/m)
  return text.slice(0, start) + block + (end === -1 ? '' : `\n${rest.slice(end)}`)
}

function readJsonConfig(old: string | null, path: string): Record<string, unknown> {
  if (old === null || !old.trim()) return {}
  let config: unknown
  try {
    config = JSON.parse(old)
  } catch (error) {
    throw new InvalidError('bad_config_file', `${path} is not JSON (${(error as Error).message}); fix it or add the snippet by hand`, {path})
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw new InvalidError('bad_config_file', `${path} does not hold a JSON object`, {path})
  return config as Record<string, unknown>
}

/** A client's config file as `tasks mcp doctor` reads it: the git-tasks entries in it (key git-tasks or git-tasks-…). */
export interface ConfiguredClient {
  client: McpClient
  path: string
  scope: 'project' | 'user'
  exists: boolean
  /** Why the file could not be read (not JSON, not an object, an entry that does not read). */
  error: string | null
  servers: Array<{key: string; command: string | null; args: string[]}>
}

const OURS = (key: string): boolean => key === SERVER_KEY || key.startsWith(`${SERVER_KEY}-`)

export function configuredClient(client: McpClient, repoRoot: string, home = homedir()): ConfiguredClient {
  const spec = CLIENTS[client]
  const path = spec.path(repoRoot, home)
  const out: ConfiguredClient = {client, path, scope: spec.scope, exists: existsSync(path), error: null, servers: []}
  if (!out.exists) return out
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return {...out, error: `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`}
  }
  if (spec.format === 'toml') {
    const lines = text.split('\n')
    for (let i = 0; i < lines.length; i++) {
      const m = /^\s*\[mcp_servers\.("?)([A-Za-z0-9_.-]+)\1\]\s*$/.exec(lines[i]!)
      if (!m || !OURS(m[2]!)) continue
      let command: string | null = null
      let args: string[] = []
      for (let j = i + 1; j < lines.length && !/^\s*\[/.test(lines[j]!); j++) {
        const kv = /^\s*(command|args)\s*=\s*(.+?)\s*$/.exec(lines[j]!)
        if (!kv) continue
        try {
          const value = JSON.parse(kv[2]!)
          if (kv[1] === 'command' && typeof value === 'string') command = value
          if (kv[1] === 'args' && Array.isArray(value)) args = value.map(String)
        } catch {
          out.error = `the ${kv[1]} of [mcp_servers.${m[2]}] does not read`
        }
      }
      out.servers.push({key: m[2]!, command, args})
    }
    return out
  }
  try {
    const config = readJsonConfig(text, path)
    const servers = config[spec.key!]
    if (servers && typeof servers === 'object' && !Array.isArray(servers)) {
      for (const [key, v] of Object.entries(servers as Record<string, unknown>)) {
        if (!OURS(key)) continue
        const entry = (v && typeof v === 'object' ? v : {}) as {command?: unknown; args?: unknown}
        out.servers.push({key, command: typeof entry.command === 'string' ? entry.command : null, args: Array.isArray(entry.args) ? entry.args.map(String) : []})
      }
    }
  } catch (error) {
    out.error = (error as Error).message
  }
  return out
}

/** Write the merged config (temp file and rename); returns whether the file changed. */
export function writeInstall(plan: InstallPlan): boolean {
  const old = existsSync(plan.path) ? readFileSync(plan.path, 'utf8') : null
  const next = plan.merge(old)
  if (next === old) return false
  mkdirSync(dirname(plan.path), {recursive: true})
  const tmp = `${plan.path}.${process.pid}.tmp`
  writeFileSync(tmp, next)
  renameSync(tmp, plan.path)
  return true
}

export function wouldChange(plan: InstallPlan): boolean {
  const old = existsSync(plan.path) ? readFileSync(plan.path, 'utf8') : null
  return plan.merge(old) !== old
}
