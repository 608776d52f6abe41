/**
 * The one place that starts `git`. A small typed layer over child_process:
 * arguments are always an array (never a shell string), output is captured
 * whole, and the environment is passed through untouched except where a
 * caller asks (GIT_TERMINAL_PROMPT=0 so a fetch never waits on a password
 * prompt nobody will answer).
 *
 * A network call can be given a hard deadline: git then runs in its own
 * process group, and at the deadline the whole group is killed (git and the
 * helpers it started: git-remote-http, ssh, a local upload-pack), so a
 * remote that accepts a connection and never answers cannot hang a command.
 */
import {spawn} from 'node:child_process'
import {EnvironmentError} from '../core/errors'

export interface GitResult {
  code: number
  stdout: string
  stderr: string
  /** True when the deadline passed and the process group was killed (code is then 1). */
  timedOut?: boolean
}

export interface GitOptions {
  cwd: string
  input?: string
  env?: Record<string, string>
  /** Kill git and every process it started after this many milliseconds (unset or 0: no deadline). */
  deadlineMs?: number
  /** Stop git when this is aborted (the promise then rejects). */
  signal?: AbortSignal
}

/** Signals that end this process while a detached git group runs: the group must not outlive us. */
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']
const groups = new Set<number>()
let forwarding = false

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

/**
 * A detached child is in its own process group, so a Ctrl-C at the terminal
 * no longer reaches it: while any such group runs, pass these signals on by
 * killing the groups, then die of the signal as we would have.
 */
function forwardSignals(): void {
  if (forwarding) return
  forwarding = true
  for (const sig of FORWARDED) {
    process.once(sig, () => {
      for (const pid of groups) killGroup(pid)
      process.kill(process.pid, sig)
    })
  }
  process.once('exit', () => {
    for (const pid of groups) killGroup(pid)
  })
}

/** Run git and capture its output; never throws for a non-zero exit (check `code`). */
export function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const deadline = options.deadlineMs && options.deadlineMs > 0 ? options.deadlineMs : 0
    const child = spawn('git', args as string[], {
      cwd: options.cwd,
      env: {...process.env, GIT_TERMINAL_PROMPT: '0', ...options.env},
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      // Its own process group, so the deadline can kill the helpers git starts too.
      detached: deadline > 0,
      signal: options.signal,
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let timedOut = false
    let timer: NodeJS.Timeout | undefined
    if (deadline > 0 && child.pid !== undefined) {
      const pid = child.pid
      groups.add(pid)
      forwardSignals()
      timer = setTimeout(() => {
        timedOut = true
        killGroup(pid)
      }, deadline)
    }
    const settle = () => {
      if (timer) clearTimeout(timer)
      if (child.pid !== undefined) groups.delete(child.pid)
    }
    child.stdout!.on('data', (b: Buffer) => out.push(b))
    child.stderr!.on('data', (b: Buffer) => err.push(b))
    child.on('error', (e: NodeJS.ErrnoException) => {
      settle()
      reject(
        e.code === 'ENOENT'
          ? new EnvironmentError('git_not_found', 'git is not installed or not on PATH')
          : new EnvironmentError('git_failed', `could not run git: ${e.message}`),
      )
    })
    child.on('close', (code) => {
      settle()
      resolve({code: timedOut ? 1 : (code ?? 1), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ...(timedOut ? {timedOut} : {})})
    })
    if (options.input !== undefined) child.stdin!.end(options.input)
  })
}

/**
 * Start git in the background and forget it (housekeeping such as
 * `git maintenance run --auto`): its own process group, no stdio, not
 * waited for, so the command that started it exits at once.
 */
export function gitDetached(args: readonly string[], cwd: string): void {
  try {
    const child = spawn('git', args as string[], {cwd, env: {...process.env, GIT_TERMINAL_PROMPT: '0'}, stdio: 'ignore', detached: true})
    child.on('error', () => undefined)
    child.unref()
  } catch {
    // Housekeeping is best-effort.
  }
}

/** Run git and return stdout; a non-zero exit becomes an EnvironmentError quoting git. */
export async function gitOk(args: readonly string[], options: GitOptions): Promise<string> {
  const r = await git(args, options)
  if (r.code !== 0) {
    throw new EnvironmentError('git_failed', `git ${args[0]} failed: ${r.stderr.trim().split('\n').pop() ?? `exit ${r.code}`}`, {
      command: ['git', ...args].join(' '),
      stderr: r.stderr.trim(),
    })
  }
  return r.stdout
}

/**
 * Start git and read its standard output as it comes (text, in chunks), for
 * a walk that may stop early: `stop()` kills git (a `git log` over a long
 * history is not read to its end when the answer is already known). Always
 * call `stop()` when done reading; it is harmless after git has ended.
 */
export function gitStream(args: readonly string[], options: {cwd: string}): {chunks: AsyncIterable<string>; stop: () => void} {
  const child = spawn('git', args as string[], {cwd: options.cwd, env: {...process.env, GIT_TERMINAL_PROMPT: '0'}, stdio: ['ignore', 'pipe', 'ignore']})
  child.on('error', () => undefined)
  child.stdout.setEncoding('utf8')
  return {
    chunks: child.stdout as AsyncIterable<string>,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill()
    },
  }
}
