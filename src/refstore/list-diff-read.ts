/**
 * The git reads behind `tasks diff`: the commits of a window (for
 * `--actor`), the files under `tasks/` that changed between two commits or
 * in each commit, and their texts. Only changed paths are read: one
 * `git diff-tree --stdin` for every pair and the cat-file batch reader for
 * every blob (through the list's object reader: no new process), however
 * long the list. What the files mean is decided in
 * src/core/list-diff.ts.
 */
import type {DiffStep, FileChangeText} from '../core/list-diff'
import {TASKS_DIR} from '../core/store-layout'
import {changedPaths} from './blobs'
import {git} from './git-process'
import {committerDate, parseTrailers} from './history'
import type {ObjectReader} from './object-reader'

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

/** Committer dates (strict ISO-8601, in the zone recorded) of commits, by id, read through the batch reader. */
export async function commitDates(reader: ObjectReader, commits: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  const unique = [...new Set(commits)]
  const objects = await Promise.all(unique.map((c) => reader.read(c)))
  unique.forEach((c, i) => {
    const o = objects[i]
    const date = o && o.type === 'commit' ? committerDate(o.content.toString('utf8')) : null
    if (date !== null) out.set(c, date)
  })
  return out
}

/**
 * One step per pair: the files under `tasks/` that `to` changed relative to
 * `from`, each with its text on both sides (null: absent, or not a blob).
 * Every blob of every pair is read in one batch.
 */
export async function changedCardFiles(cwd: string, reader: ObjectReader, pairs: ReadonlyArray<{from: string; to: string; actor: string | null}>): Promise<DiffStep[]> {
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
  const texts = await readTexts(reader, blobs)
  const text = (id: string | null): string | null => (id === null ? null : (texts.get(id) ?? null))
  return pairs.map((p) => {
    const files: FileChangeText[] = []
    const broken: Array<{path: string; error: string}> = []
    for (const c of p.from === p.to ? [] : (byCommit.get(p.to) ?? [])) {
      if (!c.path.startsWith(prefix)) continue
      const f = {path: c.path, before: text(c.before), after: text(c.after)}
      if (f.before === OVERSIZED || f.after === OVERSIZED) broken.push({path: c.path, error: `larger than ${FILE_LIMIT - 1} bytes`})
      else files.push(f)
    }
    return {commit: p.to, actor: p.actor, files, ...(broken.length ? {broken} : {})}
  })
}

/** Files at `commit` by path (absent from the map when missing), through the batch reader. */
export async function filesAt(reader: ObjectReader, commit: string, paths: readonly string[]): Promise<Map<string, string>> {
  const texts = await readTexts(reader, paths.map((p) => `${commit}:${p}`))
  const out = new Map<string, string>()
  for (const p of paths) {
    const t = texts.get(`${commit}:${p}`)
    if (t !== undefined) out.set(p, t)
  }
  return out
}

/** Blobs a file of a card may be at most (as every read of the ref: docs/storage.md). */
const FILE_LIMIT = 2 * 1024 * 1024 + 1

/** Stands for a file over the limit: never a card's text. */
const OVERSIZED = '\0oversized'

/** Texts of blobs by name (an id or `<commit>:<path>`), all asked at once; missing ones and non-blobs are absent. */
async function readTexts(reader: ObjectReader, names: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(names)]
  const objects = await Promise.all(unique.map((n) => reader.read(n, FILE_LIMIT)))
  const out = new Map<string, string>()
  unique.forEach((n, i) => {
    const o = objects[i]
    if (o && o.type === 'blob') out.set(n, o.oversized ? OVERSIZED : o.content.toString('utf8'))
  })
  return out
}
