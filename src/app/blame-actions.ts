/**
 * `tasks blame ID [--at WHEN]`: who set each field of a card and each line
 * of its description. The card's history is read newest first as git writes
 * it (refstore/history.ts `walkFileHistory`), its versions through the
 * store's long-lived cat-file reader, and the pure walk (core/blame.ts)
 * says when everything is explained: git is stopped there. Reads commits
 * only; never touches the index cache.
 */
import {BlameWalk, type FieldBlame, type LineBlame} from '../core/blame'
import {NotFoundError} from '../core/errors'
import type {CardVersion} from '../core/field-changes'
import {taskFilePath} from '../core/store-layout'
import {parseTaskFile} from '../core/task-file'
import {matchLines} from '../merge/text-merge'
import {type RawCommit, removalCommit, walkFileHistory} from '../refstore/history'
import {refreshCommitGraph} from '../refstore/housekeeping'
import {type AtPoint, resolveAt} from './at'
import {resolveInHistory} from './history-actions'
import type {Session} from './session'

export interface BlameResult {
  list: string
  task: string
  /** The point blamed (--at), else null: the list as it is. */
  at: AtPoint | null
  /** The commit of the list the card was read at. */
  commit: string
  /** Every set field (TaskMeta keys and `fields.<name>`, bookkeeping left out), in field order. */
  fields: FieldBlame[]
  /** Every line of the description, in order. */
  description: LineBlame[]
  /** Commits of the card's history read before everything was explained. */
  walked: number
}

/** A task.md over this is not a card the tool wrote; it reads as no card. */
const TASK_FILE_LIMIT = 2 * 1024 * 1024

/** A commit the log has shown that values wait on again. */
function revisit(walk: BlameWalk, seen: ReadonlyMap<string, RawCommit>): RawCommit | null {
  for (const commit of walk.waitingAt()) {
    const c = seen.get(commit)
    if (c) return c
  }
  return null
}

export async function blame(session: Session, {id: input, at: when}: {id: string; at?: string}): Promise<BlameResult> {
  const store = session.store
  const loaded = await store.load()
  const at = when !== undefined ? await resolveAt(session, when) : null
  const {id, removed} = await resolveInHistory(session, loaded.snapshot, input)
  const start = at?.commit ?? loaded.index.commit
  if (removed && !at) {
    const removal = await removalCommit(store.repo.cwd, loaded.index.commit, taskFilePath(id))
    const before = removal?.parent.slice(0, 10)
    throw new NotFoundError(
      'task_not_found',
      `${id} is no longer in list ${session.list}${removal ? ` (removed in ${removal.commit.slice(0, 10)})` : ''}; blame it as it was with --at${before ? `: tasks blame ${id} --at ${before}` : ' WHEN'}`,
      {input, id, removed: true, ...(removal ? {removed_in: removal.commit, at: removal.parent} : {})},
    )
  }
  const path = taskFilePath(id)
  const versions = new Map<string, Promise<CardVersion | null>>()
  const version = (name: string | null): Promise<CardVersion | null> => {
    if (name === null) return Promise.resolve(null)
    let v = versions.get(name)
    if (!v) {
      v = store.reader.read(name, TASK_FILE_LIMIT).then((o) => {
        if (!o || o.type !== 'blob' || o.oversized) return null
        const parsed = parseTaskFile(o.content.toString('utf8'), id)
        return parsed.ok ? parsed.value : null
      })
      versions.set(name, v)
    }
    return v
  }
  // The file at the commit and at each parent: from the log's --raw line, else (a commit the log shows without one) by name.
  const sides = (c: RawCommit): {after: string | null; parents: Array<string | null>} => {
    const file = c.files.find((f) => f.path === path)
    if (file && file.parents.length === Math.max(1, c.parents.length)) return {after: file.after, parents: c.parents.length === 0 ? [] : file.parents}
    return {after: `${c.commit}:${path}`, parents: c.parents.map((p) => `${p}:${path}`)}
  }
  let walk: BlameWalk | null = null
  let missing = false
  /** Every commit the log has shown, for a value that reaches one after it was stepped. */
  const seen = new Map<string, RawCommit>()
  const step = async (w: BlameWalk, c: RawCommit): Promise<void> => {
    const s = sides(c)
    const mine = await version(s.after)
    const parents = await Promise.all(c.parents.map(async (commit, i) => ({commit, version: await version(s.parents[i] ?? null)})))
    w.step({commit: c.commit, actor: c.actor, date: c.date, op: c.op, version: mine, parents})
  }
  await walkFileHistory(store.repo.cwd, start, path, async (batch) => {
    // Ask for every version the batch may need at once (the reader pipelines them), then step in order.
    for (const c of batch) {
      if (walk && !walk.wants(c.commit)) continue
      const s = sides(c)
      void version(s.after)
      for (const p of s.parents) void version(p)
    }
    for (const c of batch) {
      seen.set(c.commit, c)
      if (!walk) {
        // The newest commit that changed the card holds it as it is at `start`; none, or a removal: no card there.
        const mine = await version(sides(c).after)
        if (!mine) {
          missing = true
          return true
        }
        walk = new BlameWalk(mine, matchLines)
      }
      if (!walk.wants(c.commit)) continue
      await step(walk, c)
      // Values passed to a commit the log showed already (dated after its child): follow them there now.
      for (let again = revisit(walk, seen); again; again = revisit(walk, seen)) await step(walk, again)
      if (walk.done) return true
    }
    return false
  })
  const done = walk as BlameWalk | null
  if (missing || !done) {
    throw new NotFoundError('task_not_found', at ? `${id} was not in list ${session.list} at ${at.commit.slice(0, 10)} (${at.input})` : `${id} has no history in list ${session.list}`, {input, id, ...(at ? {at: at.commit} : {})})
  }
  // A card's history reads fast on a long list only with changed-path filters: keep the commit-graph current, in the background.
  refreshCommitGraph(store.repo, loaded.index.commit)
  const r = done.result()
  return {list: session.list, task: id, at, commit: start, fields: r.fields, description: r.lines, walked: done.steps}
}
