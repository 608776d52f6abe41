/**
 * The hooks' queue file (`<git common dir>/git-tasks/hook-queue`): what the
 * client hooks record for the background worker, and how the worker reads
 * it back. Pure: bytes in, records out.
 *
 * A record is NUL-delimited with a field count, so no value can spill into
 * another whatever it holds (a remote path with spaces, a newline, a leading
 * dash): a shell variable cannot hold a NUL, nor can a git path or ref name.
 *
 *   NUL "q2" NUL <count> NUL <field 1> NUL … <field count> NUL LF
 *
 * The first field is the kind:
 *
 *   commit <sha> <branch or HEAD>
 *   push <git push pid> <remote> <url> <local sha> <remote sha> <remote ref> <local ref>
 *
 * (`remote` and `url` are the pre-push hook's two arguments: a remote's name
 * and its URL, or the URL twice for a push to a URL.) The shell writes it
 * with `printf '\000q2\000%s\000…'`; the trailing LF only keeps the file
 * readable with `cat -v`.
 *
 * Hooks written by an earlier version (still installed until `tasks hooks
 * install` runs again) append space-separated text lines, which are read
 * where they are unambiguous (ref names and shas hold no space, so a push
 * line's remote is everything between the pid and the last four words) and
 * otherwise dropped with a reason, never guessed at.
 *
 * Every value is checked before the worker uses it: shas are hex, ref names
 * follow git's rules and start with `refs/`, the pid is a number.
 */

export const RECORD_TAG = 'q2'

export interface CommitRecord {
  kind: 'commit'
  sha: string
  /** The branch (without refs/heads/), or 'HEAD' when detached. */
  branch: string
}

export interface PushRecord {
  kind: 'push'
  /** The `git push` process; 0 when it is known to be over. */
  pid: number
  /** The remote's name, or its URL when the push named no remote. */
  remote: string
  /** The URL the push went to (equal to `remote` for a push to a URL; empty in an old-format line). */
  url: string
  localSha: string
  remoteSha: string
  remoteRef: string
  /** What git called the local side (a ref name, `HEAD`, `(delete)`…); informative only. */
  localRef: string
}

export type QueueRecord = CommitRecord | PushRecord

/** A stretch of the queue that is not a usable record, with why (for the hooks log). */
export interface DroppedRecord {
  reason: string
  /** The start of it, for the log (at most 200 characters). */
  excerpt: string
}

export interface ParsedQueue {
  records: QueueRecord[]
  dropped: DroppedRecord[]
}

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
const MAX_FIELDS = 32

export function isSha(s: string): boolean {
  return SHA.test(s)
}

/**
 * Whether `name` is a full ref name git accepts (`git check-ref-format`
 * rules) under `refs/`. Anything else, a word beginning with `-` included,
 * is never handed to git as a ref.
 */
export function isRefName(name: string): boolean {
  if (!name.startsWith('refs/') || name.length > 1024) return false
  if (name.endsWith('/') || name.endsWith('.') || name.includes('..') || name.includes('@{') || name.includes('//')) return false
  // Control characters, space, DEL and ~ ^ : ? * [ \ are never part of a ref name.
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false
  for (const part of name.split('/')) {
    if (part === '' || part.startsWith('.') || part.endsWith('.lock')) return false
  }
  return name !== 'refs/@'
}

/** Whether `name` can be a remote's name for `refs/remotes/<name>/…` (no glob, no space, a valid ref path). */
export function isRemoteName(name: string): boolean {
  return name.length > 0 && isRefName(`refs/remotes/${name}/x`)
}

/** One record in the current format (what the hooks write, and what the worker keeps for a retry). */
export function encodeRecord(r: QueueRecord): string {
  const fields = r.kind === 'commit' ? ['commit', r.sha, r.branch] : ['push', String(r.pid), r.remote, r.url, r.localSha, r.remoteSha, r.remoteRef, r.localRef]
  return `\0${RECORD_TAG}\0${fields.length}\0${fields.map((f) => `${f}\0`).join('')}\n`
}

function excerpt(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s
}

/** A record's fields (kind first) as a record, or why not. */
function fromFields(f: string[]): QueueRecord | string {
  const [kind] = f
  if (kind === 'commit') {
    if (f.length < 3) return 'a commit record with too few fields'
    const [, sha, branch] = f as [string, string, string]
    if (!isSha(sha)) return 'a commit record whose sha is not a sha'
    if (branch !== 'HEAD' && branch !== '' && !isRefName(`refs/heads/${branch}`)) return 'a commit record whose branch is not a branch name'
    return {kind: 'commit', sha, branch: branch || 'HEAD'}
  }
  if (kind === 'push') {
    if (f.length < 8) return 'a push record with too few fields'
    const [, pid, remote, url, localSha, remoteSha, remoteRef, localRef] = f as [string, string, string, string, string, string, string, string]
    return pushRecord(pid, remote, url, localSha, remoteSha, remoteRef, localRef)
  }
  return `an unknown kind of record (${excerpt(kind ?? '')})`
}

function pushRecord(pid: string, remote: string, url: string, localSha: string, remoteSha: string, remoteRef: string, localRef: string): PushRecord | string {
  if (!/^\d{1,10}$/.test(pid)) return 'a push record whose pid is not a number'
  if (!isSha(localSha) || !isSha(remoteSha)) return 'a push record whose shas are not shas'
  if (!isRefName(remoteRef)) return 'a push record whose remote ref is not a ref name'
  if (remote === '') return 'a push record with no remote'
  return {kind: 'push', pid: Number(pid), remote, url, localSha, remoteSha, remoteRef, localRef}
}

/**
 * A line written by an earlier version's hooks: `commit SHA BRANCH` or
 * `push PID REMOTE LS RS RR LR` (space-separated, REMOTE possibly holding
 * spaces). Read only where it is unambiguous.
 */
function fromOldLine(line: string): QueueRecord | string {
  const words = line.split(' ')
  if (words[0] === 'commit') {
    if (words.length !== 2 && words.length !== 3) return 'an old-format commit line that does not have two fields'
    return fromFields(['commit', words[1]!, words[2] ?? ''])
  }
  if (words[0] === 'push') {
    if (words.length < 7) return 'an old-format push line with too few fields (a remote path holding a newline splits it)'
    const [localSha, remoteSha, remoteRef, localRef] = words.slice(-4) as [string, string, string, string]
    const remote = words.slice(2, -4).join(' ')
    return pushRecord(words[1]!, remote, '', localSha, remoteSha, remoteRef, localRef)
  }
  return 'an old-format line of no known kind (a remote path holding a newline splits a push line)'
}

/** Read a queue file's text: records of either format, in order, and what had to be dropped. */
export function parseQueue(text: string): ParsedQueue {
  const records: QueueRecord[] = []
  const dropped: DroppedRecord[] = []
  const take = (r: QueueRecord | string, raw: string) => {
    if (typeof r === 'string') dropped.push({reason: r, excerpt: excerpt(raw)})
    else records.push(r)
  }
  const start = `\0${RECORD_TAG}\0`
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '\n') {
      i++
      continue
    }
    if (c !== '\0') {
      // An old-format line (it holds no NUL: a shell variable cannot): up to its end, or to a record glued onto it.
      let end = text.indexOf('\n', i)
      if (end < 0) end = text.length
      const nul = text.indexOf('\0', i)
      if (nul >= 0 && nul < end) end = nul
      take(fromOldLine(text.slice(i, end)), text.slice(i, end))
      i = end
      continue
    }
    // A current record: tag, count, then exactly that many NUL-terminated fields.
    const bad = (reason: string) => {
      // Skip to the next record (or the next line that is not inside this one).
      const next = text.indexOf(start, i + 1)
      const end = next < 0 ? text.length : next
      dropped.push({reason, excerpt: excerpt(text.slice(i, end).replace(/\0/g, ' '))})
      i = end
    }
    if (!text.startsWith(start, i)) {
      bad('a record that does not start with the queue tag')
      continue
    }
    let p = i + start.length
    const countEnd = text.indexOf('\0', p)
    const countText = countEnd < 0 ? '' : text.slice(p, countEnd)
    if (!/^\d{1,2}$/.test(countText) || Number(countText) < 1 || Number(countText) > MAX_FIELDS) {
      bad('a record with no valid field count')
      continue
    }
    p = countEnd + 1
    const fields: string[] = []
    for (let n = Number(countText); n > 0; n--) {
      const e = text.indexOf('\0', p)
      if (e < 0) break
      fields.push(text.slice(p, e))
      p = e + 1
    }
    if (fields.length !== Number(countText)) {
      bad('a record cut short (the hook was interrupted while writing it)')
      continue
    }
    const r = fromFields(fields)
    if (typeof r === 'string') dropped.push({reason: r, excerpt: excerpt(fields.join(' '))})
    else records.push(r)
    i = p
  }
  return {records, dropped}
}
