/**
 * Whether the process a pid file or lock names still lives: the one test
 * behind the board's and the reminder daemon's pid files and the hooks
 * worker's queue lock. Signal 0 asks the system without touching the
 * process.
 */
import {readFileSync} from 'node:fs'

/**
 * With `runs`, the process must be a `tasks <runs>`: a pid held by another
 * user (EPERM) is not one of ours (ours run as us), and where /proc shows
 * command lines, a pid reused by another program, or a zombie (an empty
 * command line), is not it either. Without `runs`, any live process counts.
 */
export function processAlive(pid: number, runs?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM' || runs !== undefined) return false
    return true
  }
  if (runs === undefined) return true
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(runs)
  } catch {
    return true
  }
}
