/**
 * What `tasks undo` needs to know from git: the actor's newest commit on
 * the list's ref, the files that commit changed (each as it was before and
 * after it), and the later commits that touched the same tasks. Reads only;
 * the undo itself is a pure op (src/core/ops/undo.ts) run through the
 * ordinary transaction.
 */
import {git, gitOk} from './git-process'
import type {ListStore} from './list-store'
import {parseTrailers} from './history'

export interface CommitInfo {
  commit: string
  parents: string[]
  subject: string
  trailers: Array<[string, string]>
}

/** One file a commit changed: its text before (in the first parent) and after; null when absent. */
export interface FileChange {
  path: string
  before: string | null
  after: string | null
}

const FIELD = '\x1f'
const RECORD = '\x1e'

function parseLog(stdout: string): CommitInfo[] {
  const out: CommitInfo[] = []
  for (const record of stdout.split(RECORD)) {
    const trimmed = record.replace(/^\n/, '')
    if (!trimmed) continue
    const [commit, parents, message] = trimmed.split(FIELD) as [string, string, string]
    out.push({commit, parents: parents.split(' ').filter(Boolean), subject: message.split('\n')[0] ?? '', trailers: parseTrailers(message)})
  }
  return out
}

/** The newest commit on `ref` whose Actor trailer is `actor` (every git-tasks commit has one), or null. */
export async function lastCommitBy(cwd: string, ref: string, actor: string): Promise<CommitInfo | null> {
  const pattern = `^Actor: ${actor.replace(/[.[\]()*+?{}|^$\\]/g, '\\$&')}$`
  const r = await git(['log', '-E', `--grep=${pattern}`, '-n', '20', `--format=%H${FIELD}%P${FIELD}%B${RECORD}`, '--no-color', ref, '--'], {cwd})
  if (r.code !== 0) return null
  // --grep matches any line; only the trailer counts.
  // A `seen` commit (last_seen moved by reading the inbox) is bookkeeping, not a change to take back.
  return parseLog(r.stdout).find((c) => c.trailers.some(([k, v]) => k === 'Actor' && v === actor) && !c.trailers.some(([k, v]) => k === 'Tasks-Op' && v === 'seen')) ?? null
}

/**
 * The files `commit` changed relative to its only parent, with their text
 * on both sides. The blob ids come from the diff and are read by id, many
 * in flight. Reading `<commit>:<path>` instead would make git walk the
 * root, `tasks/` and shard trees again for every file, and an import
 * commit changes every card (docs/scale.md has the figures).
 */
export async function commitFileChanges(store: ListStore, commit: string, parent: string): Promise<FileChange[]> {
  const out = await gitOk(['diff-tree', '-r', '-z', '--no-renames', parent, commit], {cwd: store.repo.cwd})
  // -z: ":<old mode> <new mode> <old id> <new id> <status>\0<path>\0" per file.
  const parts = out.split('\0')
  const files: Array<{path: string; before: string | null; after: string | null}> = []
  // Only files are read as text: a gitlink (a commit id) has none, as reading it by path gave none.
  const blobId = (mode: string, id: string): string | null => (/^0+$/.test(id) || mode === '160000' ? null : id)
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const fields = parts[i]!.split(' ')
    if (!fields[0]?.startsWith(':')) break
    files.push({path: parts[i + 1]!, before: blobId(fields[0].slice(1), fields[2]!), after: blobId(fields[1]!, fields[3]!)})
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const read = async (id: string | null): Promise<string | null> => {
    if (id === null) return null
    const obj = await store.reader.read(id)
    return obj && obj.type === 'blob' ? obj.content.toString('utf8') : null
  }
  const changes: FileChange[] = []
  for (let i = 0; i < files.length; i += READ_WINDOW) {
    changes.push(...(await Promise.all(files.slice(i, i + READ_WINDOW).map(async (f) => ({path: f.path, before: await read(f.before), after: await read(f.after)})))))
  }
  return changes
}

/** Files whose two sides are read at once. */
const READ_WINDOW = 1024

/**
 * Commits after `commit` up to any of `tips` that touched any of `paths`
 * (directories or files), newest first. The paths go to git on its
 * standard input (`--stdin`, after a `--` line): on the command line, the
 * card directories of a large import's undo are too long for one
 * process's arguments (E2BIG).
 */
export async function laterCommitsTouching(cwd: string, commit: string, tips: readonly string[], paths: readonly string[]): Promise<CommitInfo[]> {
  if (paths.length === 0 || tips.length === 0) return []
  const format = [`--format=%H${FIELD}%P${FIELD}%B${RECORD}`, '--no-color']
  // A path with a line break (a stray file's odd name) cannot go a line at a time: those few on the command line.
  const r = paths.some((p) => /[\n\r]/.test(p))
    ? await gitOk(['log', ...format, `^${commit}`, ...tips, '--', ...paths], {cwd})
    : await gitOk(['log', ...format, '--stdin'], {cwd, input: `^${commit}\n${tips.join('\n')}\n--\n${paths.join('\n')}\n`})
  return parseLog(r)
}
