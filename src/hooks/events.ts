/**
 * `tasks events [--since REV] [--follow]`: one event per commit of the
 * tasks ref, read from its trailers (the ref is the one source of truth;
 * there is no event table). `--follow` polls the ref (and, in online mode,
 * fetches the remote's list at each interval) and prints the commits that
 * became reachable since the tips it last saw, so a non-fast-forward (a
 * merge from sync, a rewritten remote) neither repeats nor skips anything.
 * An event names each item's revision after the commit: a hint to re-read,
 * not the state itself.
 */
import {UsageError} from '../core/errors'
import {messageTrailers} from '../core/commit-link'
import {unblockedIn} from '../core/unblock'
import type {Session} from '../app/session'
import {git} from '../refstore/git-process'
import {fetchList, networkLimits, recordFetch, MUTATION_TIMEOUT_MS} from '../refstore/remote'
import {shardOf} from '../core/ids'
import {INIT_COMMIT, TASKS_DIR, TASK_FILE} from '../core/store-layout'
import {MAX_FILE_BYTES} from '../core/task'
import {TREE_MODE, type TreeEntry, decodeTree} from '../refstore/git-objects'
import {ObjectReader, batchCommandSupported} from '../refstore/object-reader'
import {bulkReads, inWindow} from '../refstore/task-index'

export interface TaskEvent {
  op: string
  tasks: Array<{id: string; revision: number | null}>
  actor: string
  /** Author time of the commit, ISO-8601 UTC. */
  time: string
  commit: string
  subject: string
}

/**
 * A derived event (graith's shape, plus where it came from): the commit
 * finished the last open dependency of `id`, which is now todo with nothing
 * to wait on, at `revision` (core/unblock.ts). Printed right after its
 * commit's event; not with `emit_events: off`.
 */
export interface UnblockedEvent {
  event: 'unblocked'
  id: string
  status: 'todo'
  revision: number | null
  list: string
  commit: string
  time: string
}

/** One line of `tasks events`: a commit's event, or an event derived from it. */
export type EventLine = TaskEvent | UnblockedEvent

export function isDerivedEvent(e: EventLine): e is UnblockedEvent {
  return 'event' in e
}

/** Commit events, each followed by the events derived from it (with `derived`), as `tasks events` prints them. */
export function withDerived(events: readonly TaskEvent[], list: string, derived: boolean): EventLine[] {
  const out: EventLine[] = []
  for (const e of events) {
    out.push(e)
    if (!derived) continue
    for (const id of UNBLOCKED.get(e) ?? []) {
      const revision = e.tasks.find((t) => t.id === id)?.revision ?? null
      out.push({event: 'unblocked', id, status: 'todo', revision, list, commit: e.commit, time: e.time})
    }
  }
  return out
}

/** The ids each event's commit names in Tasks-Unblocked trailers (kept beside the event, not in its printed shape). */
const UNBLOCKED = new WeakMap<TaskEvent, string[]>()

/** Events of the commits reachable from `tips` and not from `seen`, oldest first. */
export async function eventsBetween(cwd: string, tips: readonly string[], seen: readonly string[]): Promise<TaskEvent[]> {
  if (tips.length === 0) return []
  const r = await git(['log', '--topo-order', '--reverse', '--format=%H%x1f%an%x1f%aI%x1f%P%x1f%B%x1e', ...tips, ...seen.map((s) => `^${s}`), '--'], {cwd})
  if (r.code !== 0) return []
  const events: TaskEvent[] = []
  for (const rec of r.stdout.split('\x1e')) {
    const t = rec.replace(/^\n/, '')
    if (!t.trim()) continue
    const [commit, author, date, parents, message] = t.split('\x1f') as [string, string, string, string, string]
    const trailers = messageTrailers(message)
    const value = (k: string) => trailers.find(([key]) => key === k)?.[1]
    const ids = trailers.filter(([k]) => k === 'Task').map(([, v]) => v)
    const unblocked = unblockedIn(trailers).filter((id) => ids.includes(id))
    const initial = parents.trim() === '' && author === INIT_COMMIT.author
    const event: TaskEvent = {
      op: value('Tasks-Op') ?? message.split(/[:\s]/)[0] ?? '',
      tasks: ids.map((id) => ({id, revision: null})),
      actor: value('Actor') ?? author,
      time: initial ? new Date(INIT_COMMIT.time * 1000).toISOString() : new Date(Date.parse(date)).toISOString(),
      commit,
      subject: message.split('\n')[0] ?? '',
    }
    if (unblocked.length > 0) UNBLOCKED.set(event, unblocked)
    events.push(event)
  }
  await fillRevisions(cwd, events)
  return events
}

/**
 * Each item's revision after the event's commit (null: not on the ref then,
 * e.g. removed). The trees are walked here, through one `git cat-file`
 * reading by id (each commit's `tasks/` tree and each shard tree decoded
 * once, then the card's directory and file). Asking git for
 * `<commit>:tasks/<xx>/<id>/task.md` instead would make it read the commit,
 * root, `tasks/` and shard trees again for every item, and an import
 * commit names every card of the list (docs/scale.md has the figures).
 */
async function fillRevisions(cwd: string, events: TaskEvent[]): Promise<void> {
  const items: Array<{e: TaskEvent; t: TaskEvent['tasks'][number]}> = []
  for (const e of events) for (const t of e.tasks) if (/^tsk-[0-9a-z]+$/.test(t.id)) items.push({e, t})
  if (items.length === 0) return
  const reader = new ObjectReader(cwd, items.length >= bulkReads() && (await batchCommandSupported(cwd)))
  /** The shards (name -> tree id) of each commit's tasks/ tree; the entries of each shard tree by id (bounded). */
  const shardsOf = new Map<string, Promise<Map<string, string>>>()
  const entriesOf = new Map<string, Promise<Map<string, TreeEntry>>>()
  const revisionOf = async (commit: string, id: string): Promise<number | null> => {
    const algorithm = commit.length === 64 ? 'sha256' : 'sha1'
    const decode = async (oid: string): Promise<TreeEntry[]> => {
      const o = await reader.read(oid)
      return o && o.type === 'tree' ? decodeTree(o.content, algorithm) : []
    }
    let shards = shardsOf.get(commit)
    if (!shards) {
      shards = (async () => {
        const tasks = (await decode(`${commit}^{tree}`)).find((x) => x.name === TASKS_DIR && x.mode === TREE_MODE)
        return new Map(tasks ? (await decode(tasks.oid)).filter((x) => x.mode === TREE_MODE).map((x) => [x.name, x.oid]) : [])
      })()
      shardsOf.set(commit, shards)
      if (shardsOf.size > KEPT_TREES) shardsOf.delete(shardsOf.keys().next().value!)
    }
    const shard = (await shards).get(shardOf(id))
    if (!shard) return null
    let entries = entriesOf.get(shard)
    if (!entries) {
      entries = decode(shard).then((list) => new Map(list.map((x) => [x.name, x])))
      entriesOf.set(shard, entries)
      if (entriesOf.size > KEPT_TREES) entriesOf.delete(entriesOf.keys().next().value!)
    }
    const dir = (await entries).get(id)
    if (!dir || dir.mode !== TREE_MODE) return null
    const file = (await decode(dir.oid)).find((x) => x.name === TASK_FILE)
    if (!file) return null
    // Up to the largest task file the store accepts (a larger one is not read: no revision).
    const blob = await reader.read(file.oid, MAX_FILE_BYTES)
    if (!blob || blob.type !== 'blob' || blob.oversized) return null
    const m = /^revision: (\d+)$/m.exec(blob.content.toString('utf8'))
    return m ? Number(m[1]) : null
  }
  try {
    // Many items in flight at once (as a cold index read), so their reads go to git together.
    await inWindow(items, async ({e, t}) => ({t, revision: await revisionOf(e.commit, t.id)}), ({t, revision}) => (t.revision = revision))
  } finally {
    reader.close()
  }
}

/** Commits' shard lists and shard trees kept decoded (first in, first out). */
const KEPT_TREES = 1024

export interface FollowOptions {
  since?: string
  follow: boolean
  /** Seconds between looks at the ref (and fetches, online). */
  intervalSeconds?: number
  emit: (e: EventLine) => void
  /** Resolves when the command should stop (SIGINT). */
  stopped: Promise<void>
}

async function resolveRev(cwd: string, rev: string): Promise<string> {
  const r = await git(['rev-parse', '--verify', '-q', `${rev}^{commit}`], {cwd})
  if (r.code !== 0) throw new UsageError(`--since expects a revision of the tasks ref (a commit id), not "${rev}"`, {since: rev}, 'bad_revision')
  return r.stdout.trim()
}

/** Unblocked events remembered for leaving out a repeat (first in, first out). */
const KEPT_UNBLOCKED = 65536

/** Whether the list emits derived events (`emit_events`, read from the list at its local tip). */
async function derivedEventsOn(session: Session): Promise<boolean> {
  try {
    return (await session.store.load()).snapshot.config.emit_events !== 'off'
  } catch {
    return true
  }
}

/** Print events, then (with follow) keep printing new ones until stopped. Returns how many were printed. */
export async function streamEvents(session: Session, options: FollowOptions): Promise<number> {
  const store = session.store
  const cwd = store.repo.cwd
  const remote = options.follow ? await session.remote() : null
  const tracking = remote ? await session.trackingRef(remote) : null
  const limits = remote ? await networkLimits(cwd, MUTATION_TIMEOUT_MS) : null
  const tips = async (fetch: boolean): Promise<string[]> => {
    if (remote && fetch) {
      try {
        await fetchList(cwd, remote, session.list, (ref) => store.readRef(ref), limits!)
        recordFetch(store.repo.commonDir, remote, session.list)
      } catch {
        // The remote is down: keep following the local ref; try again at the next interval.
      }
    }
    const out = [await store.refreshTip(), tracking ? await store.readRef(tracking) : null].filter((t): t is string => !!t)
    return [...new Set(out)]
  }
  let seen: string[] = options.since ? [await resolveRev(cwd, options.since)] : []
  // Read as of a past commit (--at): the events up to it; the live ref is not looked at.
  let current = session.at ? [session.at.commit] : await tips(false)
  if (current.length === 0 && !options.follow) await store.load() // not initialised: say so
  let count = 0
  // One transition, one event: two clones that finished the same last dependency both bumped the item to the
  // same revision, and both their commits name it; the second is left out.
  const unblockedSeen = new Set<string>()
  const emitAll = async (list: string[]) => {
    const commits = await eventsBetween(cwd, list, seen)
    // emit_events (the list's setting, read at the local tip each time): `off` prints the commits' events only.
    const derived = commits.length > 0 && (await derivedEventsOn(session))
    for (const e of withDerived(commits, session.list, derived)) {
      if (isDerivedEvent(e)) {
        const key = `${e.id}@${e.revision}`
        if (unblockedSeen.has(key)) continue
        unblockedSeen.add(key)
        if (unblockedSeen.size > KEPT_UNBLOCKED) unblockedSeen.delete(unblockedSeen.values().next().value!)
      }
      options.emit(e)
      count++
    }
    seen = list
  }
  await emitAll(current)
  if (!options.follow) return count
  const interval = Math.max(0.05, options.intervalSeconds ?? (remote ? 5 : 1)) * 1000
  let stop = false
  void options.stopped.then(() => (stop = true))
  let lastFetch = Date.now()
  while (!stop) {
    await Promise.race([new Promise((r) => setTimeout(r, interval)), options.stopped])
    if (stop) break
    const fetchNow = remote !== null && Date.now() - lastFetch >= interval
    if (fetchNow) lastFetch = Date.now()
    const next = await tips(fetchNow)
    if (next.join() !== current.join()) {
      current = next
      await emitAll(next)
    }
  }
  return count
}
