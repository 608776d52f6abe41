/**
 * Finding the repository: git dir, common dir (shared by worktrees), object
 * directory and object format, plus the current value of the tasks ref, in
 * one `git rev-parse` call. Also reads the few git config values the CLI
 * uses (actor identity) in one `git config` call.
 */
import {isAbsolute, join, resolve} from 'node:path'
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

/** Locate the repository from `cwd` and read `ref` in the same process. */
export async function discover(cwd: string, ref: string): Promise<Discovered> {
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
