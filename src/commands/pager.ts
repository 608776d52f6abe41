/**
 * A pager for long human output (`tasks log`), as git does it: only when
 * stdout is a terminal; `TASKS_PAGER`, else `PAGER`, else `less` with
 * `LESS=FRX` (quit when it fits one screen, keep colours, leave the screen
 * as it was). An empty value or `cat` means no pager; `--no-pager` too.
 */
import {spawn} from 'node:child_process'

/** The pager command to run, or null for none. */
export function pagerCommand(env: NodeJS.ProcessEnv, isTTY: boolean, disabled: boolean): string | null {
  if (disabled || !isTTY) return null
  const chosen = env.TASKS_PAGER !== undefined ? env.TASKS_PAGER : env.PAGER !== undefined ? env.PAGER : 'less'
  const command = chosen.trim()
  if (command === '' || command === 'cat') return null
  return command
}

/**
 * Write `text` through `command` (run by the shell, like git's core.pager)
 * and wait for the pager to exit. If it cannot be started, print directly.
 */
export function writeThroughPager(command: string, text: string): Promise<void> {
  return new Promise((done) => {
    const env = {...process.env, LESS: process.env.LESS ?? 'FRX', LV: process.env.LV ?? '-c'}
    let child
    try {
      child = spawn(command, {shell: true, stdio: ['pipe', 'inherit', 'inherit'], env})
    } catch {
      process.stdout.write(text)
      done()
      return
    }
    let failed = false
    child.on('error', () => {
      failed = true
      process.stdout.write(text)
      done()
    })
    child.on('close', () => {
      if (!failed) done()
    })
    // A pager quit early (q) closes the pipe: that is not an error.
    child.stdin!.on('error', () => {})
    child.stdin!.end(text)
  })
}
