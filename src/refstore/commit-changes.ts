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

/** The files `commit` changed relative to its only parent, with their text on both sides. */
export async function commitFileChanges(store: ListStore, commit: string, parent: string): Promise<FileChange[]> {
  const out = await gitOk(['diff-tree', '-r', '-z', '--no-renames', '--name-only', parent, commit], {cwd: store.repo.cwd})
  const paths = out.split('\0').filter(Boolean).sort()
  const read = async (at: string, path: string): Promise<string | null> => {
    const obj = await store.reader.read(`${at}:${path}`)
    return obj && obj.type === 'blob' ? obj.content.toString('utf8') : null
  }
  return Promise.all(paths.map(async (path) => ({path, before: await read(parent, path), after: await read(commit, path)})))
}

/** Commits after `commit` up to any of `tips` that touched any of `paths` (directories or files), newest first. */
export async function laterCommitsTouching(cwd: string, commit: string, tips: readonly string[], paths: readonly string[]): Promise<CommitInfo[]> {
  if (paths.length === 0 || tips.length === 0) return []
  const r = await gitOk(['log', `--format=%H${FIELD}%P${FIELD}%B${RECORD}`, '--no-color', `^${commit}`, ...tips, '--', ...paths], {cwd})
  return parseLog(r)
}
