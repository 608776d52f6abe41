import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {BoardStopped} from '../app/board-process'

export default class BoardStopCommand extends TasksCommand<BoardStopped> {
  static override summary = "Stop the list's background board (tasks board --detach)."
  static override description =
    'Sends SIGTERM and waits for the board to exit (up to 10 s; then exit 1 stop_timeout, the pid file left in place), and removes its pid file. No board running is not an error: stopped is false (exit 0).'
  static override examples = ['<%= config.bin %> board stop', '<%= config.bin %> board stop --json']

  protected async execute(): Promise<BoardStopped> {
    const {flags} = await this.parse(BoardStopCommand)
    this.flagsForSession = flags
    return engine().boardProcess.stopBoard(process.cwd(), flags.list)
  }

  protected render(s: BoardStopped): string {
    if (!s.stopped) return `no board was running for list ${s.list}${s.stale_removed ? ' (a stale pid file was removed)' : ''}\n`
    return `stopped the board for ${s.list} (pid ${s.pid})\n`
  }
}
