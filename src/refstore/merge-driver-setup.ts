/**
 * Registers git-tasks as a git merge driver, as a fallback for people who
 * check the tasks ref out and merge it with plain git: `merge.tasks.driver`
 * in .git/config, and the task files routed to it through
 * `$GIT_COMMON_DIR/info/attributes` (never a committed .gitattributes, which
 * would route files on every branch of every clone). `tasks sync` itself
 * merges in-process and never relies on this.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {writeConfig} from './repository'

export const ATTRIBUTE_LINES = ['tasks/*/tsk-*/task.md merge=tasks', 'tasks/*/tsk-*/comments/*.md merge=tasks']

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/** Install the driver config and attributes; idempotent. `cli` is the path of bin/tasks. */
export async function installMergeDriver(cwd: string, commonDir: string, cli: string): Promise<void> {
  await writeConfig(cwd, 'merge.tasks.name', 'git-tasks field-level merge of task files')
  await writeConfig(cwd, 'merge.tasks.driver', `${shellQuote(process.execPath)} ${shellQuote(cli)} merge-driver %O %A %B %P`)
  const info = join(commonDir, 'info')
  const file = join(info, 'attributes')
  const current = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const missing = ATTRIBUTE_LINES.filter((l) => !current.split('\n').includes(l))
  if (missing.length === 0) return
  mkdirSync(info, {recursive: true})
  const prefix = current && !current.endsWith('\n') ? '\n' : ''
  writeFileSync(file, `${current}${prefix}# git-tasks: merge task files field by field (see \`tasks merge-driver --help\`)\n${missing.join('\n')}\n`)
}
