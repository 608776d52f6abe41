import {spawn} from 'node:child_process'
import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import {EnvironmentError, UsageError} from '../core/errors'
import {parseDurationSeconds} from '../core/duration-flag'
import {boardBundle, engine, graphSvg} from './engine-loader'
import type {RunningBoard} from '../board/server'

/** What `tasks board --json` prints at start: the running board without its handle. */
export type BoardStarted = Omit<RunningBoard, 'close'>

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
  }
  static override examples = ['<%= config.bin %> board', '<%= config.bin %> board --port 0 --open', '<%= config.bin %> board --as lead --host 0.0.0.0']

  protected async execute(): Promise<BoardStarted> {
    const {flags} = await this.parse(Board)
    this.flagsForSession = flags
    if (flags['sync-every'] !== undefined && flags['sync-every'] < 1) throw new UsageError('--sync-every must be at least 1s', {flag: 'sync-every'}, 'usage')
    let board
    try {
      board = await boardBundle().startBoard({engine: engine(), svg: graphSvg, cwd: process.cwd(), list: flags.list, as: flags.as, offline: flags.offline, host: flags.host, port: flags.port, syncEverySeconds: flags['sync-every']})
    } catch (error) {
      const e = error as Error & {listenFailed?: boolean}
      if (e.listenFailed) throw new EnvironmentError('listen_failed', `${e.message} (another program has the port? try --port 0 for any free one)`, {host: flags.host, port: flags.port})
      throw error
    }
    const started: BoardStarted = {url: board.url, host: board.host, port: board.port, token: board.token, actor: board.actor, list: board.list, exposed: board.exposed}
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
    return started
  }

  /** The address was printed at start; nothing more when it stops. */
  protected override async writeJson(): Promise<void> {}

  protected render(): string {
    return ''
  }
}
