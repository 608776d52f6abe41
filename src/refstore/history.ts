/**
 * History from `git log` of the tasks ref: every commit is one attributed
 * event, its trailers (Tasks-Op, Task, Actor, …) say what happened. There
 * is no separate events table; this is the audit log.
 */
import {git} from './git-process'

export interface HistoryEvent {
  commit: string
  author: string
  date: string
  op: string
  /** Every task the commit names (Task trailers). */
  tasks: string[]
  subject: string
  trailers: Array<[string, string]>
}

const FIELD = '\x1f'
const RECORD = '\x1e'

/** Parse `Key: value` trailer lines from the last paragraph of a message. */
export function parseTrailers(message: string): Array<[string, string]> {
  const paragraphs = message.trimEnd().split(/\n\s*\n/)
  const last = paragraphs.length > 1 ? paragraphs.at(-1)! : ''
  const out: Array<[string, string]> = []
  for (const line of last.split('\n')) {
    const m = /^([A-Za-z][A-Za-z0-9-]*): (.*)$/.exec(line)
    if (m) out.push([m[1]!, m[2]!])
  }
  return out
}

/** Events on `ref`, newest first, optionally only those touching `path`. */
export async function readHistory(cwd: string, ref: string, options: {path?: string; limit?: number}): Promise<HistoryEvent[]> {
  const args = ['log', `--format=%H${FIELD}%an${FIELD}%aI${FIELD}%B${RECORD}`, '--no-color']
  if (options.limit) args.push(`-n${options.limit}`)
  args.push(ref)
  if (options.path) args.push('--', options.path)
  const r = await git(args, {cwd})
  if (r.code !== 0) return []
  const events: HistoryEvent[] = []
  for (const record of r.stdout.split(RECORD)) {
    const trimmed = record.replace(/^\n/, '')
    if (!trimmed) continue
    const [commit, author, date, message] = trimmed.split(FIELD) as [string, string, string, string]
    const trailers = parseTrailers(message)
    events.push({
      commit,
      author,
      date,
      op: trailers.find(([k]) => k === 'Tasks-Op')?.[1] ?? message.split(/[:\s]/)[0] ?? '',
      tasks: trailers.filter(([k]) => k === 'Task').map(([, v]) => v),
      subject: message.split('\n')[0] ?? '',
      trailers,
    })
  }
  return events
}
