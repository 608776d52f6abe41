/**
 * Finding the repository: git dir, common dir (shared by worktrees), object
 * directory and object format, plus the current value of the tasks ref, in
 * one `git rev-parse` call. Also reads the few git config values the CLI
 * uses (actor identity) in one `git config` call.
 */
import {existsSync, readFileSync, statSync} from 'node:fs'
import {dirname, isAbsolute, join, resolve} from 'node:path'
import {EnvironmentError} from '../core/errors'
import {git} from './git-process'
import type {HashAlgorithm} from './git-objects'

export interface Repository {
  /** Directory the command runs in (inside the work tree or the git dir). */
  cwd: string
  gitDir: string
  commonDir: string
  objectsDir: string
  algorithm: HashAlgorithm
}

export interface Discovered {
  repo: Repository
  /** Current value of the requested ref, or null when it does not exist. */
  tip: string | null
}

/** Locate the repository from `cwd` and read `ref` (in-process when it is plain, else via git). */
export async function discover(cwd: string, ref: string): Promise<Discovered> {
  return discoverInProcess(cwd, ref) ?? discoverWithGit(cwd, ref)
}

/** Environment variables that change how git finds a repository: leave those cases to git. */
const DISCOVERY_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM', 'GIT_NAMESPACE', 'GIT_INDEX_FILE']

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

function readText(p: string): string | null {
  try {
    return readFileSync(p, 'utf8')
  } catch {
    return null
  }
}

/**
 * What `git rev-parse` would find, read from the file system for the plain
 * cases (a .git directory or gitfile above cwd, or cwd inside a git dir; the
 * files ref backend; our own user owns it). Anything unusual returns null and
 * goes to git itself: discovery env vars, includes in the config, reftable,
 * a symbolic ref, another owner (git's safe.directory check).
 */
export function discoverInProcess(cwd: string, ref: string): Discovered | null {
  if (DISCOVERY_ENV.some((v) => process.env[v] !== undefined)) return null
  let dir = resolve(cwd)
  let gitDir: string | null = null
  for (;;) {
    const dotGit = join(dir, '.git')
    if (isDir(dotGit)) {
      gitDir = dotGit
      break
    }
    const gitFile = readText(dotGit)
    if (gitFile !== null) {
      const m = /^gitdir: (.+)$/m.exec(gitFile)
      if (!m) return null
      gitDir = resolve(dir, m[1]!.trim())
      break
    }
    if (existsSync(join(dir, 'HEAD')) && isDir(join(dir, 'objects')) && isDir(join(dir, 'refs'))) {
      gitDir = dir
      break
    }
    const up = dirname(dir)
    if (up === dir) return null
    dir = up
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1
  try {
    if (uid !== -1 && statSync(gitDir).uid !== uid) return null
  } catch {
    return null
  }
  const commonFile = readText(join(gitDir, 'commondir'))
  const commonDir = commonFile ? resolve(gitDir, commonFile.trim()) : gitDir
  const config = readText(join(commonDir, 'config'))
  if (config === null || /^\s*\[\s*include/im.test(config) || /refstorage|worktreeconfig/i.test(config)) return null
  const format = /^\s*objectformat\s*=\s*(\w+)/im.exec(config)?.[1]?.toLowerCase() ?? 'sha1'
  if (format !== 'sha1' && format !== 'sha256') return null
  const oidRe = format === 'sha1' ? /^[0-9a-f]{40}$/ : /^[0-9a-f]{64}$/
  let tip: string | null = null
  const loose = readText(join(commonDir, ...ref.split('/')))
  if (loose !== null) {
    const value = loose.trim()
    if (!oidRe.test(value)) return null // symbolic or odd: let git resolve it
    tip = value
  } else {
    const packed = readText(join(commonDir, 'packed-refs'))
    if (packed) {
      for (const line of packed.split('\n')) {
        if (line.endsWith(` ${ref}`) && oidRe.test(line.slice(0, line.indexOf(' ')))) {
          tip = line.slice(0, line.indexOf(' '))
          break
        }
      }
    }
  }
  return {repo: {cwd, gitDir, commonDir, objectsDir: join(commonDir, 'objects'), algorithm: format}, tip}
}

/**
 * The value of `section.key` (no subsection) in the repository's own config
 * file, read in-process: undefined when the file does not set it (git's
 * other config files may), null when git must be asked instead. Git is
 * asked whenever this reader might differ from it: an include or includeIf
 * anywhere in the file, configuration passed in the environment
 * (`git -c`, GIT_CONFIG_COUNT), a key set without `=` (a boolean), or any
 * syntax git would reject.
 */
/**
 * False only when no config file git would read can set a key matching
 * `word` (a cheap text search of the repository's, the user's and the
 * system's config files, none of which includes another file, and no
 * configuration from the environment): then asking `git config` can be
 * skipped. True means "ask git". GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM
 * name the file git reads instead of the user's two files or the system's
 * one: that file is searched instead (a relative name, which git resolves
 * from its own working directory, means "ask git").
 */
export function configMayMention(commonDir: string, word: RegExp): boolean {
  const files = configFiles(commonDir)
  if (files === null) return true
  return files.some((f) => {
    const text = readText(f)
    return text !== null && (word.test(text) || /\[\s*include/i.test(text))
  })
}

/** The config files configMayMention searches; null when the environment says to ask git. */
function configFiles(commonDir: string): string[] | null {
  const env = process.env
  if (['GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_CONFIG'].some((v) => env[v] !== undefined)) return null
  const named = [env.GIT_CONFIG_GLOBAL, env.GIT_CONFIG_SYSTEM]
  if (named.some((f) => f !== undefined && !isAbsolute(f))) return null
  const home = env.HOME ?? ''
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config')
  const user = env.GIT_CONFIG_GLOBAL !== undefined ? [env.GIT_CONFIG_GLOBAL] : [join(home, '.gitconfig'), join(xdg, 'git', 'config')]
  return [join(commonDir, 'config'), join(commonDir, 'config.worktree'), ...user, env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig']
}

/**
 * A stamp of the config files configMayMention reads (each one's inode,
 * size and modification time, one stat each): a long-lived process keeps
 * what it learnt from them while the stamp stays the same. git rewrites a
 * config file through a lock file renamed into place, so an edit changes
 * the inode.
 */
export function configStamp(commonDir: string): string {
  const files = configFiles(commonDir)
  if (files === null) return 'environment'
  return files
    .map((f) => {
      try {
        const st = statSync(f, {throwIfNoEntry: false})
        return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '-'
      } catch {
        return '-' // unreadable as configMayMention's read would find it
      }
    })
    .join('|')
}

export function readLocalConfigValue(commonDir: string, section: string, key: string): string | undefined | null {
  if (['GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_CONFIG'].some((v) => process.env[v] !== undefined)) return null
  const text = readText(join(commonDir, 'config'))
  if (text === null) return undefined
  return configFileValue(text, section, key)
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r'
const isKeyChar = (c: string): boolean => /^[A-Za-z0-9-]$/.test(c)

/**
 * `section.key` in the text of one git config file, parsed the way git's
 * config.c parses it: section and key names are case-insensitive,
 * subsections are not; a value has leading and trailing blanks removed and
 * each run of unquoted blanks inside kept as that many spaces; `"` quotes,
 * `\\`, `\"`, `\n`, `\t` and `\b` escape, a backslash at the end of a line
 * continues the value; `#` and `;` start a comment outside quotes; CRLF
 * counts as LF; a leading byte order mark is skipped. The last value wins.
 * Undefined when unset; null when git must be asked (see readLocalConfigValue).
 */
export function configFileValue(text: string, section: string, key: string): string | undefined | null {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text
  let i = 0
  /** The next character, '\n' at the end of the file (as git's get_next_char). */
  const next = (): string => {
    if (i >= src.length) {
      i = src.length + 1
      return '\n'
    }
    let c = src[i++]!
    if (c === '\r' && src[i] === '\n') c = src[i++]!
    return c
  }
  const eof = () => i > src.length
  let current: string | null = null
  let value: string | undefined
  let comment = false
  for (;;) {
    const c = next()
    if (c === '\n') {
      if (eof()) return value
      comment = false
      continue
    }
    if (comment || isSpace(c)) continue
    if (c === '#' || c === ';') {
      comment = true
      continue
    }
    if (c === '[') {
      // Section header: [name] or [name "subsection"]; anything git would refuse is left to git.
      let name = ''
      let sub: string | null = null
      let d = next()
      while (d !== ']' && !isSpace(d)) {
        if (eof() || (!isKeyChar(d) && d !== '.')) return null
        name += d.toLowerCase()
        d = next()
      }
      if (d !== ']') {
        do d = next()
        while (isSpace(d) && !eof())
        if (d !== '"') return null
        sub = ''
        for (;;) {
          d = next()
          if (d === '\n') return null
          if (d === '"') break
          if (d === '\\') {
            d = next()
            if (d === '\n') return null
          }
          sub += d
        }
        if (next() !== ']') return null
      }
      if (name === 'include' || name === 'includeif') return null
      current = sub === null ? name : null
      continue
    }
    if (!/^[A-Za-z]$/.test(c)) return null
    let name = c.toLowerCase()
    let d = next()
    while (isKeyChar(d)) {
      name += d.toLowerCase()
      d = next()
    }
    while (d === ' ' || d === '\t') d = next()
    const wanted = current === section && name === key
    if (d === '\n') {
      if (wanted) return null // a key without a value is a boolean: let git say what it means
      if (eof()) return value
      continue
    }
    if (d !== '=') return null
    // The value, as git's parse_value reads it.
    let out = ''
    let quote = false
    let spaces = 0
    let inComment = false
    for (;;) {
      let v = next()
      if (v === '\n') {
        if (quote) return null
        break
      }
      if (inComment) continue
      if (isSpace(v) && !quote) {
        if (out.length > 0) spaces++
        continue
      }
      if (!quote && (v === ';' || v === '#')) {
        inComment = true
        continue
      }
      out += ' '.repeat(spaces)
      spaces = 0
      if (v === '\\') {
        v = next()
        if (v === '\n') {
          if (eof()) return null
          continue
        }
        if (v === 't') v = '\t'
        else if (v === 'b') v = '\b'
        else if (v === 'n') v = '\n'
        else if (v !== '\\' && v !== '"') return null
        out += v
        continue
      }
      if (v === '"') {
        quote = !quote
        continue
      }
      out += v
    }
    if (wanted) value = out
    if (eof()) return value
  }
}

async function discoverWithGit(cwd: string, ref: string): Promise<Discovered> {
  const r = await git(['rev-parse', '--absolute-git-dir', '--git-common-dir', '--show-object-format', '--verify', '-q', `${ref}^{commit}`], {cwd})
  const lines = r.stdout.split('\n').filter(Boolean)
  if (lines.length < 3) {
    if (/not a git repository/i.test(r.stderr)) {
      throw new EnvironmentError('not_a_repository', `${cwd} is not inside a git repository; run this in a git repo (or \`git init\` one first)`, {cwd})
    }
    throw new EnvironmentError('git_failed', `git rev-parse failed: ${r.stderr.trim()}`)
  }
  const [gitDir, commonRaw, format] = lines as [string, string, string]
  const commonDir = isAbsolute(commonRaw) ? commonRaw : resolve(cwd, commonRaw)
  if (format !== 'sha1' && format !== 'sha256') {
    throw new EnvironmentError('unsupported_object_format', `object format ${format} is not supported`)
  }
  const objectsDir = process.env.GIT_OBJECT_DIRECTORY ? resolve(cwd, process.env.GIT_OBJECT_DIRECTORY) : join(commonDir, 'objects')
  const tip = r.code === 0 && lines[3] ? lines[3] : null
  return {repo: {cwd, gitDir, commonDir, objectsDir, algorithm: format}, tip}
}

/** Read git config keys matching a regexp, as key → last value (keys are lower-cased by git). */
export async function readConfig(cwd: string, pattern: string): Promise<Map<string, string>> {
  const r = await git(['config', '--null', '--get-regexp', pattern], {cwd})
  const out = new Map<string, string>()
  if (r.code !== 0) return out
  for (const record of r.stdout.split('\0')) {
    if (!record) continue
    const nl = record.indexOf('\n')
    if (nl === -1) out.set(record, '')
    else out.set(record.slice(0, nl), record.slice(nl + 1))
  }
  return out
}

/** Set (value) or unset (null) a key in the repository's own config (.git/config). */
export async function writeConfig(cwd: string, key: string, value: string | null): Promise<void> {
  const args = value === null ? ['config', '--local', '--unset-all', key] : ['config', '--local', key, value]
  const r = await git(args, {cwd})
  // Exit 5 from --unset-all means the key was not set: nothing to do.
  if (r.code !== 0 && !(value === null && r.code === 5)) {
    throw new EnvironmentError('git_failed', `git config ${key} failed: ${r.stderr.trim()}`)
  }
}

/** The top of the work tree `cwd` is in (`git rev-parse --show-toplevel`), or null in a bare repository. */
export async function workTreeRoot(cwd: string): Promise<string | null> {
  const r = await git(['rev-parse', '--show-toplevel'], {cwd})
  const top = r.stdout.trim()
  return r.code === 0 && top ? top : null
}
