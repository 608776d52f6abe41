/**
 * The command line before oclif sees it. oclif wants the command id first
 * and knows no `-h`; people type `tasks --json list`, `tasks -C ../repo
 * list`, `tasks add -h` and `tasks lst`, as they would with git or gh. This
 * module turns argv into one of: run this argv, show help for this command,
 * or a usage error with a "did you mean". It reads only the command table
 * (flag definitions), never the engine.
 */
import {UsageError} from '../core/errors'

/** What argv.ts needs to know of a command class. */
export interface CommandInfo {
  summary?: string
  hidden?: boolean
  aliases?: string[]
  strict?: boolean
  flags?: Record<string, FlagInfo>
  baseFlags?: Record<string, FlagInfo>
  args?: Record<string, {description?: string; required?: boolean}>
}

export interface FlagInfo {
  type: 'boolean' | 'option'
  char?: string
  options?: readonly string[]
  description?: string
  hidden?: boolean
  allowNo?: boolean
}

export type CommandTable = Record<string, CommandInfo>

/** Commands main() answers itself, outside the oclif table. */
export const BUILTIN_COMMANDS: Record<string, string> = {
  help: 'Show help for tasks or for one command (also -h, --help).',
}

/** Global flags that may come before the command name; `true` when they take a value. */
const GLOBAL_FLAGS: Record<string, boolean> = {'--json': false, '--offline': false, '--list': true, '--as': true}

export type Resolved =
  | {kind: 'run'; argv: string[]}
  | {kind: 'help'; words: string[]}
  | {kind: 'version'}

/** Command ids as people type them: `remote:set` is `remote set`. */
export function typedId(id: string): string {
  return id.replace(/:/g, ' ')
}

/** Every name a person may type, mapped to its command id. */
function names(table: CommandTable): Map<string, string> {
  const m = new Map<string, string>()
  for (const [id, c] of Object.entries(table)) {
    m.set(id, id)
    for (const a of c.aliases ?? []) m.set(a, id)
  }
  return m
}

/** Topics (the first word of a multi-word id), with their sub-command words. */
function topics(table: CommandTable): Map<string, string[]> {
  const m = new Map<string, string[]>()
  for (const id of Object.keys(table)) {
    const [topic, sub] = id.split(':')
    if (sub !== undefined) m.set(topic!, [...(m.get(topic!) ?? []), sub])
  }
  return m
}

/**
 * Resolve argv. Leading global flags move after the command id; `-C DIR`
 * changes directory (like git, several compose); `-h`/`--help` anywhere
 * outside a flag value and before `--` asks for help; an unknown command is
 * a UsageError (code `unknown_command`) with suggestions.
 */
export function resolveArgv(argv: string[], table: CommandTable, chdir: (dir: string) => void = process.chdir): Resolved {
  const moved: string[] = []
  let i = 0
  let help = false
  for (; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '-h' || a === '--help') help = true
    else if (a === '--version' && !help) return {kind: 'version'}
    else if (a === '-C' || a.startsWith('-C')) {
      const dir = a === '-C' ? argv[++i] : a.slice(2)
      if (dir === undefined) throw new UsageError('-C expects a directory (tasks -C DIR COMMAND …)', {flag: 'C'})
      try {
        if (dir !== '') chdir(dir)
      } catch (error) {
        throw new UsageError(`cannot change to ${dir}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (error as Error).message}`, {path: dir})
      }
    } else if (a.startsWith('--') && a.split('=')[0]! in GLOBAL_FLAGS) {
      const name = a.split('=')[0]!
      moved.push(a)
      if (GLOBAL_FLAGS[name] && !a.includes('=')) {
        if (i + 1 >= argv.length) throw new UsageError(`${name} expects a value`, {flag: name.slice(2)})
        moved.push(argv[++i]!)
      }
    } else break
  }
  const rest = argv.slice(i)
  if (rest.length === 0) return {kind: 'help', words: []}
  const word = rest[0]!
  if (word.startsWith('-')) {
    throw new UsageError(`unknown flag ${word} before the command: global flags are ${Object.keys(GLOBAL_FLAGS).join(', ')}, -C DIR, -h`, {flag: word})
  }
  if (word === 'help') return {kind: 'help', words: helpWords(rest.slice(1), table)}

  const byName = names(table)
  const tops = topics(table)
  let id = byName.get(word)
  let used = 1
  if (tops.has(word) && rest[1] !== undefined && !rest[1].startsWith('-')) {
    const sub = `${word}:${rest[1]}`
    if (table[sub]) {
      id = sub
      used = 2
    } else throw unknownCommand(`${word} ${rest[1]}`, table)
  } else if (id === undefined && tops.has(word)) {
    return {kind: 'help', words: [word]}
  }
  if (id === undefined) throw unknownCommand(word, table)

  const tail = rest.slice(used)
  const info = table[id]!
  const valueFlags = flagsTakingValues(info)
  let end = tail.indexOf('--')
  for (let j = 0; j < tail.length; j++) {
    const t = tail[j]!
    if (t === '--') break
    if (t === '-h' || t === '--help') help = true
    else if (valueFlags.has(t)) j++ // the next word is this flag's value, whatever it looks like
  }
  if (help) return {kind: 'help', words: [id]}
  if (end === -1) end = tail.length
  return {kind: 'run', argv: [id, ...tail.slice(0, end), ...moved, ...tail.slice(end)]}
}

/** `tasks help remote set` → ['remote:set']; unknown words are a usage error. */
function helpWords(words: string[], table: CommandTable): string[] {
  const plain = words.filter((w) => !w.startsWith('-'))
  if (plain.length === 0) return []
  const byName = names(table)
  if (plain.length >= 2 && table[`${plain[0]}:${plain[1]}`]) return [`${plain[0]}:${plain[1]}`]
  const id = byName.get(plain[0]!) ?? (topics(table).has(plain[0]!) ? plain[0]! : undefined)
  if (id === undefined) throw unknownCommand(plain[0]!, table)
  return [id]
}

/** The spellings (`--lease`, `-t`) of a command's flags that take a value. */
export function flagsTakingValues(info: CommandInfo): Set<string> {
  const out = new Set<string>()
  for (const [name, f] of Object.entries({...info.baseFlags, ...info.flags})) {
    if (f.type !== 'option') continue
    out.add(`--${name}`)
    if (f.char) out.add(`-${f.char}`)
  }
  return out
}

/** Levenshtein distance (insert, delete, substitute, and swap of neighbours). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({length: a.length + 1}, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[a.length]![b.length]!
}

/** The closest candidates to `typed`: within 2 edits (1 for words of 3 letters or fewer), or that it prefixes. */
export function suggest(typed: string, candidates: readonly string[]): string[] {
  const limit = typed.length <= 3 ? 1 : 2
  const scored = candidates
    .map((c) => ({c, d: c.startsWith(typed) && typed.length >= 2 ? 0.5 : editDistance(typed, c)}))
    .filter((x) => x.d <= limit)
  const best = Math.min(...scored.map((x) => x.d))
  // Only the closest: "lsit" is "list", not also "edit" and "init".
  const closest = scored.filter((x) => x.d === best).map((x) => x.c)
  return [...new Set(closest)].sort().slice(0, 3)
}

function unknownCommand(typed: string, table: CommandTable): UsageError {
  const visible = [...Object.keys(BUILTIN_COMMANDS), ...Object.entries(table).flatMap(([id, c]) => (c.hidden ? [] : [typedId(id), ...(c.aliases ?? [])]))]
  const suggestions = suggest(typed, visible)
  const hint = suggestions.length ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}?` : ''
  return new UsageError(`"${typed}" is not a tasks command.${hint} Run \`tasks help\` to see them all.`, {command: typed, suggestions}, 'unknown_command')
}
