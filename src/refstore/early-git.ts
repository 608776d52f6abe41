/**
 * The git processes bin/early-git.js started before the bundles loaded
 * (`git cat-file --batch`, `git update-ref --stdin`), handed to the code
 * that would otherwise start its own: each is taken at most once, and only
 * when it was started in the same directory and is still running. Anything
 * else (none started, another directory, already gone) returns null and the
 * caller starts its own process.
 */
import type {ChildProcess} from 'node:child_process'
import {existsSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {StdinRefUpdater} from './ref-transaction'
import {configMayMention} from './repository'

interface Started {
  proc: ChildProcess
  failed: boolean
}

interface EarlyGit {
  cwd: string
  catFile: Started | null
  updateRef: Started | null
}

const KEY = Symbol.for('git-tasks.early-git')

/** Take the early process of this kind for `cwd`, or null. */
export function takeEarlyGit(kind: 'catFile' | 'updateRef', cwd: string): ChildProcess | null {
  const early = (globalThis as {[KEY]?: EarlyGit})[KEY]
  const started = early?.[kind]
  if (!early || !started) return null
  early[kind] = null
  const proc = started.proc
  if (started.failed || resolve(early.cwd) !== resolve(cwd) || proc.exitCode !== null || proc.signalCode !== null || !proc.stdin || proc.stdin.destroyed || !proc.stdout) {
    proc.stdin?.end()
    return null
  }
  // It was unreferenced so that an unused one never kept the process alive; now answers are awaited.
  proc.ref()
  for (const s of [proc.stdin, proc.stdout, proc.stderr] as Array<{ref?: () => unknown} | null>) s?.ref?.()
  return proc
}

/** Drop the early processes not taken (they exit when their input ends). */
export function dropEarlyGit(): void {
  const early = (globalThis as {[KEY]?: EarlyGit})[KEY]
  if (!early) return
  for (const kind of ['catFile', 'updateRef'] as const) {
    early[kind]?.proc.stdin?.end()
    early[kind] = null
  }
}

/**
 * Whether a compare-and-swap of `ref` may go through the early `git
 * update-ref --stdin`: that process was started without a reflog message
 * (it takes one for all its updates, and the message names the change), so
 * only where git writes no reflog for the ref: no log file for it yet and
 * no config that may say core.logAllRefUpdates=always.
 */
export function earlyUpdateAllowed(commonDir: string, ref: string): boolean {
  return !existsSync(join(commonDir, 'logs', ref)) && !configMayMention(commonDir, /logallrefupdates\s*=\s*always/i)
}

/**
 * A one-update StdinRefUpdater on the early `git update-ref --stdin`, when
 * there is one for `cwd` and git keeps no reflog for `ref`; else null. The
 * caller closes it after its update. An update it cannot complete is
 * settled by StdinRefUpdater as usual (the ref read back, else one `git
 * update-ref` process gives the outcome in its usual words).
 */
export function earlyRefUpdater(cwd: string, commonDir: string, ref: string, readRef: (ref: string) => Promise<string | null>): StdinRefUpdater | null {
  const early = (globalThis as {[KEY]?: EarlyGit})[KEY]
  if (!early?.updateRef || !earlyUpdateAllowed(commonDir, ref)) return null
  const proc = takeEarlyGit('updateRef', cwd)
  return proc && proc.stderr ? new StdinRefUpdater(cwd, readRef, proc as import('node:child_process').ChildProcessWithoutNullStreams) : null
}
