/**
 * `tasks __complete WORD…`: what the shell completion scripts
 * (`tasks completion bash|zsh|fish`) call on every TAB. The words are the
 * command line after `tasks`, the last one being the word under the cursor
 * (possibly empty). Prints candidates, one per line, `value<TAB>description`.
 * Commands and flags come from the command table; only task ids open the
 * list (the index, one prefix search), so completion stays fast.
 */
import {BUILTIN_COMMANDS, type CommandTable, flagsTakingValues, typedId} from './argv'
import {engine} from './engine-loader'

export const SHELLS = ['bash', 'zsh', 'fish'] as const

/** Commands that act on open work: their ids complete only todo, in-progress and blocked items. */
const OPEN_ID_COMMANDS = new Set(['claim', 'done', 'block', 'release', 'heartbeat', 'checkpoint', 'cancel', 'takeover'])
export const OPEN_STATUSES: readonly string[] = ['todo', 'in_progress', 'blocked']
/** What `--status` of list and log takes (readiness.ts STATES, then open and all), comma-separated. */
const STATUS_VALUES = ['ready', 'waiting', 'reserved', 'todo', 'in_progress', 'stale', 'blocked', 'deferred', 'done', 'cancelled', 'failed', 'open', 'all']

/** Flags whose value is a task id. */
const ID_FLAGS = new Set(['--parent', '--depends-on', '-d'])
const GLOBAL_VALUE_FLAGS = new Set(['--list', '--as', '-C'])
const GLOBAL_FLAGS: Array<[string, string]> = [
  ['--json', 'JSON output'],
  ['--list', 'task list to use'],
  ['--as', 'act as this actor'],
  ['--offline', 'commit locally only'],
  ['--help', 'show help'],
]

export interface Candidate {
  value: string
  description: string
}

/**
 * Candidates for the last of `words`; `ids(prefix, list, statuses)` lists task ids (and titles)
 * that start with prefix, only of those statuses when given.
 */
export async function completeWords(
  words: string[],
  table: CommandTable,
  ids: (prefix: string, list: string, statuses?: readonly string[]) => Promise<Candidate[]>,
): Promise<Candidate[]> {
  const cur = words.at(-1) ?? ''
  const before = words.slice(0, -1)
  let list = process.env.TASKS_LIST || 'main'
  let i = 0
  // Global flags before the command.
  while (i < before.length && before[i]!.startsWith('-')) {
    if (GLOBAL_VALUE_FLAGS.has(before[i]!)) {
      if (before[i] === '--list' && before[i + 1]) list = before[i + 1]!
      if (before[i] === '-C' && before[i + 1]) process.chdir(before[i + 1]!)
      i++
    }
    i++
  }
  const prefixed = (cs: Candidate[]) => cs.filter((c) => c.value.startsWith(cur))
  const commandNames = (): Candidate[] => {
    const out: Candidate[] = Object.entries(BUILTIN_COMMANDS).map(([value, d]) => ({value, description: d}))
    const seen = new Set(out.map((c) => c.value))
    for (const [id, c] of Object.entries(table)) {
      const first = id.split(':')[0]!
      if (c.hidden || seen.has(first)) continue
      seen.add(first)
      out.push({value: first, description: id.includes(':') ? `${first} commands` : (c.summary ?? '')})
    }
    return out
  }
  if (i >= before.length) {
    if (before[i - 1] && GLOBAL_VALUE_FLAGS.has(before[i - 1]!)) return []
    return prefixed(cur.startsWith('-') ? GLOBAL_FLAGS.map(([value, description]) => ({value, description})) : commandNames())
  }
  let word = before[i]!
  i++
  if (word === 'help') return prefixed(commandNames())
  if (word === 'completion') return prefixed(SHELLS.map((s) => ({value: s, description: `${s} script`})))
  let id = Object.keys(table).find((k) => k === word || table[k]!.aliases?.includes(word))
  const subs = Object.keys(table).filter((k) => k.startsWith(`${word}:`))
  // A command that is also a topic (`remote`, `remote set`): its sub-commands come first, then its own flags.
  if (id && subs.length > 0) {
    if (i >= before.length && !cur.startsWith('-')) return prefixed(subs.map((k) => ({value: k.split(':')[1]!, description: table[k]!.summary ?? ''})))
    if (i < before.length && table[`${word}:${before[i]}`]) id = undefined
  }
  if (!id) {
    if (subs.length === 0) return []
    if (i >= before.length) return prefixed(subs.map((k) => ({value: k.split(':')[1]!, description: table[k]!.summary ?? ''})))
    word = `${word}:${before[i]}`
    i++
    id = table[word] ? word : undefined
    if (!id) return []
  }
  const info = table[id]!
  const flags = {...info.baseFlags, ...info.flags}
  const prev = before.at(-1)
  if (prev !== undefined && before.length > i && prev.startsWith('-') && flagsTakingValues(info).has(prev)) {
    if (ID_FLAGS.has(prev)) return ids(cur, list)
    const flag = Object.entries(flags).find(([n, f]) => `--${n}` === prev || `-${f.char}` === prev)?.[1]
    if (prev === '--list') return []
    if (prev === '--status' || (prev === '-s' && flags.status?.char === 's')) {
      // A comma-separated list: complete its last value, keep the ones typed before it.
      const done = cur.slice(0, cur.lastIndexOf(',') + 1)
      const typed = done === '' ? [] : done.split(',')
      return STATUS_VALUES.filter((v) => !typed.includes(v)).map((v) => ({value: done + v, description: ''})).filter((c) => c.value.startsWith(cur))
    }
    return prefixed((flag?.options ?? []).map((value) => ({value, description: ''})))
  }
  if (cur.startsWith('-')) {
    return prefixed(
      Object.entries(flags)
        .filter(([, f]) => !f.hidden)
        .map(([n, f]) => ({value: `--${n}`, description: (f.description ?? '').replace(/\.$/, '')}))
        .concat([{value: '--help', description: `help for ${typedId(id)}`}]),
    )
  }
  const takesIds = Object.keys(info.args ?? {}).some((a) => a === 'id') || id === 'deps'
  return takesIds ? ids(cur, list, OPEN_ID_COMMANDS.has(id) ? OPEN_STATUSES : undefined) : []
}

/** Task ids starting with `prefix` in `list` of the repository here, through the engine. */
export async function idCandidates(prefix: string, list: string, statuses?: readonly string[]): Promise<Candidate[]> {
  return engine().completeIds({cwd: process.cwd(), list}, prefix, statuses)
}

/** The script for `shell` that completes `tasks` (and, in bash, `git tasks`). */
export function completionScript(shell: (typeof SHELLS)[number]): string {
  switch (shell) {
    case 'bash':
      return `# tasks completion for bash. Install: tasks completion bash > ~/.local/share/bash-completion/completions/tasks
# (or add  eval "$(tasks completion bash)"  to ~/.bashrc). Also completes \`git tasks\`.
__tasks_complete_words() {
  local IFS=$'\\n' line
  local -a out
  out=($(tasks __complete "$@" 2>/dev/null)) || return 0
  COMPREPLY=()
  for line in "\${out[@]}"; do COMPREPLY+=("\${line%%$'\\t'*}"); done
}
_tasks() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  __tasks_complete_words "\${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur"
}
_git_tasks() {
  # git's own completion calls this for \`git tasks …\`; words after "tasks".
  local cur=\${COMP_WORDS[COMP_CWORD]} i=1
  while [[ $i -lt $COMP_CWORD && \${COMP_WORDS[i]} != tasks ]]; do i=$((i + 1)); done
  __tasks_complete_words "\${COMP_WORDS[@]:i+1:COMP_CWORD-i-1}" "$cur"
}
complete -o default -F _tasks tasks
`
    case 'zsh':
      return `#compdef tasks
# tasks completion for zsh. Install: tasks completion zsh > "\${fpath[1]}/_tasks"
# (or add  source <(tasks completion zsh)  to ~/.zshrc, after compinit).
_tasks() {
  local -a lines cands
  local line
  lines=("\${(@f)$(tasks __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for line in $lines; do
    [[ -n $line ]] || continue
    cands+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
  done
  _describe -t tasks 'tasks' cands
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _tasks "$@"; else compdef _tasks tasks; fi
`
    case 'fish':
      return `# tasks completion for fish. Install: tasks completion fish > ~/.config/fish/completions/tasks.fish
function __tasks_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    # "$cur" is always one argument, even when the word under the cursor is empty.
    tasks __complete $words[2..-1] "$cur" 2>/dev/null
end
complete -c tasks -f -a '(__tasks_complete)'
`
  }
}
