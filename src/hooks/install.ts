/**
 * `tasks hooks install | uninstall | status` in a working repository, and
 * `tasks server install-hook` in a bare one.
 *
 * Where hooks live is git's answer (`git rev-parse --git-path hooks`): the
 * common git dir's `hooks/` (shared by every worktree), or `core.hooksPath`
 * when set (husky, lefthook, pre-commit), relative to the top of the work
 * tree. A hook already there that is not ours is renamed to
 * `<name>.git-tasks-chained` (a rename keeps its content and mode exactly)
 * and our script runs it first; `uninstall` removes our script and renames
 * it back. A hook that is not ours is never overwritten in place.
 *
 * `install --copy` vendors the hooks into `.githooks/` at the top of the work
 * tree and points `core.hooksPath` there, for a team that commits its hooks:
 * those scripts start `tasks` from PATH (not this machine's node and
 * bin/tasks), so they are the same bytes on every clone. Hooks found in the
 * git dir's `hooks/` that are not ours would stop running once
 * core.hooksPath is set: the install refuses then, as it does when
 * core.hooksPath already names another directory.
 */
import {chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {isAbsolute, join, resolve} from 'node:path'
import {EnvironmentError, UsageError} from '../core/errors'
import {gitOk} from '../refstore/git-process'
import {CHAINED_SUFFIX, CLIENT_HOOKS, HOOK_MARKER, clientHookScript, preReceiveScript, shellQuote} from './scripts'
import {readFailures, type HookFailure} from './log'
import {parseQueue} from './queue'

export interface HookState {
  name: string
  path: string
  /** `ours`: our script; `foreign`: someone else's hook (left alone); `absent`: none. */
  state: 'ours' | 'foreign' | 'absent'
  /** The user's hook ours runs first, or null. */
  chained: string | null
}

export interface HooksResult {
  hooks_dir: string
  /** True when the directory is core.hooksPath rather than the git dir's hooks/. */
  hooks_path_config: boolean
  hooks: HookState[]
  /** The command the hooks run (node and bin/tasks), or null when none is installed. */
  command: string | null
  /** Status only: the newest failures of the background work, newest last. */
  failures?: HookFailure[]
  /** Status only: entries still waiting in the queue. */
  queued?: number
  /** The hooks are the vendored copy in the work tree's `.githooks/` (`install --copy`), run by `tasks` from PATH. */
  vendored: boolean
}

/** Where `install --copy` puts the hooks, relative to the top of the work tree (core.hooksPath's value). */
export const VENDORED_DIR = '.githooks'
/** The command vendored hooks start: `tasks` from PATH, the same on every clone. */
export const VENDORED_COMMAND = 'tasks'

/** The command hooks run: this node and this CLI, by absolute path (no PATH search per commit). */
export function cliCommand(cli: string): string {
  return `${shellQuote(process.execPath)} ${shellQuote(resolve(cli))}`
}

export function isOurs(path: string): boolean {
  try {
    const st = lstatSync(path)
    if (!st.isFile()) return false
    return readFileSync(path, 'utf8').split('\n', 3)[1]?.startsWith(HOOK_MARKER) ?? false
  } catch {
    return false
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

export interface HookPlace {
  dir: string
  commonDir: string
  hooksPathConfig: boolean
  /** The top of the work tree. */
  top: string
  /** The directory is the work tree's `.githooks/` named by core.hooksPath (`install --copy`). */
  vendored: boolean
}

/** The hooks directory git runs hooks from, for the repository at `cwd` (a work tree). */
export async function hookPlace(cwd: string): Promise<HookPlace> {
  let out: string
  try {
    out = await gitOk(['rev-parse', '--is-bare-repository', '--show-toplevel', '--git-common-dir'], {cwd})
  } catch {
    throw new EnvironmentError('not_a_repository', 'not in a git repository: run `tasks hooks` inside the work tree of one', {cwd})
  }
  const [bare, top, common] = out.trim().split('\n') as [string, string, string]
  if (bare === 'true' || !top) throw new UsageError('`tasks hooks` is for a working repository; for a bare (server) repository use `tasks server install-hook`', {cwd}, 'usage')
  const commonDir = resolve(cwd, common)
  const hooksPath = (await gitOk(['config', '--default', '', 'core.hooksPath'], {cwd: top})).trim()
  if (hooksPath) {
    const expanded = hooksPath.startsWith('~/') ? join(process.env.HOME ?? '', hooksPath.slice(2)) : hooksPath
    const dir = isAbsolute(expanded) ? expanded : resolve(top, expanded)
    return {dir, commonDir, hooksPathConfig: true, top, vendored: dir === resolve(top, VENDORED_DIR)}
  }
  return {dir: join(commonDir, 'hooks'), commonDir, hooksPathConfig: false, top, vendored: false}
}

function stateOf(dir: string, name: string): HookState {
  const path = join(dir, name)
  const chainedPath = path + CHAINED_SUFFIX
  const state = !exists(path) ? 'absent' : isOurs(path) ? 'ours' : 'foreign'
  return {name, path, state, chained: state === 'ours' && exists(chainedPath) ? chainedPath : null}
}

/** Write our script for `name` into `dir`, keeping what was there as the chained hook. */
export function installHook(dir: string, name: string, script: string): HookState {
  mkdirSync(dir, {recursive: true})
  const path = join(dir, name)
  const chained = path + CHAINED_SUFFIX
  if (exists(path) && !isOurs(path)) {
    if (exists(chained)) {
      throw new EnvironmentError('hook_conflict', `${path} is not a git-tasks hook and ${chained} already exists: move one of them away, then install again`, {path, chained})
    }
    renameSync(path, chained)
  }
  // Written whole then renamed: git never runs half a script.
  const tmp = `${path}.git-tasks-tmp`
  writeFileSync(tmp, script, {mode: 0o755})
  chmodSync(tmp, 0o755)
  renameSync(tmp, path)
  return stateOf(dir, name)
}

/** Remove our script and put the chained hook back; a hook that is not ours is left alone. */
export function uninstallHook(dir: string, name: string): HookState {
  const path = join(dir, name)
  const chained = path + CHAINED_SUFFIX
  if (isOurs(path)) {
    rmSync(path)
    if (exists(chained)) renameSync(chained, path)
  }
  return stateOf(dir, name)
}

function commandIn(hooks: HookState[]): string | null {
  for (const h of hooks) {
    if (h.state !== 'ours') continue
    const m = /exec setsid (.*?) hooks run\b/.exec(readFileSync(h.path, 'utf8'))
    if (m) return m[1]!.trim()
  }
  return null
}

export async function install(cwd: string, cli: string, {copy = false}: {copy?: boolean} = {}): Promise<HooksResult> {
  let place = await hookPlace(cwd)
  if (copy && !place.vendored) place = await vendor(place)
  // A vendored directory is committed: its scripts must not name this machine's paths.
  const command = place.vendored ? VENDORED_COMMAND : cliCommand(cli)
  const hooks = CLIENT_HOOKS.map((name) => installHook(place.dir, name, clientHookScript(name, command)))
  return {hooks_dir: place.dir, hooks_path_config: place.hooksPathConfig, hooks, command, vendored: place.vendored}
}

/**
 * Point core.hooksPath at the work tree's `.githooks/`. Refused (nothing
 * changed) when core.hooksPath already names another directory, or when the
 * git dir's `hooks/` holds a client hook that is not ours (it would stop
 * running); our own hooks there are removed, as they would never run again.
 */
async function vendor(place: HookPlace): Promise<HookPlace> {
  const dir = resolve(place.top, VENDORED_DIR)
  if (place.hooksPathConfig) {
    throw new EnvironmentError('hook_conflict', `core.hooksPath already names ${place.dir}: install there without --copy (its hooks are kept and chained), or unset core.hooksPath first`, {path: place.dir})
  }
  const silenced = CLIENT_HOOKS.map((name) => stateOf(place.dir, name)).filter((h) => h.state === 'foreign' || h.chained !== null)
  if (silenced.length > 0) {
    const paths = silenced.map((h) => h.chained ?? h.path)
    throw new EnvironmentError(
      'hook_conflict',
      `git would stop running ${paths.join(', ')} once core.hooksPath names ${VENDORED_DIR}: move ${paths.length === 1 ? 'it' : 'them'} into ${dir} (ours will chain to ${paths.length === 1 ? 'it' : 'them'}), or install without --copy`,
      {path: paths[0], paths},
    )
  }
  for (const name of CLIENT_HOOKS) uninstallHook(place.dir, name)
  mkdirSync(dir, {recursive: true})
  // Relative to the top of the work tree: every worktree and every clone finds its own copy.
  await gitOk(['config', 'core.hooksPath', VENDORED_DIR], {cwd: place.top})
  return {...place, dir, hooksPathConfig: true, vendored: true}
}

export async function uninstall(cwd: string): Promise<HooksResult> {
  const place = await hookPlace(cwd)
  const hooks = CLIENT_HOOKS.map((name) => uninstallHook(place.dir, name))
  let hooksPathConfig = place.hooksPathConfig
  // The vendored copy: once nothing is left in it, core.hooksPath goes too (git's hooks/ runs again).
  if (place.vendored && readdirOrEmpty(place.dir).length === 0) {
    rmSync(place.dir, {recursive: true, force: true})
    await gitOk(['config', '--unset', 'core.hooksPath'], {cwd: place.top})
    hooksPathConfig = false
  }
  return {hooks_dir: place.dir, hooks_path_config: hooksPathConfig, hooks, command: null, vendored: place.vendored}
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

export async function status(cwd: string): Promise<HooksResult> {
  const place = await hookPlace(cwd)
  const hooks = CLIENT_HOOKS.map((name) => stateOf(place.dir, name))
  const records = (file: string) => (existsSync(file) ? parseQueue(readFileSync(file, 'utf8')).records.length : 0)
  // Waiting: new records, and records kept for another try because the remote did not answer.
  const queued = records(join(place.commonDir, 'git-tasks', 'hook-queue')) + records(join(place.commonDir, 'git-tasks', 'hook-queue.retry'))
  return {hooks_dir: place.dir, hooks_path_config: place.hooksPathConfig, hooks, command: commandIn(hooks), failures: readFailures(place.commonDir, 10), queued, vendored: place.vendored}
}

export interface ServerHookResult {
  repository: string
  hook: HookState
  command: string
}

/** `tasks server install-hook <bare repo>`: the pre-receive guard, chained to an existing pre-receive. */
export async function installServerHook(repoPath: string, cli: string, uninstallIt = false): Promise<ServerHookResult> {
  let out: string
  try {
    out = await gitOk(['rev-parse', '--is-bare-repository', '--git-common-dir'], {cwd: repoPath})
  } catch {
    throw new EnvironmentError('not_a_repository', `${repoPath} is not a git repository`, {path: repoPath})
  }
  const [, common] = out.trim().split('\n') as [string, string]
  const commonDir = resolve(repoPath, common)
  const hooksPath = (await gitOk(['config', '--default', '', 'core.hooksPath'], {cwd: repoPath})).trim()
  const dir = hooksPath ? resolve(commonDir, hooksPath) : join(commonDir, 'hooks')
  const command = cliCommand(cli)
  const hook = uninstallIt ? uninstallHook(dir, 'pre-receive') : installHook(dir, 'pre-receive', preReceiveScript(command))
  return {repository: commonDir, hook, command}
}
