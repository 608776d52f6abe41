/**
 * The text of `tasks help` (also `tasks`, `tasks -h`, `tasks --help`, and
 * the man page scripts/build.mjs writes): commands, global flags, how the
 * actor is chosen, and the exit codes. Help for one command is oclif's.
 * Built from the command table only; never loads the engine.
 */
import {BUILTIN_COMMANDS, type CommandTable, typedId} from './argv'

const GLOBAL_FLAG_LINES: Array<[string, string]> = [
  ['--json', 'Print the result as one JSON object on stdout; an error as one JSON object on stderr.'],
  ['--list NAME', 'Use the task list refs/tasks/NAME (else $TASKS_LIST, else main).'],
  ['--as ACTOR', 'Act as ACTOR (see ACTOR below).'],
  ['--offline', 'Commit locally only, even with a remote configured (also TASKS_OFFLINE=1).'],
  ['-C DIR', 'Run as if tasks was started in DIR (before the command, as with git).'],
  ['-h, --help', 'Show help: `tasks help COMMAND` or `tasks COMMAND -h`.'],
  ['--version', 'Print the version.'],
]

const EXIT_LINES: Array<[string, string]> = [
  ['0', 'ok'],
  ['1', 'environment or internal error (not a repository, not initialised, git failed)'],
  ['2', 'usage: unknown command or flag, missing argument, bad id'],
  ['3', 'not found: no such task, nothing ready'],
  ['4', 'conflict: already claimed, waiting on dependencies, lost race'],
  ['5', 'invalid input: title too long, dependency cycle'],
  ['6', 'not permitted: not the owner, claim taken over'],
]

/**
 * The groups `tasks help` lists the commands in, most used first. A command
 * is placed by its id, or by its topic (`session create` by `session`); a
 * visible command in none of them is listed under OTHER, and
 * test/integration/cli-surface.test.ts fails until it is placed.
 */
export const HELP_GROUPS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['EVERYDAY', ['init', 'add', 'list', 'show', 'edit', 'search', 'claim', 'start', 'next', 'done', 'block', 'reopen', 'cancel', 'comment', 'deps', 'assign', 'rm', 'undo', 'help']],
  ['AGENTS', ['heartbeat', 'checkpoint', 'release', 'check', 'flag', 'unflag', 'defer', 'fail', 'batch', 'prime', 'mcp', 'session', 'scenario', 'inbox']],
  ['COLLABORATION', ['collab', 'watch', 'unwatch', 'notify', 'actor', 'stale', 'remind', 'takeover', 'sweep', 'board', 'graph']],
  ['HISTORY', ['log', 'diff', 'blame', 'events', 'restore', 'revert', 'plan', 'export', 'import']],
  ['SHARING AND SERVER', ['sync', 'remote', 'lists', 'branch', 'hooks', 'verify', 'server']],
  ['ADMINISTRATION', ['config', 'doctor', 'prune', 'completion']],
]

/** The group of a command id (`session create`: its topic's), or OTHER. */
export function helpGroupOf(id: string): string {
  const topic = id.split(' ')[0]!
  return HELP_GROUPS.find(([, ids]) => ids.includes(id) || ids.includes(topic))?.[0] ?? 'OTHER'
}

/** Wrap `text` to `width`, indenting continuation lines by `indent` spaces. */
function wrap(text: string, width: number, indent: number): string {
  const words = text.split(' ')
  const lines: string[] = []
  let line = ''
  for (const w of words) {
    if (line && indent + line.length + 1 + w.length > width) {
      lines.push(line)
      line = w
    } else line = line ? `${line} ${w}` : w
  }
  lines.push(line)
  return lines.join(`\n${' '.repeat(indent)}`)
}

function table(rows: Array<[string, string]>, width: number, leftColumn?: number): string {
  const left = leftColumn ?? Math.max(...rows.map(([a]) => a.length)) + 2
  return rows.map(([a, b]) => `  ${a.padEnd(left)}${wrap(b, width, left + 2)}`).join('\n')
}

/** The root help, fitted to `width` columns. */
export function rootHelp(commands: CommandTable, width = 80): string {
  const rows: Array<[string, string]> = Object.entries(commands)
    .filter(([, c]) => !c.hidden)
    .map(([id, c]) => [typedId(id), c.summary ?? ''])
  rows.push(...Object.entries(BUILTIN_COMMANDS))
  const left = Math.max(...rows.map(([a]) => a.length)) + 2
  const groups = new Map<string, Array<[string, string]>>()
  for (const row of rows) {
    const group = helpGroupOf(row[0].split(' ').filter((w) => /^[a-z][a-z-]*$/.test(w)).join(' '))
    groups.set(group, [...(groups.get(group) ?? []), row])
  }
  const order = [...HELP_GROUPS.map(([g]) => g), 'OTHER']
  const sections = order
    .filter((g) => groups.has(g))
    .map((g) => {
      const rows = groups.get(g)!
      const rank = (id: string) => {
        const at = HELP_GROUPS.find(([name]) => name === g)?.[1] ?? []
        const i = at.indexOf(id.split(' ')[0]!)
        return i === -1 ? at.length : i
      }
      rows.sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
      return `COMMANDS: ${g}\n${table(rows, width, left)}`
    })
  return `${[
    'tasks: a Git-native task tracker for coding agents and the humans who steer them.',
    '',
    'USAGE',
    '  tasks [GLOBAL FLAGS] COMMAND [ARGS] [FLAGS]',
    '  git tasks COMMAND …     the same, as a git subcommand (`git tasks -h` for this help)',
    '',
    sections.join('\n\n'),
    '',
    'GLOBAL FLAGS (before or after the command)',
    table(GLOBAL_FLAG_LINES, width),
    '',
    'ACTOR',
    `  ${wrap('Who you are, first found of: --as, $TASKS_ACTOR, git config tasks.actor, git config user.email.', width, 2)}`,
    '',
    'EXIT CODES',
    table(EXIT_LINES, width),
    `  ${wrap('With --json an error is {"error":{"code","message","exit",…}} on stderr; `code` is stable.', width, 2)}`,
    '',
    wrap('Flags and arguments may come in any order; a list-valued flag takes one value per use (-t a -t b, or -t a,b).', width, 0),
    wrap('Shell completion: `tasks completion bash|zsh|fish`. More: `tasks help COMMAND`.', width, 0),
  ].join('\n')}\n`
}
