/**
 * `tasks remind --every DURATION`: the reminder daemon, and
 * `tasks remind --install-unit`: the systemd user unit that runs it.
 *
 * The daemon runs a pass every DURATION until stopped; a pass is exactly
 * `tasks remind` (remindOwners: digests and escalations, latched on the ref,
 * so a pass that finds nothing new writes nothing). One daemon per list and
 * repository: a pid file in the git common dir
 * (`<common dir>/git-tasks/remind-<list>.pid`, created atomically with its
 * content by link(2)) names the holder; a second start while that process
 * lives is `already_running` (exit 4). A pid file whose process is gone (or,
 * where /proc tells, is no `remind` any more: the pid was reused) is stale
 * and taken over. Stopping (the AbortSignal the command ties to SIGTERM and
 * SIGINT) ends the wait between passes at once; a pass under way finishes
 * first, so a stop takes at most one pass.
 */
import {processAlive} from './process-alive'
import {createHash} from 'node:crypto'
import {linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync} from 'node:fs'
import {basename, join} from 'node:path'
import {ConflictError, EnvironmentError} from '../core/errors'
import {workTreeRoot} from '../refstore/repository'
import {type RemindOutput, remindOwners} from './inbox-actions'
import type {Session} from './session'

export interface DaemonHolder {
  pid: number
  started_at: string
}

/** Where the daemon of `list` records itself: beside the index caches, shared by every worktree. */
export function remindLockPath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `remind-${list}.pid`)
}

function readHolder(path: string): DaemonHolder | null {
  try {
    const [pid, started] = readFileSync(path, 'utf8').split('\n')
    const n = Number(pid)
    return Number.isInteger(n) && n > 0 ? {pid: n, started_at: started ?? ''} : null
  } catch {
    return null
  }
}

/** Whether `pid` is a live process that can still be a reminder daemon. */
export function holderAlive(pid: number): boolean {
  return processAlive(pid, 'remind')
}

export interface RemindLock {
  path: string
  release(): void
}

/** Take the list's daemon lock, or refuse with `already_running` (exit 4) while its holder lives. */
export function acquireRemindLock(commonDir: string, list: string, now: string): RemindLock {
  const path = remindLockPath(commonDir, list)
  mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, `${process.pid}\n${now}\n`)
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        // link(2) fails when the name exists: the file appears whole, with its pid, or not at all.
        linkSync(tmp, path)
        return {
          path,
          release: () => {
            if (readHolder(path)?.pid === process.pid) unlinkSync(path)
          },
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new EnvironmentError('write_failed', `cannot write the daemon's pid file ${path}: ${(error as Error).message}`, {path})
        }
      }
      const holder = readHolder(path)
      if (holder && holderAlive(holder.pid)) {
        throw new ConflictError('already_running', `a reminder daemon for list "${list}" already runs here (pid ${holder.pid}, since ${holder.started_at}); stop it first (kill ${holder.pid})`, {
          pid: holder.pid,
          started_at: holder.started_at,
          list,
          path,
        })
      }
      // Stale (its process is gone) or unreadable: take it over.
      try {
        unlinkSync(path)
      } catch {
        // Removed by another starter meanwhile: try again.
      }
    }
    throw new ConflictError('already_running', `the reminder daemon's pid file ${path} keeps changing: another daemon is starting`, {list, path})
  } finally {
    try {
      unlinkSync(tmp)
    } catch {
      // already gone
    }
  }
}

/** One pass's outcome, as the daemon hands it to whoever prints it. */
export type RemindPass = {ok: true; result: RemindOutput} | {ok: false; error: unknown}

/**
 * Run a remind pass every `everySeconds` until `signal` aborts, holding the
 * list's daemon lock. The first pass failing ends the daemon with its error
 * (a list that is not there, no actor: nothing later would fix it); later
 * failures (a remote that did not answer) are handed to `onPass` and the
 * daemon goes on. Returns the number of passes run.
 */
export async function remindEvery(
  session: Session,
  {everySeconds, olderThan, signal, onPass}: {everySeconds: number; olderThan?: number; signal: AbortSignal; onPass: (pass: RemindPass) => void},
): Promise<number> {
  // The actor first: a daemon without one would fail every pass.
  await session.actor()
  const lock = acquireRemindLock(session.store.repo.commonDir, session.list, new Date().toISOString())
  let passes = 0
  try {
    while (!signal.aborted) {
      try {
        onPass({ok: true, result: await remindOwners(session, {olderThan})})
      } catch (error) {
        if (passes === 0) throw error
        onPass({ok: false, error})
      }
      passes++
      await sleep(everySeconds * 1000, signal)
    }
    return passes
  } finally {
    lock.release()
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, {once: true})
  })
}

// ---------------------------------------------------------------- the systemd unit

export interface RemindUnit {
  /** The unit's file name (`git-tasks-remind-<repository>-<list>-<hash>.service`). */
  unit_name: string
  /** Where a user unit goes: ~/.config/systemd/user/<unit_name>. */
  unit_path: string
  /** The unit file's text. */
  unit: string
  list: string
  actor: string
  every_seconds: number
  /** The repository's work tree (the unit's WorkingDirectory). */
  work_tree: string
}

/** A word of ExecStart: quoted when it holds a space, quote or backslash; `%` and `$` escaped for systemd. */
function execWord(s: string): string {
  const escaped = s.replace(/%/g, '%%').replace(/\$/g, '$$$$')
  return /[\s"'\\]/.test(escaped) ? `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : escaped
}

function durationWord(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`
  if (seconds % 60 === 0) return `${seconds / 60}m`
  return `${seconds}s`
}

/**
 * A systemd user service running `tasks remind --every` for this
 * repository's work tree and list, as the acting actor (fixed in the unit
 * with --as). `cli`: this node and bin/tasks, by absolute path.
 */
export async function remindUnit(session: Session, {everySeconds, olderThan, node, cli}: {everySeconds: number; olderThan?: number; node: string; cli: string}): Promise<RemindUnit> {
  const actor = await session.actor()
  const top = (await workTreeRoot(session.store.repo.cwd)) ?? session.store.repo.commonDir
  const list = session.list
  const slug = basename(top).replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 40) || 'repo'
  const hash = createHash('sha256').update(`${top}\0${list}`).digest('hex').slice(0, 8)
  const unitName = `git-tasks-remind-${slug}-${list}-${hash}.service`
  const args = [node, cli, 'remind', '--every', durationWord(everySeconds), '--list', list, '--as', actor, ...(olderThan !== undefined ? ['--older-than', durationWord(olderThan)] : [])]
  const unit = [
    `# git-tasks reminder daemon for ${top}, list ${list}.`,
    `# Save as ~/.config/systemd/user/${unitName}, then:`,
    `#   systemctl --user daemon-reload && systemctl --user enable --now ${unitName}`,
    '# (`loginctl enable-linger` keeps it running while you are logged out.)',
    '[Unit]',
    `Description=git-tasks reminders (list ${list}) in ${top.replace(/%/g, '%%')}`,
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `WorkingDirectory=${top.replace(/%/g, '%%')}`,
    `ExecStart=${args.map(execWord).join(' ')}`,
    'Restart=on-failure',
    'RestartSec=30',
    '# Exit 4: another daemon already runs for this list here; starting again would not help.',
    'RestartPreventExitStatus=4',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=60',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n')
  return {unit_name: unitName, unit_path: join('~', '.config', 'systemd', 'user', unitName), unit, list, actor, every_seconds: everySeconds, work_tree: top}
}
