import type {ListResult} from '../app/list-query'
import {list} from '../operations/reads'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'
import {atHeading} from './at-heading'

const Generated = commandFrom<ListResult>(list, {
  // oclif reads a value starting with "-" as a flag when its second letter is a short flag
  // (`--sort=-title` would be `-t itle`): carry a reversed key past the parser as `~key`.
  argv: (argv) =>
    argv.flatMap((a, i, all) => {
      if (a.startsWith('--sort=-')) return [`--sort=~${a.slice(8)}`]
      if (all[i - 1] === '--sort' && /^-[a-z]{2,}$/.test(a)) return [`~${a.slice(1)}`]
      return [a]
    }),
  execute: ({args, run}) => {
    limitAsked = args.limit !== undefined
    return run({...args, sort: typeof args.sort === 'string' && args.sort.startsWith('~') ? `-${args.sort.slice(1)}` : args.sort})
  },
  render: (r, term) => atHeading(r) + engine().render.renderListResult(term, r) + (r.next_cursor ? `${moreHint(r)}\n` : ''),
})

/** Whether this run asked for a --limit (then a page that stops short of the end is what it asked for). */
let limitAsked = false

/** The line that says how to go on when a page stops before the end. */
function moreHint(r: ListResult): string {
  const left = r.total - r.offset - (r.limit ?? 0)
  return `more: ${left} more row${left === 1 ? '' : 's'}; pass --cursor ${r.next_cursor} for the next page${limitAsked ? '' : `, or --limit 0 for every row (this list shows at most ${r.limit} at once: list_limit)`}`
}

export default class List extends Generated {
  /**
   * The same one-line JSON object as JSON.stringify(result), byte for byte,
   * written in pieces: the rows go out a batch at a time, waiting for the
   * reader when the pipe is full, so a list of 100,000 tasks never becomes
   * one 60 MB string.
   */
  protected override async writeJson(r: ListResult): Promise<void> {
    const out = process.stdout
    // A reader that goes away (`| head`) ends the stream with an error or a close, never a drain:
    // waiting for the drain alone would hang the process for ever.
    let gone = false
    const write = (text: string | Buffer, written?: () => void): Promise<void> | undefined => {
      if (gone || out.destroyed) return undefined
      if (out.write(text, written && (() => written()))) return undefined
      return new Promise((resolve) => {
        const settle = (): void => {
          if (!out.writableNeedDrain) resolve()
          else {
            gone = true
            resolve()
          }
          out.off('drain', settle)
          out.off('error', settle)
          out.off('close', settle)
        }
        out.once('drain', settle)
        out.once('error', settle)
        out.once('close', settle)
      })
    }
    const {tasks, ...rest} = r
    // A lazy page (the usual case here): each batch's views are built, written and dropped.
    const page = engine().listing.lazyPageOf(r) ?? {length: tasks.length, views: (from: number, to: number) => tasks.slice(from, to)}
    const head = JSON.stringify({list: r.list, commit: r.commit})
    await write(`${head.slice(0, -1)},"tasks":[`)
    // A page that writes its rows' JSON itself (the whole list streamed from the index file) goes in larger
    // batches: its lines are read from the file a batch at a time.
    const BATCH = page.bytes ? 2000 : 500
    for (let i = 0; i < page.length; i += BATCH) {
      if (page.bytes) {
        if (i > 0) await write(',')
        // Once written, the batch's buffer is handed back for a later batch (memory stays a few batches).
        const batch = page.bytes(i, i + BATCH)
        await write(batch, () => page.written?.(batch))
        // A turn of the event loop, so that the callbacks of finished writes run (a write to a file finishes at
        // once, but its callback waits for the loop).
        await new Promise((resolve) => setImmediate(resolve))
        continue
      }
      const rows = page.views(i, i + BATCH).map((t) => JSON.stringify(t))
      await write(`${i === 0 ? '' : ','}${rows.join(',')}`)
    }
    const {list, commit, ...tail} = rest
    await write(`],${JSON.stringify(tail).slice(1)}\n`)
    // Cut short by list_limit, not by a --limit the caller gave: say so where a person running it sees it.
    if (r.next_cursor && !limitAsked) process.stderr.write(`${moreHint(r)}\n`)
  }

}
