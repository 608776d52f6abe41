/**
 * `tasks mcp doctor`: whether an agent client can start `tasks mcp` here
 * and get anything out of it. One check a line, each ok, problem or note
 * (a note is information, never a failure):
 *
 * - git: the `git` on PATH runs (its version);
 * - repository: the directory is in a git work tree;
 * - list: the list exists (else `tasks init`);
 * - identity: the actor the server would act as resolves and is valid;
 *   with `--agent A`, A is a name the list's registry knows (agent-check.ts);
 * - each known client (app/mcp-install.ts): its config file, when there is
 *   one, reads, and each git-tasks entry in it starts a command that is on
 *   PATH (or a file that exists), runs `mcp`, serves this repository
 *   (user-level configs: `-C`), and names an agent the registry knows; a
 *   client without a file is a note; no client configured at all is a
 *   problem (`tasks mcp install --write`).
 */
import {spawnSync} from 'node:child_process'
import {accessSync, constants, statSync} from 'node:fs'
import {delimiter, isAbsolute, join, resolve} from 'node:path'
import {TasksError} from '../core/errors'
import {MCP_CLIENTS, configuredClient} from '../app/mcp-install'
import {Session, type SessionOptions} from '../app/session'
import {checkAgent} from './agent-check'

export type CheckStatus = 'ok' | 'problem' | 'note'

export interface DoctorCheck {
  /** git, repository, list, identity, agent, or client:<name>. */
  check: string
  status: CheckStatus
  message: string
  /** What to do about a problem. */
  hint?: string
}

export interface McpDoctorResult {
  ok: boolean
  problems: number
  checks: DoctorCheck[]
}

export interface McpDoctorOptions extends SessionOptions {
  /** The work tree's top directory, or null outside one. */
  repoRoot: string | null
  agent?: string
  /** Where user-level client configs live (default: the home directory). */
  home?: string
  env?: NodeJS.ProcessEnv
}

/** Whether `command` would start: an absolute or relative path that is an executable file, or a name found on PATH. */
export function commandFound(command: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const executable = (p: string): boolean => {
    try {
      if (!statSync(p).isFile()) return false
      accessSync(p, constants.X_OK)
      return true
    } catch {
      return false
    }
  }
  if (command.includes('/') || isAbsolute(command)) {
    const p = resolve(cwd, command)
    return executable(p) ? p : null
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const p = join(dir, command)
    if (executable(p)) return p
  }
  return null
}

/** The value after `flag` in args, or undefined. */
function flagValue(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag)
  if (i !== -1) return args[i + 1]
  const eq = args.find((a) => a.startsWith(`${flag}=`))
  return eq?.slice(flag.length + 1)
}

export async function mcpDoctor(o: McpDoctorOptions): Promise<McpDoctorResult> {
  const checks: DoctorCheck[] = []
  const add = (check: string, status: CheckStatus, message: string, hint?: string) => void checks.push({check, status, message, ...(hint ? {hint} : {})})
  const env = o.env ?? process.env

  const git = spawnSync('git', ['--version'], {encoding: 'utf8', env})
  if (git.status === 0) add('git', 'ok', git.stdout.trim())
  else add('git', 'problem', `git does not run (${git.error ? (git.error as NodeJS.ErrnoException).code : `exit ${git.status}`})`, 'install git and put it on PATH')

  if (o.repoRoot === null) add('repository', 'problem', `${o.cwd} is not in a git work tree`, 'run tasks mcp in the repository the agents work in (or pass -C DIR)')
  else add('repository', 'ok', `work tree ${o.repoRoot}`)

  let session: Session | null = null
  let registryOk = false
  const known = async (agent: string, where: string): Promise<void> => {
    if (!session || !registryOk) return
    try {
      const r = await checkAgent(session, agent)
      add(where === 'agent' ? 'agent' : where, 'ok', r.registry ? `agent ${r.agent}${r.actor !== r.agent ? ` (alias of ${r.actor})` : ''} is an actor of list ${o.list}` : `agent ${r.agent} (the list has no actor registry yet: any name is taken)`)
    } catch (error) {
      add(where, 'problem', (error as Error).message, error instanceof TasksError && error.code === 'unknown_agent' ? `tasks actor add ${agent}` : undefined)
    }
  }
  try {
    if (o.repoRoot !== null && git.status === 0) {
      try {
        session = await Session.open({...o, as: o.as ?? o.agent})
      } catch (error) {
        add('list', 'problem', (error as Error).message)
      }
    }
    if (session) {
      try {
        const loaded = await session.store.load()
        add('list', 'ok', `list ${o.list}: ${loaded.snapshot.tasks.size} task${loaded.snapshot.tasks.size === 1 ? '' : 's'} at ${session.store.tip?.slice(0, 10)}`)
        registryOk = true
      } catch (error) {
        add('list', 'problem', (error as Error).message, `tasks init${o.list === 'main' ? '' : ` --list ${o.list}`}`)
      }
      try {
        add('identity', 'ok', `the server acts as ${await session.actor()}`)
      } catch (error) {
        add('identity', 'problem', (error as Error).message, 'pass --agent or --as, or set TASKS_ACTOR / git config tasks.actor')
      }
      if (o.agent !== undefined) await known(o.agent, 'agent')
    } else if (o.agent !== undefined && o.agent.trim() === '') {
      add('agent', 'problem', '--agent is blank')
    }

    let configured = 0
    for (const client of MCP_CLIENTS) {
      const where = `client:${client}`
      const c = configuredClient(client, o.repoRoot ?? o.cwd, o.home)
      if (!c.exists) {
        add(where, 'note', `no config file (${c.path})`)
        continue
      }
      if (c.error) {
        add(where, 'problem', `${c.path}: ${c.error}`, 'fix the file, or run tasks mcp install --client ' + client + ' to see the entry')
        continue
      }
      if (c.servers.length === 0) {
        add(where, 'note', `${c.path} has no git-tasks server`)
        continue
      }
      for (const s of c.servers) {
        configured++
        const label = `${c.path} [${s.key}]`
        const cwd = flagValue(s.args, '-C') ?? o.repoRoot ?? o.cwd
        const found = s.command ? commandFound(s.command, o.repoRoot ?? o.cwd, env) : null
        if (!s.command) add(where, 'problem', `${label} has no command`, `tasks mcp install --client ${client} --write`)
        else if (!found) add(where, 'problem', `${label} starts "${s.command}", which is not on PATH`, 'put tasks on PATH (npm link, or an absolute path in the entry)')
        else if (!s.args.includes('mcp')) add(where, 'problem', `${label} does not run \`mcp\` (args: ${s.args.join(' ')})`, `tasks mcp install --client ${client} --write`)
        else if (c.scope === 'user' && o.repoRoot !== null && resolve(cwd) !== resolve(o.repoRoot)) add(where, 'note', `${label} serves another repository (${cwd})`)
        else {
          const list = flagValue(s.args, '--list') ?? 'main'
          const agent = flagValue(s.args, '--agent')
          if (agent !== undefined && list === o.list) {
            const before = checks.length
            await known(agent, where)
            // The agent line names the entry it came from.
            for (const ch of checks.slice(before)) ch.message = `${label}: ${ch.message}`
            if (checks.length === before) add(where, 'ok', `${label} runs ${found} ${s.args.join(' ')}`)
          } else {
            add(where, 'ok', `${label} runs ${found} ${s.args.join(' ')}`)
          }
        }
      }
    }
    if (configured === 0) add('clients', 'problem', 'no agent client is configured to start tasks mcp', 'tasks mcp install --write (or --client NAME, --fleet)')
  } finally {
    session?.close()
  }
  const problems = checks.filter((c) => c.status === 'problem').length
  return {ok: problems === 0, problems, checks}
}
