import {spawn} from 'node:child_process'
import {closeSync} from 'node:fs'
import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {EnvironmentError, TasksError, UsageError, type ExitCode} from '../core/errors'
import {parseDurationSeconds} from '../core/duration-flag'
import {batchOperations} from '../operations/table'
import {boardBundle, engine, graphSvg} from './engine-loader'
import type {RunningBoard} from '../board/server'

/** What `tasks board --json` prints at start: the running board without its handle (with --detach: its pid and log too). */
export type BoardStarted = Omit<RunningBoard, 'close'> & {pid?: number; log?: string; pid_file?: string}

/** How long `--detach` waits for the background board to listen. */
const DETACH_TIMEOUT_MS = 30_000

/** Open a URL in the desktop's browser, detached; failing to is not an error (the address is printed). */
function openInBrowser(url: string): void {
  const [cmd, ...args] = process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', url] : ['xdg-open', url]
  try {
    const child = spawn(cmd!, args, {detached: true, stdio: 'ignore'})
    child.on('error', () => undefined)
    child.unref()
  } catch {
    // The address is on stdout; the person can open it.
  }
}

export default class Board extends TasksCommand<BoardStarted> {
  static override summary = 'Serve a live web board of the list: kanban, cards, graph, activity.'
  static override description =
    'Listens on 127.0.0.1 until stopped (Ctrl-C). Prints the address to open; it carries a secret token made at start, which every change needs, so other pages cannot drive the board. Actions (add, comment, claim, done, block, reopen, assign, edit) run as the actor the board was started for (--as, TASKS_ACTOR, …). Pages follow the list live: changes by other processes, agents or a sync appear without a reload. With --host beyond loopback every request needs the token.'
  static override flags = {
    port: Flags.integer({char: 'p', description: 'Port to listen on (0: any free port).', default: 8275, min: 0, max: 65535}),
    host: Flags.string({description: 'Address to listen on. Beyond loopback, every request needs the token.', default: '127.0.0.1'}),
    open: Flags.boolean({description: 'Open the board in the browser.'}),
    'sync-every': Flags.custom<number>({
      description: 'With a remote configured: run `tasks sync` this often (30s, 5m), so work published from other clones shows up by itself. Default: never.',
      helpValue: 'DURATION',
      parse: async (input) => parseDurationSeconds(input, 'sync-every', 86400),
    })(),
    detach: Flags.boolean({
      char: 'd',
      description: 'Run in the background: print the address and pid once it listens, and return. One background board per list (a second is exit 4 already_running); `tasks board status` and `tasks board stop` find it through its pid file in the git directory.',
    }),
    // The background board itself (what --detach starts): records and removes the pid file.
    background: Flags.boolean({hidden: true}),
  }
  static override examples = ['<%= config.bin %> board', '<%= config.bin %> board --port 0 --open', '<%= config.bin %> board --as lead --host 0.0.0.0', '<%= config.bin %> board --detach --port 0', '<%= config.bin %> board status', '<%= config.bin %> board stop']

  protected async execute(): Promise<BoardStarted> {
    const {flags} = await this.parse(Board)
    this.flagsForSession = flags
    if (flags['sync-every'] !== undefined && flags['sync-every'] < 1) throw new UsageError('--sync-every must be at least 1s', {flag: 'sync-every'}, 'usage')
    if (flags.detach && flags.background) throw new UsageError('--detach starts a --background board; give one of them', {}, 'usage')
    if (flags.detach) return this.detach(flags)
    const files = flags.background ? await engine().boardProcess.boardFiles(process.cwd(), flags.list) : null
    let board
    try {
      board = await boardBundle().startBoard({engine: engine(), svg: graphSvg, cwd: process.cwd(), list: flags.list, as: flags.as, offline: flags.offline, host: flags.host, port: flags.port, syncEverySeconds: flags['sync-every'], batchTable: batchOperations()})
    } catch (error) {
      const e = error as Error & {listenFailed?: boolean}
      if (e.listenFailed) throw new EnvironmentError('listen_failed', `${e.message} (another program has the port? try --port 0 for any free one)`, {host: flags.host, port: flags.port})
      throw error
    }
    const started: BoardStarted = {url: board.url, host: board.host, port: board.port, token: board.token, actor: board.actor, list: board.list, exposed: board.exposed}
    if (files) {
      // Claimed only once it listens; a board that got there first wins (this one stops, exit 4 already_running).
      try {
        engine().boardProcess.recordBoard(files, {pid: process.pid, url: board.url, host: board.host, port: board.port, actor: board.actor, list: board.list, exposed: board.exposed, started_at: new Date().toISOString(), log: files.log})
      } catch (error) {
        await board.close()
        throw error
      }
    }
    // The warning first: whoever reads the address has been told what it exposes.
    if (board.exposed) {
      process.stderr.write(
        this.jsonMode()
          ? `${JSON.stringify({warning: {kind: 'board_exposed', message: `listening on ${flags.host}: every request needs the token in the printed address; whoever has it acts as ${started.actor}`}})}\n`
          : `warning: listening on ${flags.host}: every request needs the token in the printed address; whoever has it acts as ${started.actor}\n`,
      )
    }
    if (this.jsonMode()) process.stdout.write(`${JSON.stringify(started)}\n`)
    else {
      process.stdout.write(`board for ${started.list}, acting as ${started.actor}: ${started.url}\n(Ctrl-C stops it)\n`)
    }
    if (flags.open) openInBrowser(started.url)
    await new Promise<void>((resolve) => {
      const stop = () => resolve()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
      process.once('SIGHUP', stop)
    })
    await board.close()
    if (files) engine().boardProcess.forgetBoard(files, process.pid)
    return started
  }

  /**
   * --detach: start this command again as a background process (its own
   * session, so the terminal's Ctrl-C or hang-up does not reach it; output
   * to its log beside the pid file), wait until it has written its pid file
   * (it listens), print what it listens on and return. A board that fails
   * to start says why in its log: that error is this command's.
   */
  private async detach(flags: {list: string; as?: string; offline: boolean; host: string; port: number; open: boolean; 'sync-every'?: number}): Promise<BoardStarted> {
    const e = engine()
    const cwd = process.cwd()
    const files = await e.boardProcess.boardFiles(cwd, flags.list)
    e.boardProcess.refuseIfRunning(await e.boardProcess.boardStatus(cwd, flags.list))
    const args = ['board', '--background', '--json', '--list', flags.list, '--host', flags.host, '--port', String(flags.port)]
    if (flags.as !== undefined) args.push('--as', flags.as)
    if (flags.offline) args.push('--offline')
    if (flags['sync-every'] !== undefined) args.push('--sync-every', `${flags['sync-every']}s`)
    const log = e.boardProcess.openBoardLog(files)
    try {
      return await this.startInBackground(files, log, args, flags)
    } finally {
      closeSync(log)
    }
  }

  private async startInBackground(files: {log: string; pidFile: string}, log: number, args: string[], flags: {list: string; host: string; open: boolean}): Promise<BoardStarted> {
    const e = engine()
    const cwd = process.cwd()
    let exited: number | null | undefined
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...args], {cwd, env: process.env, detached: true, stdio: ['ignore', log, log]})
    child.on('exit', (code, signal) => (exited = code ?? (signal ? 1 : 0)))
    child.on('error', () => (exited = 1))
    const deadline = Date.now() + DETACH_TIMEOUT_MS
    for (;;) {
      const status = await e.boardProcess.boardStatus(cwd, flags.list)
      if (status.running && status.pid === child.pid) {
        child.removeAllListeners('exit')
        child.unref()
        const token = new URL(status.url!).searchParams.get('token') ?? ''
        const started: BoardStarted = {url: status.url!, host: status.host!, port: status.port!, token, actor: status.actor!, list: status.list, exposed: status.exposed === true, pid: status.pid, log: files.log, pid_file: files.pidFile}
        if (started.exposed) process.stderr.write(this.jsonMode() ? `${JSON.stringify({warning: {kind: 'board_exposed', message: `listening on ${flags.host}: every request needs the token in the printed address; whoever has it acts as ${started.actor}`}})}\n` : `warning: listening on ${flags.host}: every request needs the token in the printed address; whoever has it acts as ${started.actor}\n`)
        if (flags.open) openInBrowser(started.url)
        return started
      }
      if (exited !== undefined) {
        const err = e.boardProcess.lastLoggedError(log)
        if (err) {
          // The background board's own error (listen_failed, not_initialised, already_running…), as it gave it.
          const {code: _code, message: _message, exit, ...data} = err
          throw new TasksError(err.code, (typeof exit === 'number' ? exit : 1) as ExitCode, err.message, data)
        }
        throw new EnvironmentError('board_exited', `the background board exited (${exited}) before it listened; see ${files.log}`, {log: files.log, exit: exited})
      }
      if (Date.now() > deadline) {
        child.kill('SIGTERM')
        throw new EnvironmentError('board_start_timeout', `the background board did not listen within ${DETACH_TIMEOUT_MS / 1000} s; it was stopped (see ${files.log})`, {log: files.log})
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  /** The address was printed at start; nothing more when it stops. With --detach: what runs in the background. */
  protected override async writeJson(r: BoardStarted): Promise<void> {
    if (r.pid !== undefined) process.stdout.write(`${JSON.stringify(r)}\n`)
  }

  protected render(r: BoardStarted): string {
    if (r.pid === undefined) return ''
    return `board for ${r.list}, acting as ${r.actor}: ${r.url}\nrunning in the background (pid ${r.pid}, log ${r.log}); \`tasks board stop\` stops it\n`
  }
}
