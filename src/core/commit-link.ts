/**
 * Linking code commits to cards (pure): which card a commit names (its
 * `Task:`/`Card:`/`Refs:` trailers, else its branch name), which cards it closes
 * (`Closes:`/`Fixes:`), the branch name `tasks branch` creates, and the op
 * that records a commit on a card as a comment of kind `commit`.
 *
 * The comment is keyed on the commit: its file name is
 * `<commit time>-<first 8 hex of the sha>`, and the op is given whether a
 * comment for that sha is already on the card, so running the hook twice for
 * one commit links it once.
 */
import type {OpContext, Plan} from './plan'
import {type Snapshot, lookup} from './snapshot'
import type {Comment} from './task'
import {compactTimestamp} from './ops/comment'

/** Letters of an id's body (lowercase Crockford base32). */
const ID_BODY = '[0-9a-hjkmnp-tv-z]'

/**
 * The id a branch name points at: `<type>/<id>-slug`, `<id>-slug` or just
 * `<id>`, where `<id>` is `tsk-` and 4+ base32 letters, or 4+ letters alone
 * (a prefix the CLI must still resolve). Null when it names none.
 */
export function idFromBranch(branch: string | null | undefined): string | null {
  if (!branch) return null
  const name = branch.replace(/^refs\/heads\//, '')
  const last = name.includes('/') ? name.slice(name.indexOf('/') + 1) : name
  if (last.includes('/')) return null
  const m = new RegExp(`^(tsk-)?(${ID_BODY}{4,26})(?:-|$)`, 'i').exec(last)
  return m ? `tsk-${m[2]!.toLowerCase()}` : null
}

export interface CommitTrailers {
  /** Cards the commit is about (`Task:`, `Card:` as scitex-todo writes it, `Refs:`), in order, without duplicates. */
  refs: string[]
  /** Cards the commit finishes when pushed (`Closes:`, `Fixes:`). */
  closes: string[]
}

/**
 * Lines longer than this are never trailers (the app writes values of at
 * most 200 characters; a `Closes:` line naming a hundred cards is 2 KiB).
 */
export const MAX_TRAILER_LINE = 8192

/** `Key:` at the start of a line: the key's letters cannot hold a colon, so this anchored match never backtracks. */
const TRAILER_KEY = /^[A-Za-z][A-Za-z0-9-]*:/
/** Characters that end a line for a regex `.`; a value holding one in its middle is not a trailer value. */
const LINE_BREAK = /[\r\u2028\u2029]/

/**
 * The trailer block (last paragraph) of a commit message, as key/value
 * pairs. Linear in the message's length: the paragraphs are found by one
 * pass over the lines (a blank line is whitespace only), each line is read
 * with an anchored key match and a trim, and lines longer than
 * MAX_TRAILER_LINE are skipped unread.
 */
export function messageTrailers(message: string): Array<[string, string]> {
  const lines = message.replace(/\r\n/g, '\n').trimEnd().split('\n')
  let start = -1
  // A blank line after the first line (as /\n\s*\n/ splits paragraphs: a blank first line separates nothing).
  for (let i = lines.length - 1; i >= 1; i--) {
    if (lines[i]!.trim() === '') {
      start = i + 1
      break
    }
  }
  // One paragraph (no blank line): a subject, never trailers.
  if (start < 0) return []
  const out: Array<[string, string]> = []
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!
    if (line.length > MAX_TRAILER_LINE) continue
    const key = TRAILER_KEY.exec(line)
    if (!key) continue
    const value = line.slice(key[0].length).trim()
    if (LINE_BREAK.test(value)) continue
    out.push([key[0].slice(0, -1), value])
  }
  return out
}

/** Card references in a commit message's trailers; values may hold several ids, comma- or space-separated. */
export function commitTrailers(message: string): CommitTrailers {
  const refs: string[] = []
  const closes: string[] = []
  for (const [k, v] of messageTrailers(message)) {
    const key = k.toLowerCase()
    const target = key === 'task' || key === 'card' || key === 'refs' ? refs : key === 'closes' || key === 'fixes' ? closes : null
    if (!target) continue
    for (const word of v.split(/[\s,]+/)) {
      const m = new RegExp(`^(tsk-)?(${ID_BODY}{4,26})$`, 'i').exec(word.replace(/^#/, ''))
      if (!m) continue
      const id = `tsk-${m[2]!.toLowerCase()}`
      if (!target.includes(id)) target.push(id)
    }
  }
  return {refs, closes}
}

/** The cards a commit links to: its trailers (Task, Card, Refs, Closes, Fixes) if any, else its branch. */
export function linkTargets(message: string, branch: string | null): string[] {
  const t = commitTrailers(message)
  const all = [...t.refs, ...t.closes.filter((id) => !t.refs.includes(id))]
  if (all.length > 0) return all
  const fromBranch = idFromBranch(branch)
  return fromBranch ? [fromBranch] : []
}

/** `task/<short id>-<slug of the title>`: what `tasks branch` checks out. */
export function taskBranchName(shortId: string, title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
  return slug ? `task/${shortId}-${slug}` : `task/${shortId}`
}

export interface LinkedCommit {
  sha: string
  subject: string
  /** Branch the commit was made on (null: detached HEAD, or a push of a ref that is not a branch). */
  branch: string | null
  /** `Name <email>` of the commit's author. */
  author: string
  /** Committer time, ISO-8601 UTC. */
  time: string
}

/** The comment id of the link: sortable by the commit's time, keyed on its sha. */
export function commitCommentId(c: LinkedCommit): string {
  return `${compactTimestamp(c.time)}-${c.sha.slice(0, 8).toLowerCase()}`
}

/** The text of a `commit` comment: first line names the sha (how a second link is recognised). */
export function commitCommentBody(c: LinkedCommit): string {
  const lines = [`commit ${c.sha}`, `subject: ${c.subject.replace(/\s+/g, ' ').trim().slice(0, 500)}`]
  if (c.branch) lines.push(`branch: ${c.branch}`)
  lines.push(`author: ${c.author.replace(/[\r\n]+/g, ' ').slice(0, 300)}`)
  return lines.join('\n')
}

/** Whether a comment already links commit `sha`. */
export function linksCommit(comment: Pick<Comment, 'kind' | 'body'>, sha: string): boolean {
  return comment.kind === 'commit' && comment.body.startsWith(`commit ${sha}\n`)
}

/**
 * Add a `commit` comment for `commit` to card `id`. `alreadyLinked`: the
 * caller read the card's comments and found this sha (no change then).
 */
export function linkCommit(snap: Snapshot, ctx: OpContext, args: {id: string; commit: LinkedCommit; alreadyLinked: boolean}): Plan<{task: string; comment: Comment | null}> {
  const meta = lookup(snap, args.id)
  const subject = {id: meta.id, title: meta.title}
  if (args.alreadyLinked) return {op: 'comment', subject, changes: [], trailers: [], result: {task: meta.id, comment: null}}
  const comment: Comment = {
    id: commitCommentId(args.commit),
    task: meta.id,
    kind: 'commit',
    author: ctx.actor,
    created_at: args.commit.time,
    body: commitCommentBody(args.commit),
  }
  const trailers: Array<[string, string]> = [['Tasks-Comment-Kind', 'commit'], ['Tasks-Commit', args.commit.sha]]
  if (args.commit.branch) trailers.push(['Tasks-Branch', args.commit.branch])
  return {op: 'comment', subject, changes: [{kind: 'add-comment', comment}], trailers, result: {task: meta.id, comment}}
}
