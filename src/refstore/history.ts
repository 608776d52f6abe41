/**
 * History from `git log` of the tasks ref: every commit is one attributed
 * event, its trailers (Tasks-Op, Task, Actor, …) say what happened. There
 * is no separate events table; this is the audit log. This module only
 * reads commits; what the trailers mean is decided in src/core/history-event.ts.
 */
import {git, gitStream} from './git-process'
import {INIT_COMMIT} from '../core/store-layout'
import {type EventDetails, detailsOf} from '../core/history-event'
import type {CardCommit} from '../core/spec-revisions'
import {readBlobs} from './blobs'

export interface HistoryEvent {
  commit: string
  /** The acting identity: the Actor trailer, else the commit author. */
  actor: string
  author: string
  /** Author date, strict ISO-8601 with the offset it was recorded with. */
  date: string
  /** True for the deterministic root commit of `tasks init` (its date is a fixed placeholder, not a time). */
  initial: boolean
  op: string
  /** Every task the commit names (Task trailers). */
  tasks: string[]
  subject: string
  /** What the op meant, from its trailers (override, takeover, renew, reason, note, …). */
  details: EventDetails
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

export interface HistoryOptions {
  /** Only commits touching this path (a card's directory). */
  path?: string
  limit?: number
  /** Only commits naming this task in a `Task:` trailer (also finds the commit that removed it). */
  task?: string
  /** Keep only events this predicate accepts; `limit` counts kept events. */
  filter?: (e: HistoryEvent) => boolean
}

/** Events on `ref`, newest first. */
export async function readHistory(cwd: string, ref: string, options: HistoryOptions): Promise<HistoryEvent[]> {
  const args = ['log', `--format=%H${FIELD}%an${FIELD}%aI${FIELD}%P${FIELD}%B${RECORD}`, '--no-color']
  if (options.limit && !options.filter) args.push(`-n${options.limit}`)
  if (options.task) args.push('--fixed-strings', `--grep=Task: ${options.task}`)
  args.push(ref)
  if (options.path) args.push('--', options.path)
  const r = await git(args, {cwd})
  if (r.code !== 0) return []
  const events: HistoryEvent[] = []
  for (const record of r.stdout.split(RECORD)) {
    const trimmed = record.replace(/^\n/, '')
    if (!trimmed) continue
    const [commit, author, date, parents, message] = trimmed.split(FIELD) as [string, string, string, string, string]
    const trailers = parseTrailers(message)
    const value = (k: string) => trailers.find(([key]) => key === k)?.[1]
    const op = value('Tasks-Op') ?? message.split(/[:\s]/)[0] ?? ''
    const tasks = trailers.filter(([k]) => k === 'Task').map(([, v]) => v)
    // `--grep` matches anywhere in the message; keep commits whose trailer names exactly this id.
    if (options.task && !tasks.includes(options.task)) continue
    const event: HistoryEvent = {
      commit,
      actor: value('Actor') ?? author,
      author,
      date,
      initial: parents.trim() === '' && op === 'init' && author === INIT_COMMIT.author && Date.parse(date) === INIT_COMMIT.time * 1000,
      op,
      tasks,
      subject: message.split('\n')[0] ?? '',
      details: detailsOf(op, trailers),
      trailers,
    }
    if (options.filter && !options.filter(event)) continue
    events.push(event)
    if (options.limit && events.length >= options.limit) break
  }
  return events
}

/**
 * Ids named in `Task:` trailers of the ref's history that start with
 * `prefix` (a normalised `tsk-…` prefix): how a removed item is found.
 */
export async function idsInHistory(cwd: string, ref: string, prefix: string): Promise<string[]> {
  const r = await git(['log', '--format=%(trailers:key=Task,valueonly,separator=%x1f)', '--fixed-strings', `--grep=Task: ${prefix}`, ref], {cwd})
  if (r.code !== 0) return []
  const ids = new Set<string>()
  for (const line of r.stdout.split('\n')) {
    for (const id of line.split(FIELD)) if (id.trim().startsWith(prefix)) ids.add(id.trim())
  }
  return [...ids].sort()
}

/**
 * The commit that removed task `id` last (its task.md deleted), or null when
 * it is not removed (or never existed). Its first parent holds the card as
 * it was just before.
 */
export async function removalCommit(cwd: string, ref: string, taskFile: string): Promise<{commit: string; parent: string} | null> {
  const r = await git(['log', '-n1', '--diff-filter=D', '--format=%H %P', ref, '--', taskFile], {cwd})
  if (r.code !== 0) return null
  const [commit, parent] = r.stdout.trim().split(' ')
  return commit && parent ? {commit, parent} : null
}

const NO_BLOB = /^0+$/

/** `git log` format of one commit record: the fields, then (with --raw) the changed paths (`parseRawLog` reads it). */
export const RAW_LOG_FORMAT = `--format=${RECORD}%H${FIELD}%P${FIELD}%an${FIELD}%aI${FIELD}%B${FIELD}`

/** A path a commit changed, from a `--raw` line (`-c` lines of a merge: one blob per parent). */
export interface RawFile {
  path: string
  /** The blob at each parent, in parent order (null: absent there). One for an ordinary commit. */
  parents: Array<string | null>
  /** The blob at the commit (null: deleted). */
  after: string | null
}

/** One commit of a `git log --raw` read with RAW_LOG_FORMAT. */
export interface RawCommit {
  commit: string
  /** Its parents as the log shows them (rewritten to the previous commit of the path when it is path-limited with --parents). */
  parents: string[]
  actor: string
  date: string
  op: string
  trailers: Array<[string, string]>
  files: RawFile[]
}

function parseRawRecord(record: string): RawCommit | null {
  if (!record.trim()) return null
  const [commit, parents, author, date, message, rest] = record.split(FIELD) as [string, string, string, string, string, string | undefined]
  const trailers = parseTrailers(message)
  const value = (k: string) => trailers.find(([key]) => key === k)?.[1]
  const files: RawFile[] = []
  for (const line of (rest ?? '').split('\n')) {
    // `:<mode> <mode> <blob> <blob> <status>\t<path>`; a merge's `-c` line has one more colon, mode and blob per parent.
    const m = /^(:+)([^\t]+)\t(.+)$/.exec(line)
    if (!m) continue
    const n = m[1]!.length
    const words = m[2]!.split(' ')
    const blobs = words.slice(n + 1, 2 * n + 2).map((b) => (NO_BLOB.test(b) ? null : b))
    if (blobs.length !== n + 1) continue
    files.push({path: m[3]!, parents: blobs.slice(0, n), after: blobs[n]!})
  }
  return {commit, parents: parents.trim() ? parents.trim().split(' ') : [], actor: value('Actor') ?? author, date, op: value('Tasks-Op') ?? message.split(/[:\s]/)[0] ?? '', trailers, files}
}

/** The commits of a whole `git log --raw` read with RAW_LOG_FORMAT, in its order. */
export function parseRawLog(stdout: string): RawCommit[] {
  return stdout.split(RECORD).map(parseRawRecord).filter((c): c is RawCommit => c !== null)
}

/**
 * The commits on `ref` that changed files under a card's directory, oldest
 * first, each with task.md and the changed check files as they were at its
 * parent and at the commit (core/spec-revisions.ts makes the card's spec
 * revisions of them). One `git log --raw` and one `git cat-file --batch`.
 */
export async function readCardCommits(cwd: string, ref: string, dir: string): Promise<CardCommit[]> {
  const r = await git(['log', '--reverse', '--no-renames', '--raw', '--no-abbrev', RAW_LOG_FORMAT, '--no-color', ref, '--', `${dir}/`], {cwd})
  if (r.code !== 0) return []
  const raws = parseRawLog(r.stdout)
  const wanted = raws.flatMap((c) => c.files.flatMap((f) => [f.parents[0] ?? null, f.after].filter((b): b is string => b !== null)))
  const blobs = await readBlobs(cwd, wanted)
  const text = (blob: string | null | undefined): string | null => (blob ? (blobs.get(blob)?.toString('utf8') ?? null) : null)
  const taskPath = `${dir}/task.md`
  return raws.map((c) => {
    const task = c.files.find((f) => f.path === taskPath)
    return {
      commit: c.commit,
      actor: c.actor,
      date: c.date,
      op: c.op,
      trailers: c.trailers,
      // An unchanged task.md: the same text before and after (the spec did not change there).
      task: task ? {before: text(task.parents[0]), after: text(task.after)} : {before: null, after: null},
      checks: c.files.flatMap((f) => {
        const m = /\/checks\/([^/]+)\.md$/.exec(f.path)
        return m && f.path.startsWith(`${dir}/checks/`) ? [{id: m[1]!, before: text(f.parents[0]), after: text(f.after)}] : []
      }),
    }
  })
}

/**
 * The history of one file, newest first, as git blame walks it: the commits
 * reachable from `start` that changed `path`, each with its parents
 * rewritten to the previous commits that changed it (`--parents`: history
 * simplification, so a merge that took the file from one side is skipped
 * and that side followed), and the file's blob at the commit and at each
 * parent (`--raw`, `-c` for a merge that changed it against every parent).
 * With changed-path filters in the commit-graph, git opens trees only for
 * the commits that touched the path.
 *
 * In git's default order (by commit date, as it walks): `--topo-order`
 * would make git walk the whole history three times before the first line
 * (about 4× the time at 300,000 commits). A parent dated after its child
 * (clocks that differ between clones) can so come first; the caller steps
 * such a commit again when values reach it (core/blame.ts).
 *
 * Read as git writes it: `visit` gets each batch of whole commits as it
 * arrives and answers true to stop, which ends git at once, so a walk that
 * finds its answer in the newest commits never pays for the older ones.
 */
export async function walkFileHistory(cwd: string, start: string, path: string, visit: (batch: RawCommit[]) => Promise<boolean>): Promise<void> {
  const log = gitStream(['log', '--parents', '--raw', '-c', '--no-renames', '--no-abbrev', '--root', RAW_LOG_FORMAT, '--no-color', start, '--', path], {cwd})
  try {
    let pending = ''
    for await (const chunk of log.chunks) {
      pending += chunk
      const records = pending.split(RECORD)
      // The last record may not be whole yet: it waits for the next record's start, or the end.
      pending = records.pop() ?? ''
      const batch = records.map(parseRawRecord).filter((c): c is RawCommit => c !== null)
      if (batch.length > 0 && (await visit(batch))) return
    }
    const last = parseRawRecord(pending)
    if (last) await visit([last])
  } finally {
    log.stop()
  }
}

/** A commit of a list and its committer date (strict ISO-8601). */
export interface PointInHistory {
  commit: string
  date: string
}

/**
 * A commit's committer date in strict ISO-8601 with its own offset, as
 * `git log --format=%cI` writes it (2026-11-30T14:00:00+01:00), from the
 * commit object's text (its header only); null when unreadable.
 */
export function committerDate(commitText: string): string | null {
  const header = commitText.slice(0, Math.max(0, commitText.indexOf('\n\n')) || commitText.length)
  const m = /^committer .* (\d+) ([+-])(\d{2})(\d{2})$/m.exec(header)
  if (!m) return null
  const offsetMinutes = (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]))
  const local = new Date((Number(m[1]) + offsetMinutes * 60) * 1000)
  if (Number.isNaN(local.getTime())) return null
  return `${local.toISOString().slice(0, 19)}${m[2]}${m[3]}:${m[4]}`
}

function point(stdout: string): PointInHistory | null {
  const [commit, date] = stdout.trim().split(' ')
  return commit && date ? {commit, date} : null
}

/**
 * The last commit on `ref`'s first-parent line made at or before `ms`
 * (committer time): the list as this ref held it then. A side branch that
 * `sync` merged later is not "the list then"; its merge commit is. Null
 * when the ref has no commit that old (the root of `tasks init` is dated 0,
 * so an initialised list always has one).
 */
export async function commitAtOrBefore(cwd: string, ref: string, ms: number): Promise<PointInHistory | null> {
  const r = await git(['log', '-n1', '--first-parent', `--min-age=${Math.floor(ms / 1000)}`, '--format=%H %cI', ref, '--'], {cwd})
  return r.code === 0 ? point(r.stdout) : null
}

/**
 * The commit a hexadecimal prefix names, if it is reachable from `ref`;
 * `ambiguous` when the prefix names several objects; null when it names
 * none or one that is not part of the list's history.
 */
export async function commitOnRef(cwd: string, ref: string, prefix: string): Promise<PointInHistory | 'ambiguous' | null> {
  const r = await git(['rev-parse', '--verify', '--end-of-options', `${prefix}^{commit}`], {cwd})
  if (r.code !== 0) return /ambiguous/i.test(r.stderr) ? 'ambiguous' : null
  const commit = r.stdout.trim()
  const reach = await git(['merge-base', '--is-ancestor', commit, ref], {cwd})
  if (reach.code !== 0) return null
  const shown = await git(['log', '-n1', '--format=%H %cI', commit, '--'], {cwd})
  return shown.code === 0 ? point(shown.stdout) : null
}
