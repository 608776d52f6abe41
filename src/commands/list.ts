import {Flags} from '@oclif/core'
import {TasksCommand, formatFlag} from './base-command'
import type {ListResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class List extends TasksCommand<ListResult> {
  static override summary = 'List tasks (open ones by default), sub-items under their parents.'
  static override description =
    'STATUS is the state: ready, waiting, reserved, todo, in_progress, stale, blocked, done, cancelled. WHY BLOCKED shows what waiting items wait on and the note of blocked ones. Every list-valued flag is repeatable and comma-separated. Filters narrow the default open view; --all or --status widens it.'
  static override flags = {
    ...formatFlag,
    status: Flags.string({char: 's', description: 'Only these states (ready, waiting, reserved, todo, in_progress, stale, blocked, done, cancelled; open, all).', multiple: true, multipleNonGreedy: true}),
    tag: Flags.string({char: 't', description: 'Only items with this tag (all must match; #bug and bug are the same).', multiple: true, multipleNonGreedy: true}),
    owner: Flags.string({description: 'Only items claimed by this actor (@me: you).'}),
    assignee: Flags.string({description: 'Only items reserved for this actor (@me: you).'}),
    parent: Flags.string({description: 'Only the sub-items of this task.'}),
    priority: Flags.string({char: 'p', description: 'Only these priorities (0-4).', multiple: true, multipleNonGreedy: true}),
    ready: Flags.boolean({description: 'Only items you could claim now (stale claims included).'}),
    all: Flags.boolean({char: 'a', description: 'Include done and cancelled items.'}),
    sort: Flags.string({description: 'Order by priority, created, updated, id, title or state (- in front to reverse; default: state, then priority, then age).'}),
    limit: Flags.integer({char: 'n', description: 'Show at most N rows (--json: one page; total says how many match).', min: 0}),
    offset: Flags.integer({description: 'Skip the first N rows (with --limit: the next page).', min: 0}),
    after: Flags.string({description: 'Continue after the last row of a previous page: pass its next_cursor (--json). Unlike --offset, rows added or removed meanwhile never make a page repeat or skip one.'}),
  }
  static override examples = [
    '<%= config.bin %> list',
    '<%= config.bin %> list --ready --json',
    '<%= config.bin %> list --status blocked,stale --tag backend',
    '<%= config.bin %> list --owner @me --all',
    '<%= config.bin %> list --json --limit 50 --offset 50',
    '<%= config.bin %> list --json --limit 50 --after CURSOR',
  ]

  protected async execute(): Promise<ListResult> {
    // oclif reads a value starting with "-" as a flag when its second letter is a short flag
    // (`--sort=-title` would be `-t itle`): carry a reversed key past the parser as `~key`.
    this.argv = this.argv.flatMap((a, i, all) => {
      if (a.startsWith('--sort=-')) return [`--sort=~${a.slice(8)}`]
      if (all[i - 1] === '--sort' && /^-[a-z]{2,}$/.test(a)) return [`~${a.slice(1)}`]
      return [a]
    })
    const {flags} = await this.parse(List)
    if (flags.sort?.startsWith('~')) flags.sort = `-${flags.sort.slice(1)}`
    this.flagsForSession = flags
    this.useFormat(flags)
    return engine().actions.list(await this.openSession(), {
      status: flags.status,
      tags: flags.tag,
      owner: flags.owner,
      assignee: flags.assignee,
      parent: flags.parent,
      priority: flags.priority,
      ready: flags.ready,
      all: flags.all,
      sort: flags.sort,
      limit: flags.limit,
      offset: flags.offset,
      after: flags.after,
      // JSON output streams the page from writeJson (views built a batch at a time); compact and text need it whole.
      lazy: this.jsonMode() && this.format !== 'compact',
    })
  }

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
    const page = engine().actions.lazyPageOf(r) ?? {length: tasks.length, views: (from: number, to: number) => tasks.slice(from, to)}
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
  }

  protected override renderCompact(r: ListResult): string {
    return engine().compact.compactList(r)
  }

  protected render(r: ListResult, term: Terminal): string {
    return engine().render.renderListResult(term, r)
  }
}
