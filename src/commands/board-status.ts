import {TasksCommand} from './base-command'
import {engine} from './engine-loader'
import type {BoardStatus} from '../app/board-process'

export default class BoardStatusCommand extends TasksCommand<BoardStatus> {
  static override summary = "Say whether the list's background board (tasks board --detach) runs, and where."
  static override description =
    'Reads the pid file in the git directory (<common-dir>/git-tasks/board-<list>.pid). Exit 0 when the board runs (its url, with the token, and pid are printed), 3 when none does; a pid file whose process is gone is removed (stale_removed).'
  static override examples = ['<%= config.bin %> board status', '<%= config.bin %> board status --json', '<%= config.bin %> board status || <%= config.bin %> board --detach']

  protected async execute(): Promise<BoardStatus> {
    const {flags} = await this.parse(BoardStatusCommand)
    this.flagsForSession = flags
    const status = await engine().boardProcess.boardStatus(process.cwd(), flags.list)
    // Like `systemctl status`: scripts test the exit code; the status is printed either way.
    if (!status.running) process.exitCode = 3
    return status
  }

  protected render(s: BoardStatus): string {
    const stale = s.stale_removed ? ' (a stale pid file was removed)' : ''
    if (!s.running) return `no board is running for list ${s.list}${stale}\n`
    return `board for ${s.list}, acting as ${s.actor}: ${s.url}\nrunning since ${s.started_at} (pid ${s.pid}, log ${s.log})\n`
  }
}
