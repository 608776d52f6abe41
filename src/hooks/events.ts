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
import {taskFilePath} from '../core/store-layout'
import {INIT_COMMIT} from '../core/store-layout'
import type {Session} from '../app/session'
import {git} from '../refstore/git-process'
import {fetchList, networkLimits, recordFetch, MUTATION_TIMEOUT_MS} from '../refstore/remote'
import {readBlobs} from '../refstore/blobs'

export interface TaskEvent {
  op: string
  tasks: Array<{id: string; revision: number | null}>
  actor: string
  /** Author time of the commit, ISO-8601 UTC. */
  time: string
  commit: string
  subject: string
}

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
    const initial = parents.trim() === '' && author === INIT_COMMIT.author
    events.push({
      op: value('Tasks-Op') ?? message.split(/[:\s]/)[0] ?? '',
      tasks: ids.map((id) => ({id, revision: null})),
      actor: value('Actor') ?? author,
      time: initial ? new Date(INIT_COMMIT.time * 1000).toISOString() : new Date(Date.parse(date)).toISOString(),
      commit,
      subject: message.split('\n')[0] ?? '',
    })
  }
  await fillRevisions(cwd, events)
  return events
}

/** Each item's revision after the event's commit (null: not on the ref then, e.g. removed), one cat-file for all. */
async function fillRevisions(cwd: string, events: TaskEvent[]): Promise<void> {
  const names: string[] = []
  for (const e of events) for (const t of e.tasks) if (/^tsk-[0-9a-z]+$/.test(t.id)) names.push(`${e.commit}:${taskFilePath(t.id)}`)
  if (names.length === 0) return
  const blobs = await readBlobs(cwd, names, 64 * 1024)
  for (const e of events) {
    for (const t of e.tasks) {
      const text = blobs.get(`${e.commit}:${taskFilePath(t.id)}`)?.toString('utf8')
      const m = text ? /^revision: (\d+)$/m.exec(text) : null
      t.revision = m ? Number(m[1]) : null
    }
  }
}

export interface FollowOptions {
  since?: string
  follow: boolean
  /** Seconds between looks at the ref (and fetches, online). */
  intervalSeconds?: number
  emit: (e: TaskEvent) => void
  /** Resolves when the command should stop (SIGINT). */
  stopped: Promise<void>
}

async function resolveRev(cwd: string, rev: string): Promise<string> {
  const r = await git(['rev-parse', '--verify', '-q', `${rev}^{commit}`], {cwd})
  if (r.code !== 0) throw new UsageError(`--since expects a revision of the tasks ref (a commit id), not "${rev}"`, {since: rev}, 'bad_revision')
  return r.stdout.trim()
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
  let current = await tips(false)
  if (current.length === 0 && !options.follow) await store.load() // not initialised: say so
  let count = 0
  const emitAll = async (list: string[]) => {
    for (const e of await eventsBetween(cwd, list, seen)) {
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
