/**
 * What one actor wrote in a window of a list's history, for `tasks revert
 * --actor` (core/ops/revert.ts decides what to take back). One `git log
 * --raw` of the commits after the window's start (`^since`, read by the
 * history's own parser, history.ts `parseRawLog`), one `git rev-list` for
 * the window's end, and every version of the cards the actor changed read
 * by id through the store's object reader (no process of its own): each
 * card's task.md before and after every commit of the range that changed
 * it (anyone's: the op needs the changes made since, and between the
 * actor's), the comments the actor added and the checks it changed.
 */
import {git} from './git-process'
import {type RawCommit, RAW_LOG_FORMAT, parseRawLog} from './history'
import type {ListStore} from './list-store'
import {parseCheckFile} from '../core/check'
import {MAX_FILE_BYTES} from '../core/task'
import {parseCommentFile, parseTaskFile} from '../core/task-file'
import type {CardStep, RevertCard, RevertCheck, RevertComment} from '../core/ops/revert'

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

/** The actor's writes in the window on `tip`'s history, with every later change to the cards it touched. */
export async function readActorWrites(store: ListStore, tip: string, w: WindowBounds): Promise<ActorWrites> {
  const cwd = store.repo.cwd
  const range = [tip, ...(w.since ? [`^${w.since}`] : [])]
  const r = await git(['log', '--reverse', '--topo-order', '--no-renames', '--raw', '--no-abbrev', RAW_LOG_FORMAT, '--no-color', ...range, '--'], {cwd})
  if (r.code !== 0) throw new Error(`git log failed: ${r.stderr.trim()}`)
  let inWindow: Set<string> | null = null
  if (w.until) {
    const u = await git(['rev-list', w.until, ...(w.since ? [`^${w.since}`] : []), '--'], {cwd})
    if (u.code !== 0) throw new Error(`git rev-list failed: ${u.stderr.trim()}`)
    inWindow = new Set(u.stdout.split('\n').filter(Boolean))
  }
  // Changes against one parent only: git log shows none for a merge (no -c); a combined line (log.diffMerges) is left out.
  const raws = parseRawLog(r.stdout).map((c) => ({...c, files: c.files.filter((f) => f.parents.length === 1)}))
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
      if (comment && f.parents[0] === null && f.after !== null) commentFiles.push({task: comment[1]!, comment: comment[2]!, blob: f.after, commit: c.commit})
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
      list.push({raw: c, before: f.parents[0] ?? null, after: f.after})
    }
  }
  const wanted: string[] = []
  for (const list of steps.values()) for (const s of list) wanted.push(...[s.before, s.after].filter((b): b is string => b !== null))
  wanted.push(...commentFiles.map((f) => f.blob), ...checkFiles.flatMap((f) => (f.blob ? [f.blob] : [])))
  // Read by id, all at once (the reader sends the requests of one tick in one write); a file over the store's
  // size limit does not read, as the store does not read it either.
  const blobs = new Map<string, Buffer>()
  await Promise.all(
    [...new Set(wanted)].map(async (id) => {
      const obj = await store.reader.read(id, MAX_FILE_BYTES)
      if (obj && obj.type === 'blob' && !obj.oversized) blobs.set(id, obj.content)
    }),
  )
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
