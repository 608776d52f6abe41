/**
 * Registers git-tasks as a git merge driver, as a fallback for people who
 * check the tasks ref out and merge it with plain git: `merge.tasks.driver`
 * in .git/config, and the task files routed to it through
 * `$GIT_COMMON_DIR/info/attributes` (never a committed .gitattributes, which
 * would route files on every branch of every clone). `tasks sync` itself
 * merges in-process and never relies on this.
 *
 * The command registered must outlive the tool's install location: when
 * `git-tasks` is on PATH it is `git-tasks merge-driver %O %A %B %P`,
 * resolved through PATH at merge time (a moved or reinstalled tool keeps
 * working). Only when it is not on PATH (run from a checkout) are absolute
 * paths to node and the script registered. `tasks init` and `doctor --fix`
 * replace a registration that is outdated (docs/remote.md).
 */
import {accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import {readConfig, writeConfig} from './repository'

export const ATTRIBUTE_LINES = ['tasks/*/tsk-*/task.md merge=tasks', 'tasks/*/tsk-*/comments/*.md merge=tasks']

/** The executable git finds for `git tasks`; registered by name when it is on PATH. */
export const TOOL_NAME = 'git-tasks'
const DRIVER_ARGS = 'merge-driver %O %A %B %P'
const NAME = 'git-tasks field-level merge of task files'

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/** Whether an executable `name` is in one of the PATH directories. */
export function onPath(name: string, pathEnv = process.env.PATH ?? ''): boolean {
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue
    const file = join(dir, name)
    try {
      if (!statSync(file).isFile()) continue
      accessSync(file, constants.X_OK)
      return true
    } catch {
      // not here
    }
  }
  return false
}

/** The driver command to register now: by name through PATH, else absolute paths to this node and `cli`. */
export function driverCommand(cli: string, pathEnv = process.env.PATH ?? ''): string {
  if (onPath(TOOL_NAME, pathEnv)) return `${TOOL_NAME} ${DRIVER_ARGS}`
  return `${shellQuote(process.execPath)} ${shellQuote(cli)} ${DRIVER_ARGS}`
}

export interface DriverRegistration {
  /** The command in merge.tasks.driver, or null when none is registered. */
  current: string | null
  /** What `tasks init` / `doctor --fix` would register now. */
  wanted: string
  /** True when a registration exists but differs from `wanted` (a moved checkout, or the tool now on PATH). */
  outdated: boolean
}

/** The registration in the repository's config compared with what would be registered now. */
export async function checkMergeDriver(cwd: string, cli: string): Promise<DriverRegistration> {
  const current = (await readConfig(cwd, '^merge\\.tasks\\.driver$')).get('merge.tasks.driver') ?? null
  const wanted = driverCommand(cli)
  return {current, wanted, outdated: current !== null && current !== wanted}
}

/** Install or refresh the driver config and attributes; idempotent. `cli` is the path of bin/tasks. */
export async function installMergeDriver(cwd: string, commonDir: string, cli: string): Promise<void> {
  const reg = await checkMergeDriver(cwd, cli)
  if (reg.current !== reg.wanted) {
    await writeConfig(cwd, 'merge.tasks.name', NAME)
    await writeConfig(cwd, 'merge.tasks.driver', reg.wanted)
  }
  const info = join(commonDir, 'info')
  const file = join(info, 'attributes')
  const current = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const missing = ATTRIBUTE_LINES.filter((l) => !current.split('\n').includes(l))
  if (missing.length === 0) return
  mkdirSync(info, {recursive: true})
  const prefix = current && !current.endsWith('\n') ? '\n' : ''
  writeFileSync(file, `${current}${prefix}# git-tasks: merge task files field by field (see \`tasks merge-driver --help\`)\n${missing.join('\n')}\n`)
}
