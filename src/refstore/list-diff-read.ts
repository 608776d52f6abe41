/**
 * The git reads behind `tasks diff`: the commits of a window (for
 * `--actor`), the files under `tasks/` that changed between two commits or
 * in each commit, and their texts. Only changed paths are read: one
 * `git diff-tree --stdin` for every pair and one `git cat-file --batch` for
 * every blob, however long the list. What the files mean is decided in
 * src/core/list-diff.ts.
 */
import type {DiffStep, FileChangeText} from '../core/list-diff'
import {TASKS_DIR} from '../core/store-layout'
import {changedPaths, readBlobs} from './blobs'
import {git} from './git-process'
import {parseTrailers} from './history'

export interface RangeCommit {
  commit: string
  parents: string[]
  /** The Actor trailer, else the author. */
  actor: string
}

const FIELD = '\x1f'
const RECORD = '\x1e'

/**
 * Every commit reachable from `to` and not from `from`, oldest first (a
 * parent before its children), merges included: the caller decides what a
 * merge counts for.
 */
export async function commitsBetween(cwd: string, from: string, to: string): Promise<RangeCommit[]> {
  const r = await git(['log', '--reverse', '--topo-order', `--format=%H${FIELD}%P${FIELD}%an${FIELD}%B${RECORD}`, '--no-color', `${from}..${to}`, '--'], {cwd})
  if (r.code !== 0) throw new Error(`git log ${from}..${to} failed: ${r.stderr.trim()}`)
  const out: RangeCommit[] = []
  for (const record of r.stdout.split(RECORD)) {
    const trimmed = record.replace(/^\n/, '')
    if (!trimmed) continue
    const [commit, parents, author, message] = trimmed.split(FIELD) as [string, string, string, string]
    const actor = parseTrailers(message).find(([k]) => k === 'Actor')?.[1] ?? author
    out.push({commit, parents: parents.split(' ').filter(Boolean), actor})
  }
  return out
}

/** Committer dates (strict ISO-8601) of commits, by id. */
export async function commitDates(cwd: string, commits: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  const unique = [...new Set(commits)]
  if (unique.length === 0) return out
  const r = await git(['log', '--no-walk=unsorted', '--stdin', '--format=%H %cI'], {cwd, input: `${unique.join('\n')}\n`})
  if (r.code !== 0) throw new Error(`git log failed: ${r.stderr.trim()}`)
  for (const line of r.stdout.split('\n')) {
    const [h, d] = line.trim().split(' ')
    if (h && d) out.set(h, d)
  }
  return out
}

/**
 * One step per pair: the files under `tasks/` that `to` changed relative to
 * `from`, each with its text on both sides (null: absent, or not a blob).
 * Every blob of every pair is read in one batch.
 */
export async function changedCardFiles(cwd: string, pairs: ReadonlyArray<{from: string; to: string; actor: string | null}>): Promise<DiffStep[]> {
  const wanted = pairs.filter((p) => p.from !== p.to)
  const byCommit = await changedPaths(cwd, wanted.map((p) => ({commit: p.to, parent: p.from})))
  const prefix = `${TASKS_DIR}/`
  const blobs: string[] = []
  for (const paths of byCommit.values()) {
    for (const c of paths) {
      if (!c.path.startsWith(prefix)) continue
      if (c.before) blobs.push(c.before)
      if (c.after) blobs.push(c.after)
    }
  }
  const texts = await readBlobs(cwd, blobs)
  const text = (id: string | null): string | null => (id === null ? null : (texts.get(id)?.toString('utf8') ?? null))
  return pairs.map((p) => {
    const files: FileChangeText[] = p.from === p.to ? [] : (byCommit.get(p.to) ?? []).filter((c) => c.path.startsWith(prefix)).map((c) => ({path: c.path, before: text(c.before), after: text(c.after)}))
    return {commit: p.to, actor: p.actor, files}
  })
}

/** Files at `commit` by path (absent from the map when missing), in one batch. */
export async function filesAt(cwd: string, commit: string, paths: readonly string[]): Promise<Map<string, string>> {
  const specs = paths.map((p) => `${commit}:${p}`)
  const blobs = await readBlobs(cwd, specs)
  const out = new Map<string, string>()
  for (const p of paths) {
    const b = blobs.get(`${commit}:${p}`)
    if (b) out.set(p, b.toString('utf8'))
  }
  return out
}
