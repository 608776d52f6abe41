/**
 * The one place that starts `git`. A small typed layer over child_process:
 * arguments are always an array (never a shell string), output is captured
 * whole, and the environment is passed through untouched except where a
 * caller asks (GIT_TERMINAL_PROMPT=0 so a fetch never waits on a password
 * prompt nobody will answer).
 */
import {spawn} from 'node:child_process'
import {EnvironmentError} from '../core/errors'

export interface GitResult {
  code: number
  stdout: string
  stderr: string
}

export interface GitOptions {
  cwd: string
  input?: string
  env?: Record<string, string>
}

/** Run git and capture its output; never throws for a non-zero exit (check `code`). */
export function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args as string[], {
      cwd: options.cwd,
      env: {...process.env, GIT_TERMINAL_PROMPT: '0', ...options.env},
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout!.on('data', (b: Buffer) => out.push(b))
    child.stderr!.on('data', (b: Buffer) => err.push(b))
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(
        e.code === 'ENOENT'
          ? new EnvironmentError('git_not_found', 'git is not installed or not on PATH')
          : new EnvironmentError('git_failed', `could not run git: ${e.message}`),
      )
    })
    child.on('close', (code) => {
      resolve({code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8')})
    })
    if (options.input !== undefined) child.stdin!.end(options.input)
  })
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
