/**
 * The board in the background (`tasks board --detach`, `board status`,
 * `board stop`): one background board per list and repository, recorded in
 * a pid file in the git common directory, `<common-dir>/git-tasks/board-<list>.pid`
 * (JSON: pid, url with its token, host, port, actor, list, started_at, log),
 * readable by its owner only since the address carries the token. The
 * board writes the file itself once it listens, with an exclusive create
 * (so two boards started at once cannot both claim the list: the second
 * finds the first and exits 4 `already_running`), and removes it when it
 * stops; `status` and `stop` remove a file whose process is gone (a board
 * killed with SIGKILL, a reboot).
 */
import {processAlive} from './process-alive'
import {closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {ConflictError, EnvironmentError, UsageError} from '../core/errors'
import {isValidListName} from '../core/store-layout'
import {discover} from '../refstore/repository'

/** What the pid file holds. */
export interface BoardRecord {
  pid: number
  url: string
  host: string
  port: number
  actor: string
  list: string
  exposed: boolean
  started_at: string
  /** Where the background board's stdout and stderr go. */
  log: string
}

/** `tasks board status`. */
export interface BoardStatus {
  running: boolean
  list: string
  pid: number | null
  url: string | null
  host: string | null
  port: number | null
  actor: string | null
  /** Reachable beyond loopback (every request needs the token). */
  exposed: boolean | null
  started_at: string | null
  pid_file: string
  log: string
  /** A pid file whose process was gone was found and removed. */
  stale_removed: boolean
}

/** `tasks board stop`. */
export interface BoardStopped {
  list: string
  /** A board was running and has exited. */
  stopped: boolean
  pid: number | null
  pid_file: string
  stale_removed: boolean
}

export interface BoardFiles {
  pidFile: string
  log: string
}

/** The pid file and log of the list's background board. */
export async function boardFiles(cwd: string, list: string): Promise<BoardFiles> {
  if (!isValidListName(list)) throw new UsageError(`"${list}" is not a list name: use letters, digits, . _ - (it becomes refs/tasks/${list})`, {list}, 'bad_list')
  const {repo} = await discover(cwd, `refs/tasks/${list}`)
  const dir = join(repo.commonDir, 'git-tasks')
  return {pidFile: join(dir, `board-${list}.pid`), log: join(dir, `board-${list}.log`)}
}

/** Whether process `pid` exists and is (as far as the system says) a `tasks board`. */
export function boardAlive(pid: number): boolean {
  return processAlive(pid, 'board')
}

function readRecord(pidFile: string): BoardRecord | null | 'unreadable' {
  let text: string
  try {
    text = readFileSync(pidFile, 'utf8')
  } catch {
    return null
  }
  try {
    const r = JSON.parse(text) as BoardRecord
    return r && typeof r === 'object' && typeof r.pid === 'number' && typeof r.url === 'string' ? r : 'unreadable'
  } catch {
    return 'unreadable'
  }
}

/** Remove the pid file only if it still names `pid` (a board that started since keeps its own). */
function removeIfOwnedBy(pidFile: string, pid: number | null): void {
  const r = readRecord(pidFile)
  if (r === null) return
  if (r === 'unreadable' || r.pid === pid) rmSync(pidFile, {force: true})
}

/** The list's background board: running or not; a pid file whose process is gone is removed. */
export async function boardStatus(cwd: string, list: string): Promise<BoardStatus> {
  const files = await boardFiles(cwd, list)
  return statusAt(files, list)
}

function statusAt(files: BoardFiles, list: string): BoardStatus {
  const r = readRecord(files.pidFile)
  const base = {list, pid_file: files.pidFile, log: files.log}
  if (r !== null && r !== 'unreadable' && boardAlive(r.pid)) {
    return {...base, running: true, pid: r.pid, url: r.url, host: r.host, port: r.port, actor: r.actor, exposed: r.exposed === true, started_at: r.started_at, stale_removed: false}
  }
  let staleRemoved = false
  if (r !== null) {
    removeIfOwnedBy(files.pidFile, r === 'unreadable' ? null : r.pid)
    staleRemoved = true
  }
  return {...base, running: false, pid: null, url: null, host: null, port: null, actor: null, exposed: null, started_at: null, stale_removed: staleRemoved}
}

/** Refuse (exit 4 already_running) when the list's background board runs; else clear a stale pid file. */
export function refuseIfRunning(status: BoardStatus): void {
  if (status.running) {
    throw new ConflictError('already_running', `a board for list ${status.list} is already running: ${status.url} (pid ${status.pid}); \`tasks board stop\` stops it`, {pid: status.pid, url: status.url, list: status.list})
  }
}

/**
 * Called by the background board once it listens: write the pid file with
 * an exclusive create (complete content, then a hard link that fails if
 * the name exists). A live board already named there wins: exit 4.
 */
export function recordBoard(files: BoardFiles, record: BoardRecord): void {
  mkdirSync(join(files.pidFile, '..'), {recursive: true})
  const tmp = `${files.pidFile}.${record.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(record)}\n`, {mode: 0o600})
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(tmp, files.pidFile)
        return
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const status = statusAt(files, record.list)
      refuseIfRunning(status)
    }
    throw new EnvironmentError('pid_file_busy', `cannot write ${files.pidFile}: it keeps reappearing`, {pid_file: files.pidFile})
  } finally {
    rmSync(tmp, {force: true})
  }
}

/** Called by the background board as it exits. */
export function forgetBoard(files: BoardFiles, pid: number): void {
  try {
    removeIfOwnedBy(files.pidFile, pid)
  } catch {
    // Exiting anyway; status removes a stale file later.
  }
}

/** Open the log a background board writes to (appending; created owner-only). */
export function openBoardLog(files: BoardFiles): number {
  mkdirSync(join(files.log, '..'), {recursive: true})
  // Keep one earlier run's log beside it, never an ever-growing file.
  try {
    renameSync(files.log, `${files.log}.1`)
  } catch {
    // No earlier log.
  }
  return openSync(files.log, 'a+', 0o600)
}


/**
 * The last JSON error a background board wrote to its log before exiting
 * (why it did not start), if any. Read through the descriptor the board was
 * given, so a log rotated meanwhile by another start is not the one read.
 */
export function lastLoggedError(log: number): {code: string; message: string; exit?: number; [k: string]: unknown} | null {
  let text = ''
  try {
    const size = Math.min(fstatSync(log).size, 1 << 20)
    const buf = Buffer.alloc(size)
    const read = readSync(log, buf, 0, size, 0)
    text = buf.subarray(0, read).toString('utf8')
  } catch {
    return null
  }
  for (const line of text.trim().split('\n').reverse()) {
    try {
      const parsed = JSON.parse(line) as {error?: {code: string; message: string}}
      if (parsed.error && typeof parsed.error.code === 'string') return parsed.error
    } catch {
      // Not JSON: keep looking.
    }
  }
  return null
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * `tasks board stop`: SIGTERM to the list's background board, then wait
 * (up to `timeoutMs`) for it to exit and remove its pid file. No board
 * running is not an error (stopped: false).
 */
export async function stopBoard(cwd: string, list: string, timeoutMs = 10_000): Promise<BoardStopped> {
  const files = await boardFiles(cwd, list)
  const status = statusAt(files, list)
  if (!status.running || status.pid === null) return {list, stopped: false, pid: null, pid_file: files.pidFile, stale_removed: status.stale_removed}
  const pid = status.pid
  try {
    process.kill(pid, 'SIGTERM')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw new EnvironmentError('stop_failed', `cannot signal the board (pid ${pid}): ${(error as Error).message}`, {pid})
  }
  const deadline = Date.now() + timeoutMs
  while (boardAlive(pid)) {
    if (Date.now() > deadline) {
      throw new EnvironmentError('stop_timeout', `the board (pid ${pid}) did not exit within ${Math.round(timeoutMs / 1000)} s of SIGTERM; its pid file is left in place (kill -9 ${pid} ends it)`, {pid, pid_file: files.pidFile})
    }
    await sleep(50)
  }
  removeIfOwnedBy(files.pidFile, pid)
  return {list, stopped: true, pid, pid_file: files.pidFile, stale_removed: false}
}
