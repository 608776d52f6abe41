import type {LogResult} from '../app/history-actions'
import {log} from '../operations/history'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'
import {pagerCommand, writeThroughPager} from './pager'

let noPager = false

const Generated = commandFrom<LogResult>(log, {
  execute: ({args, run}) => {
    noPager = Boolean(args.noPager)
    return run(args)
  },
  render: (r, term) => engine().renderHistory.renderLog(term, r),
})

export default class Log extends Generated {
  /** On a terminal, through $TASKS_PAGER, $PAGER or `less -FRX` (not with --no-pager). */
  protected override async writeHuman(text: string): Promise<void> {
    const pager = pagerCommand(process.env, process.stdout.isTTY === true, noPager)
    if (pager) await writeThroughPager(pager, text)
    else process.stdout.write(text)
  }
}
