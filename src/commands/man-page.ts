/**
 * `git tasks help COMMAND` (and `git tasks COMMAND --help`) opens the
 * command's man page, as `git help` does for git's own commands; `tasks help
 * COMMAND` prints the help text, which is what an agent wants. The pages are
 * written by scripts/build.mjs into man/man1/tasks-<command>.1 and shipped in
 * the package; `man` is given the file itself, so a page is found whether or
 * not the package's man directory is on MANPATH. No `man` on the machine, or
 * no page: the help text, as from `tasks`.
 */
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {basename, join} from 'node:path'

/** True when git started us (`git tasks …` runs the `git-tasks` executable). */
export function invokedThroughGit(script: string = process.argv[1] ?? ''): boolean {
  return basename(script) === 'git-tasks'
}

/** The shipped man page of a command (`['session', 'create']` → tasks-session-create.1), or null. */
export function manPageFile(root: string, words: readonly string[]): string | null {
  // A topic's command may come as one id (`session create`) or as words.
  const parts = words.flatMap((w) => w.split(/[\s:]+/)).filter(Boolean)
  if (parts.length === 0 || parts.some((w) => !/^[a-z][a-z0-9-]*$/.test(w))) return null
  const file = join(root, 'man', 'man1', `tasks-${parts.join('-')}.1`)
  return existsSync(file) ? file : null
}

/** Show the page with `man`; false when there is no page or `man` could not show it. */
export function openManPage(root: string, words: readonly string[]): Promise<boolean> {
  const file = manPageFile(root, words)
  if (!file) return Promise.resolve(false)
  return new Promise((resolve) => {
    const child = spawn('man', [file], {stdio: 'inherit'})
    child.on('error', () => resolve(false))
    child.on('exit', (code) => resolve(code === 0))
  })
}
