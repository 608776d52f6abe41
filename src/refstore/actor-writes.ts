/**
 * What one actor wrote in a window of a list's history, for `tasks revert
 * --actor` (core/ops/revert.ts decides what to take back). One `git log
 * --raw` of the commits after the window's start (`^since`), one
 * `git rev-list` for the window's end, one `git cat-file --batch` for every
 * version of the cards the actor changed: each card's task.md before and
 * after every commit of the range that changed it (anyone's: the op needs
 * the changes made since, and between the actor's), the comments the actor
 * added and the checks it changed.
 */
import {git} from './git-process'
import {readBlobs} from './blobs'
import {parseTrailers} from './history'
import {parseCheckFile} from '../core/check'
import {parseCommentFile, parseTaskFile} from '../core/task-file'
import type {CardStep, RevertCard, RevertCheck, RevertComment} from '../core/ops/revert'

const FIELD = '\x1f'
const RECORD = '\x1e'
const NO_BLOB = /^0+$/
const TASK_FILE_RE = /^tasks\/[^/]+\/([^/]+)\/task\.md$/
const COMMENT_RE = /^tasks\/[^/]+\/([^/]+)\/comments\/([^/]+)\.md$/
const CHECK_RE = /^tasks\/[^/]+\/([^/]+)\/checks\/([^/]+)\.md$/

export interface ActorWrites {
  /** The actor's commits in the window. */
  commits: number
  cards: RevertCard[]
  comments: RevertComment[]
  checks: RevertCheck[]
}

export interface WindowBounds {
  actor: string
  /** Only commits after this one (not reachable from it); null: from the start. */
  since: string | null
  /** Only commits reachable from this one; null: to the tip. */
  until: string | null
}

interface RawCommit {
  commit: string
  actor: string
  date: string
  files: Array<{path: string; before: string | null; after: string | null}>
}

/** The actor's writes in the window on `tip`'s history, with every later change to the cards it touched. */
export async function readActorWrites(cwd: string, tip: string, w: WindowBounds): Promise<ActorWrites> {
  const range = [tip, ...(w.since ? [`^${w.since}`] : [])]
  const r = await git(['log', '--reverse', '--topo-order', '--no-renames', '--raw', '--no-abbrev', `--format=${RECORD}%H${FIELD}%an${FIELD}%aI${FIELD}%B${FIELD}`, '--no-color', ...range, '--'], {cwd})
  if (r.code !== 0) throw new Error(`git log failed: ${r.stderr.trim()}`)
  let inWindow: Set<string> | null = null
  if (w.until) {
    const u = await git(['rev-list', w.until, ...(w.since ? [`^${w.since}`] : []), '--'], {cwd})
    if (u.code !== 0) throw new Error(`git rev-list failed: ${u.stderr.trim()}`)
    inWindow = new Set(u.stdout.split('\n').filter(Boolean))
  }
  const raws: RawCommit[] = []
  for (const record of r.stdout.split(RECORD)) {
    if (!record.trim()) continue
    const [commit, author, date, message, rest] = record.split(FIELD) as [string, string, string, string, string]
    const actor = parseTrailers(message).find(([k]) => k === 'Actor')?.[1] ?? author
    const files: RawCommit['files'] = []
    for (const line of (rest ?? '').split('\n')) {
      const m = /^:\d+ \d+ ([0-9a-f]+) ([0-9a-f]+) [A-Z]\d*\t(.+)$/.exec(line)
      if (m) files.push({path: m[3]!, before: NO_BLOB.test(m[1]!) ? null : m[1]!, after: NO_BLOB.test(m[2]!) ? null : m[2]!})
    }
    raws.push({commit, actor, date, files})
  }
  const mine = (c: RawCommit) => c.actor === w.actor && (inWindow === null || inWindow.has(c.commit))
  const ids = new Set<string>()
  const commentFiles: Array<{task: string; comment: string; blob: string; commit: string}> = []
  const checkFiles: Array<{task: string; check: string; blob: string | null; commit: string}> = []
  let commits = 0
  for (const c of raws) {
    if (!mine(c)) continue
    commits++
    for (const f of c.files) {
      const task = TASK_FILE_RE.exec(f.path)
      if (task) ids.add(task[1]!)
      const comment = COMMENT_RE.exec(f.path)
      if (comment && f.before === null && f.after !== null) commentFiles.push({task: comment[1]!, comment: comment[2]!, blob: f.after, commit: c.commit})
      const check = CHECK_RE.exec(f.path)
      if (check) checkFiles.push({task: check[1]!, check: check[2]!, blob: f.after, commit: c.commit})
    }
  }
  const steps = new Map<string, Array<{raw: RawCommit; before: string | null; after: string | null}>>()
  for (const c of raws) {
    for (const f of c.files) {
      const id = TASK_FILE_RE.exec(f.path)?.[1]
      if (id === undefined || !ids.has(id)) continue
      let list = steps.get(id)
      if (!list) steps.set(id, (list = []))
      list.push({raw: c, before: f.before, after: f.after})
    }
  }
  const wanted: string[] = []
  for (const list of steps.values()) for (const s of list) wanted.push(...[s.before, s.after].filter((b): b is string => b !== null))
  wanted.push(...commentFiles.map((f) => f.blob), ...checkFiles.flatMap((f) => (f.blob ? [f.blob] : [])))
  const blobs = await readBlobs(cwd, wanted)
  // undefined: a blob that is there but does not read as a card (a hand-made or damaged file).
  const version = (id: string, blob: string | null) => {
    if (blob === null) return null
    const text = blobs.get(blob)?.toString('utf8')
    const parsed = text === undefined ? null : parseTaskFile(text, id)
    return parsed?.ok ? {meta: parsed.value.meta, body: parsed.value.body} : undefined
  }
  const cards: RevertCard[] = [...steps].map(([id, list]) => ({
    id,
    steps: list.map((s): CardStep => {
      const before = version(id, s.before)
      const after = version(id, s.after)
      const unreadable = before === undefined || after === undefined
      return {commit: s.raw.commit, actor: s.raw.actor, date: s.raw.date, mine: mine(s.raw), before: before ?? null, after: after ?? null, ...(unreadable ? {unreadable} : {})}
    }),
  }))
  const comments = commentFiles.map((f): RevertComment => {
    const text = blobs.get(f.blob)?.toString('utf8')
    const parsed = text === undefined ? null : parseCommentFile(text, f.task, f.comment)
    return {id: f.task, comment: f.comment, kind: parsed?.ok ? parsed.value.kind : null, created_at: parsed?.ok ? parsed.value.created_at : null, commit: f.commit}
  })
  const checks = checkFiles.map((f): RevertCheck => {
    const text = f.blob ? blobs.get(f.blob)?.toString('utf8') : undefined
    const parsed = text === undefined ? null : parseCheckFile(text, f.task, f.check)
    return {id: f.task, check: f.check, status: parsed?.ok ? parsed.value.status : null, commit: f.commit}
  })
  return {commits, cards, comments, checks}
}
