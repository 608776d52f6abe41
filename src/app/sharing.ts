/**
 * How this clone stands with the shared remote, and which lists exist: the
 * state behind `tasks remote` and `tasks lists`, the "behind / unpublished"
 * warning of reads, and finding a list that only a remote has (a fresh
 * clone) so that `tasks init` adopts it and other commands say how to.
 *
 * Everything here but the look-up of a missing list works from refs on
 * disk: the tracking ref is what the last fetch saw, nothing is fetched.
 * The look-up (`git ls-remote`) runs only on the path where the list does
 * not exist locally, never on the way of a command that works.
 */
import {EnvironmentError, TasksError} from '../core/errors'
import {listRef} from '../core/store-layout'
import {discoverInProcess, readLocalConfigValue} from '../refstore/repository'
import {
  MUTATION_TIMEOUT_MS,
  aheadBehind,
  lastFetch,
  listRefs,
  lsRemoteList,
  networkLimits,
  remoteNames,
  remoteUrl,
} from '../refstore/remote'
import {type PendingRefused, pendingRefused} from '../refstore/claim-refs'
import {readCachedIndex, updateIndex} from '../refstore/task-index'
import {readPublished} from '../refstore/published-marker'
import type {Session} from './session'

/** The local list against the tracking ref (what the last fetch saw). */
export interface TrackingState {
  remote: string
  /** `refs/tasks-remote/<remote>/<list>` */
  tracking_ref: string
  /** The remote's list as last fetched, or null (never fetched, or the remote has none). */
  remote_tip: string | null
  local_tip: string | null
  /** Local commits the remote has not got (as far as the last fetch knows); null when a side is missing. */
  ahead: number | null
  /** Commits of the remote the local list has not got; null when a side is missing. */
  behind: number | null
}

/** Read a ref in-process when the repository is plain, else through the batch reader. */
async function readRefCheaply(session: Session, ref: string): Promise<string | null> {
  const found = discoverInProcess(session.store.repo.cwd, ref)
  return found ? found.tip : session.store.readRef(ref)
}

export async function trackingState(session: Session, remote: string): Promise<TrackingState> {
  const tracking = await session.trackingRef(remote)
  const local = session.store.tip
  const theirs = await readRefCheaply(session, tracking)
  let ahead: number | null = null
  let behind: number | null = null
  if (local && theirs) {
    if (local === theirs) ahead = behind = 0
    else ({ahead, behind} = await aheadBehind(session.store.repo.cwd, local, theirs))
  }
  return {remote, tracking_ref: tracking, remote_tip: theirs, local_tip: local, ahead, behind}
}

/**
 * The remote a read compares with: tasks.remote, read from the repository's
 * own config in-process (no git process on the way of a read in a
 * repository without a remote), through git only when that file cannot say.
 */
async function readRemote(session: Session): Promise<string | null> {
  const local = readLocalConfigValue(session.store.repo.commonDir, 'tasks', 'remote')
  if (local === undefined) return null
  if (local !== null) return local || null
  return session.configuredRemote()
}

/**
 * For reads (`list`, `show`): one warning when the local list and the
 * remote's last known state differ, as git's "your branch is behind". Costs
 * nothing without a remote and one `git rev-list` when the two refs differ;
 * never fetches. Never fails the read.
 */
export async function warnTrackingState(session: Session): Promise<void> {
  let state: TrackingState
  // A past state (--at) is not the local list: how that stands against the remote is not this read's to say.
  if (session.at) return
  try {
    // A push this clone made that the local ref could not follow: catchUpPublished has said so already.
    if (readPublished(session.store.repo.commonDir, session.list)) return
    const remote = await readRemote(session)
    if (!remote) return
    state = await trackingState(session, remote)
  } catch {
    return
  }
  const {remote, ahead, behind} = state
  if (!ahead && !behind) return
  const commits = (n: number) => `${n} commit${n === 1 ? '' : 's'}`
  const data = {remote, ahead: ahead ?? 0, behind: behind ?? 0}
  if (ahead && behind) {
    session.warn({kind: 'diverged_from_remote', message: `the local list and ${remote}'s (as last fetched) have diverged: ${commits(ahead)} here not published, ${commits(behind)} there not here; run \`tasks sync\``, ...data})
  } else if (behind) {
    session.warn({kind: 'behind_remote', message: `the local list is ${commits(behind)} behind ${remote}'s (as last fetched); run \`tasks sync\` to bring it up to date`, ...data})
  } else {
    session.warn({kind: 'unpublished', message: `${commits(ahead!)} of the local list ${ahead === 1 ? 'is' : 'are'} not published to ${remote}; run \`tasks sync\` to publish`, ...data})
  }
}

// ---------------------------------------------------------------- tasks remote

export interface RemoteStatus {
  list: string
  /** tasks.remote, or null when the lists are local only. */
  remote: string | null
  /** The remote's URL (`git remote get-url`), or null. */
  url: string | null
  /** True when mutations commit locally only right now (--offline, TASKS_OFFLINE=1) although a remote is set. */
  offline: boolean
  tracking_ref: string | null
  remote_tip: string | null
  local_tip: string | null
  ahead: number | null
  behind: number | null
  /** When this clone last fetched the list from the remote (ISO-8601), or null when unknown. */
  last_fetch: string | null
  /**
   * The remote refused a pending-change ref (`refs/tasks-claims/*`) within the last hour: until `until`, this
   * clone's changes go straight to the list's ref (docs/remote.md). Null when not known to refuse them.
   */
  pending_refs_refused: PendingRefused | null
}

/** `tasks remote`: the remote the lists are shared through and where this clone stands with it (no network). */
export async function remoteStatus(session: Session): Promise<RemoteStatus> {
  const remote = await session.configuredRemote()
  const base = {list: session.list, remote, url: null, offline: false, tracking_ref: null, remote_tip: null, local_tip: session.store.tip, ahead: null, behind: null, last_fetch: null, pending_refs_refused: null}
  if (!remote) return base
  const state = await trackingState(session, remote)
  return {
    ...base,
    ...state,
    url: await remoteUrl(session.store.repo.cwd, remote),
    offline: (await session.remote()) === null,
    last_fetch: lastFetch(session.store.repo.commonDir, remote, session.list),
    pending_refs_refused: pendingRefused(session.store.repo.commonDir, remote),
  }
}

// ---------------------------------------------------------------- tasks lists

/**
 * How many tasks a list has at `commit`, from its index cache brought up to
 * date (only what changed since the cache's commit is read, through the
 * session's one cat-file reader). Null when there is no cache to start
 * from (counting would mean reading the whole list) or it cannot be read.
 */
async function taskCount(session: Session, list: string, commit: string): Promise<number | null> {
  try {
    const cached = readCachedIndex(session.store.repo.commonDir, list)
    if (!cached) return null
    // The cache may come with its delta file's changes (readCachedIndex): count them either way.
    const index = cached.commit === commit ? cached : await updateIndex(session.store.reader, session.store.repo.algorithm, list, commit, cached)
    let n = index.base.tasks.size
    for (const [id, entry] of index.changes) {
      const before = index.base.tasks.has(id)
      if (entry === null && before) n--
      else if (entry !== null && !before) n++
    }
    return n
  } catch {
    return null
  }
}

export interface ListEntry {
  name: string
  /** `refs/tasks/<name>`, or null when only the remote has the list. */
  ref: string | null
  commit: string | null
  /** Number of tasks (index cache brought up to date); null when the list was never read here (not counted). */
  tasks: number | null
  /** The tracking ref's commit (the remote's list as last fetched), or null. */
  remote_commit: string | null
}

export interface ListsResult {
  /** The list this invocation uses (--list, TASKS_LIST, main). */
  current: string
  remote: string | null
  lists: ListEntry[]
}

/** `tasks lists`: every `refs/tasks/*` here, and the lists the remote had at the last fetch that are not here. */
export async function lists(session: Session): Promise<ListsResult> {
  const repo = session.store.repo
  const remote = await session.configuredRemote()
  const trackingPrefix = remote ? (await session.trackingRef(remote)).slice(0, -session.list.length) : null
  const refs = await listRefs(repo.cwd, ['refs/tasks/', ...(trackingPrefix ? [trackingPrefix] : [])])
  const entries = new Map<string, ListEntry>()
  const entry = (name: string): ListEntry => {
    let e = entries.get(name)
    if (!e) entries.set(name, (e = {name, ref: null, commit: null, tasks: null, remote_commit: null}))
    return e
  }
  for (const {ref, oid} of refs) {
    if (ref.startsWith('refs/tasks/')) {
      const name = ref.slice('refs/tasks/'.length)
      if (name.includes('/')) continue
      const e = entry(name)
      e.ref = ref
      e.commit = oid
      e.tasks = await taskCount(session, name, oid)
    } else if (trackingPrefix && ref.startsWith(trackingPrefix)) {
      const name = ref.slice(trackingPrefix.length)
      if (!name.includes('/')) entry(name).remote_commit = oid
    }
  }
  return {current: session.list, remote, lists: [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))}
}

// ---------------------------------------------------------------- a list only the remote has

/**
 * The remotes whose `refs/tasks/<list>` exists (`git ls-remote`, all remotes
 * at once, each within the network limits). A remote that cannot be asked
 * is left out: this only ever improves a message or an init.
 */
export async function remotesWithList(session: Session): Promise<string[]> {
  const cwd = session.store.repo.cwd
  const names = await remoteNames(cwd)
  if (names.length === 0) return []
  const limits = await networkLimits(cwd, MUTATION_TIMEOUT_MS)
  const found = await Promise.all(names.map(async (name) => ((await lsRemoteList(cwd, name, listRef(session.list), limits)) ? name : null)))
  return found.filter((n): n is string => n !== null)
}

/**
 * A `not_initialised` error, told better when a remote has the list: which
 * remote, and the command that adopts it. Any other error is returned as it is.
 */
export async function explainMissingList(session: Session, error: TasksError): Promise<TasksError> {
  // --offline / TASKS_OFFLINE=1: no network, not even to improve a message.
  if (error.code !== 'not_initialised' || session.store.tip !== null || session.offline) return error
  let remotes: string[]
  try {
    remotes = await remotesWithList(session)
  } catch {
    return error
  }
  if (remotes.length === 0) return error
  const flags = session.list === 'main' ? '' : ` --list ${session.list}`
  const first = remotes[0]!
  const others = remotes.length > 1 ? ` (${remotes.map((r) => `"${r}"`).join(', ')} all have it: pick one)` : ''
  return new EnvironmentError(
    'not_initialised',
    `the list "${session.list}" is not initialised here, but remote "${first}" has it${others}: run \`tasks init --remote ${first}${flags}\``,
    {...error.data, list: session.list, remote: first, remotes},
  )
}
