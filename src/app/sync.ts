/**
 * Sync with the shared remote: fetch, relate the local and remote tips,
 * fast-forward or merge (the pure engine in src/merge, then the reconciler),
 * commit a real two-parent merge, push with an exact-old-value lease, and
 * retry from the fetch when someone else pushed first. The local ref moves
 * only after the remote accepted the result, and only by compare-and-swap.
 */
import {ConflictError, EnvironmentError} from '../core/errors'
import {type FilesMergeResult, type MergeNote, type ReconcileResult, type Repair, mergeFiles, reconcile} from '../merge/index'
import {overlaySnapshot} from '../core/overlay'
import {withChanges} from '../core/apply'
import type {Change} from '../core/plan'
import {UNBLOCKED_TRAILER, newlyUnblocked, unblockBump, unblockCandidates} from '../core/unblock'
import type {Snapshot, TaskEntry} from '../core/snapshot'
import {TASKS_DIR} from '../core/store-layout'
import type {ListStore, Loaded} from '../refstore/list-store'
import {IndexedTask, entriesAfterWrite, readCardIn} from '../refstore/task-index'
import {SYNC_TIMEOUT_MS, type Prepack, fetchList, networkLimits, packUnpublished, pushList, recordFetch, relate} from '../refstore/remote'
import type {Session} from './session'
import {followPublished} from './published'
import {refusalCounter} from './push-declined'

export interface MergeOutcome {
  commit: string
  notes: MergeNote[]
  repairs: Repair[]
}

const MAX_SYNC_TRIES = 20

function backoff(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.random() * Math.min(500, 20 * 2 ** Math.min(attempt, 5))))
}

/**
 * Merge `theirs` (published) into `ours` and write the merge commit (objects
 * only; no ref moves). `base` null: unrelated histories, everything added.
 */
export async function mergeTips(session: Session, ours: string, theirs: string, base: string | null, remoteName: string): Promise<MergeOutcome> {
  const store = session.store
  const actor = await session.actor()
  const now = session.now()
  const m = await mergedTree(store, ours, theirs, base, now, actor)
  const {merged, rec} = m
  const summary = merged.notes.length + rec.repairs.length === 0 ? 'clean' : `${merged.notes.length} merge note(s), ${rec.repairs.length} repair(s)`
  const message = mergeMessage(`sync: merge ${remoteName}/tasks/${session.list} (${summary})`, ['Tasks-Op: sync', `Actor: ${actor}`], m)
  const commit = await store.writeFinalCommit(m.tree, [ours, theirs], actor, now, message)
  return {commit, notes: merged.notes, repairs: rec.repairs}
}

/**
 * The message of a merge commit (sync's, and a plan's): `subject`, a line
 * per note, repair and `kept` note (a plan's lifecycle move not applied),
 * then the trailers: `head` (Tasks-Op, Actor, …), a Tasks-Merge per note,
 * a Tasks-Repair per repair, a Tasks-Merge per `kept` note, and a Task and
 * an Unblocked trailer per item the merge unblocked.
 */
export function mergeMessage(
  subject: string,
  head: readonly string[],
  m: {merged: {notes: readonly MergeNote[]}; rec: {repairs: readonly Repair[]}; unblocked: readonly string[]},
  kept: ReadonlyArray<{kind: string; task: string; message: string}> = [],
): string {
  const trailers = [...head]
  for (const n of m.merged.notes) trailers.push(`Tasks-Merge: ${n.kind} ${'task' in n && n.task ? n.task : 'path' in n ? n.path : ''}`.trimEnd())
  for (const r of m.rec.repairs) trailers.push(`Tasks-Repair: ${r.kind} ${r.task}`)
  for (const k of kept) trailers.push(`Tasks-Merge: ${k.kind} ${k.task}`)
  // \`tasks events\` reads the unblocked items of the merge from these (a Task trailer each, as an op's commit has).
  for (const id of m.unblocked) trailers.push(`Task: ${id}`, `${UNBLOCKED_TRAILER}: ${id}`)
  const lines = [...m.merged.notes.map((n) => `- ${n.message}`), ...m.rec.repairs.map((r) => `- repaired: ${r.message}`), ...kept.map((k) => `- ${k.message}`)]
  return `${subject}\n\n${lines.length ? `${lines.join('\n')}\n\n` : ''}${trailers.join('\n')}\n`
}

/**
 * The tree a sync merge of `theirs` (published) into `ours` produces at
 * time `now`: the pure file merge, then the reconciler. Objects are written,
 * no ref moves. `tasks verify` replays it to recognise a merge sync made.
 */
export async function mergedTree(store: ListStore, ours: string, theirs: string, base: string | null, now: string, actor: string): Promise<{tree: string; merged: FilesMergeResult; rec: ReconcileResult; unblocked: string[]}> {
  const {files, theirsPaths} = await store.threeWay(base, ours, theirs)
  const oursLoaded = await store.loadCommit(ours, false)
  const theirsLoaded = await store.loadCommit(theirs, false)
  const taken = (id: string) => oursLoaded.snapshot.tasks.has(id) || theirsLoaded.snapshot.tasks.has(id)
  const merged = mergeFiles(files, {now, published: 'theirs', taken})
  const {cards, rest} = cardsAsOurs(files, merged.files, theirsPaths, oursLoaded)
  const tree1 = await store.writeFiles(theirsLoaded.index.rootTree, rest, cards.map((c) => ({path: c.dir, oid: c.entry.dir})))
  const mergedSnapshot = await mergedSnapshotOf(store, theirsLoaded, tree1, rest, cards, actor, now, ours, theirs)
  // Only around what differs between the merged list and a side: see "The reconciler" in docs/merge.md.
  const changed = changedIds(oursLoaded, theirsLoaded, mergedSnapshot)
  // The reconciler's check rule: the checks of the cards the merge made done (done here, not on a side), on all three.
  const madeDone = [...changed].filter((id) => mergedSnapshot.snapshot.tasks.get(id)?.status === 'done' && [oursLoaded, theirsLoaded].some((l) => l.snapshot.tasks.get(id)?.status !== 'done')).sort()
  const withChecks = async (snap: Snapshot, at: string): Promise<Snapshot> => (madeDone.length === 0 ? snap : {...snap, checks: (await store.readChecks(at, madeDone)).checks})
  const rec = reconcile(await withChecks(mergedSnapshot.snapshot, tree1), {now, before: [await withChecks(oursLoaded.snapshot, ours), await withChecks(theirsLoaded.snapshot, theirs)], changed})
  // Items neither side had unblocked that the merged list unblocks (each side finished one of their last
  // dependencies): the merge makes the transition, once (core/unblock.ts).
  const unblocked = mergeUnblocked(mergedSnapshot.snapshot, rec, [oursLoaded.snapshot, theirsLoaded.snapshot], changed)
  const all = [...rec.changes, ...unblocked.changes]
  const tree = all.length > 0 ? await store.applyChanges(tree1, all) : tree1
  return {tree, merged, rec, unblocked: unblocked.ids}
}

/** The bumps of the items the merge unblocks: on the list as the reconciler left it, judged against both sides. */
function mergeUnblocked(merged: Snapshot, rec: ReconcileResult, sides: readonly Snapshot[], changed: Iterable<string>): {ids: string[]; changes: Change[]} {
  const after = rec.changes.length > 0 ? withChanges(merged, rec.changes) : merged
  // Only what the merge finished (done here, not on every side) can unblock anything here.
  const finished = [...changed].filter((id) => after.tasks.get(id)?.status === 'done' && sides.some((s) => s.tasks.get(id)?.status !== 'done'))
  if (finished.length === 0) return {ids: [], changes: []}
  const ids = newlyUnblocked(sides, after, unblockCandidates(after, finished))
  return {ids, changes: ids.map((id) => ({kind: 'put-task' as const, meta: unblockBump(after.tasks.get(id)!.meta!)}))}
}

/** A card directory the merge takes whole from ours: its path and ours' entry for it. */
interface OursCard {
  dir: string
  entry: IndexedTask
}

/** `tasks/<shard>/<id>` of a path inside a card directory, else null. */
function cardDirOf(path: string): string | null {
  const parts = path.split('/')
  return parts.length >= 4 && parts[0] === TASKS_DIR ? `${TASKS_DIR}/${parts[1]}/${parts[2]}` : null
}

/**
 * Card directories that only ours changed and that the merge took as ours
 * has them (every file the merge decided is ours' text): the merged
 * directory is ours' directory, tree id and all, so it is set whole instead
 * of file by file (no blob, no tree to write or read back). The usual case
 * when the two sides worked on different cards. `rest`: the other files.
 */
function cardsAsOurs(
  inputs: ReadonlyArray<{path: string; ours: string | null}>,
  output: ReadonlyArray<{path: string; content: string | null}>,
  theirsPaths: readonly string[],
  ours: Loaded,
): {cards: OursCard[]; rest: Array<{path: string; content: string | null}>} {
  const touchedByTheirs = new Set(theirsPaths.map(cardDirOf))
  const oursText = new Map(inputs.map((f) => [f.path, f.ours]))
  const whole = new Map<string, IndexedTask | null>()
  for (const f of output) {
    const dir = cardDirOf(f.path)
    if (dir === null || whole.get(dir) === null) continue
    const entry = ours.snapshot.tasks.get(dir.slice(dir.lastIndexOf('/') + 1))
    const fromOurs = oursText.has(f.path) && oursText.get(f.path) === f.content
    const usable = fromOurs && !touchedByTheirs.has(dir) && entry instanceof IndexedTask && entry.status !== undefined && entry.path.startsWith(`${dir}/`)
    whole.set(dir, usable ? entry : null)
  }
  const cards: OursCard[] = []
  for (const [dir, entry] of whole) if (entry) cards.push({dir, entry})
  return {cards, rest: output.filter((f) => {
    const dir = cardDirOf(f.path)
    return dir === null || !whole.get(dir)
  })}
}

interface MergedSnapshot {
  snapshot: Snapshot
  /** The entries that differ from theirs' (null: gone), when the snapshot was folded from theirs'; null when it was read from git. */
  folded: ReadonlyMap<string, TaskEntry | null> | null
}

/**
 * The merged list as a snapshot: theirs' with the entries of the task files
 * the merge wrote (the merge is written over theirs' tree), without reading
 * the new tree back. Paths of an unusual shape: a provisional commit of the
 * merged tree read the ordinary way. For the reconciler, which reads only
 * the tasks: the folded snapshot keeps theirs' config and names no commit.
 */
async function mergedSnapshotOf(store: ListStore, theirs: Loaded, tree1: string, files: ReadonlyArray<{path: string; content: string | null}>, cards: readonly OursCard[], actor: string, now: string, oursTip: string, theirsTip: string): Promise<MergedSnapshot> {
  const folded = await entriesAfterWrite(files, async (shard, id) => readCardIn(store.reader, store.repo.algorithm, await store.treeAt(tree1, `${TASKS_DIR}/${shard}`), shard, id))
  if (folded) {
    for (const c of cards) folded.set(c.entry.id, c.entry)
    return {snapshot: overlaySnapshot(theirs.snapshot, folded, null), folded}
  }
  const provisional = store.writeCommit(tree1, [oursTip, theirsTip], actor, now, 'sync (provisional)\n')
  return {snapshot: (await store.loadCommit(provisional, false)).snapshot, folded: null}
}

/**
 * Ids whose entry may differ between the merged list and ours or theirs
 * (the reconciler keeps those that do). The indexes of both sides read
 * through the same base (the cache file) and list what differs from it, so
 * an id in none of their changes is the same in all three. Otherwise, every id.
 */
function changedIds(ours: Loaded, theirs: Loaded, merged: MergedSnapshot): Iterable<string> {
  if (merged.folded && ours.index.base === theirs.index.base) return new Set([...ours.index.changes.keys(), ...theirs.index.changes.keys(), ...merged.folded.keys()])
  return new Set([...ours.snapshot.tasks.keys(), ...theirs.snapshot.tasks.keys(), ...merged.snapshot.tasks.keys()])
}

export type SyncAction = 'up_to_date' | 'fast_forward' | 'pushed' | 'merged' | 'published'

export interface SyncResult {
  list: string
  remote: string
  action: SyncAction
  local_before: string | null
  remote_before: string | null
  commit: string
  notes: MergeNote[]
  repairs: Repair[]
  tries: number
}

/** `tasks sync`: make the local list and the remote's equal, merging if they diverged. */
export async function sync(session: Session): Promise<SyncResult> {
  const remote = await session.configuredRemote()
  if (!remote) {
    throw new EnvironmentError('no_remote', 'no remote is configured for tasks: run `tasks remote set NAME` (e.g. origin), or `tasks init --remote NAME`', {})
  }
  const store = session.store
  const cwd = store.repo.cwd
  const refused = refusalCounter(remote)
  const limits = await networkLimits(cwd, SYNC_TIMEOUT_MS)
  // The local commits the remote did not have at the last fetch are packed while this fetches and merges, for
  // the push to reuse (packUnpublished); stopped if this sync ends without pushing them.
  let prepack: Prepack | null = null
  try {
    for (let attempt = 1; attempt <= MAX_SYNC_TRIES; attempt++) {
      const tracking = await session.trackingRef(remote)
      if (attempt === 1) {
        const [tip, published] = await Promise.all([store.refreshTip(), store.readRef(tracking)])
        if (tip && published && tip !== published) prepack = packUnpublished(cwd, store.repo.objectsDir, tip, published)
      }
      const remoteTip = await fetchList(cwd, remote, session.list, (ref) => store.readRef(ref), limits)
      recordFetch(store.repo.commonDir, remote, session.list)
      const localTip = await store.refreshTip()
      const base = {list: session.list, remote, local_before: localTip, remote_before: remoteTip, notes: [] as MergeNote[], repairs: [] as Repair[], tries: attempt}
      if (!localTip && !remoteTip) {
        throw new EnvironmentError('not_initialised', `neither this repository nor ${remote} has the list "${session.list}"; run \`tasks init --remote ${remote}\``)
      }
      if (!remoteTip) {
        await prepack?.done
        const pushed = await pushList(cwd, remote, session.list, localTip!, null, limits)
        if (pushed.ok) return {...base, action: 'published', commit: localTip!}
        refused(pushed, attempt)
      } else if (!localTip) {
        if ((await store.compareAndSwap(remoteTip, null, 'sync: fast-forward')).ok) return {...base, action: 'fast_forward', commit: remoteTip}
      } else {
        const rel = await relate(cwd, localTip, remoteTip)
        if (rel.kind === 'same') return {...base, action: 'up_to_date', commit: localTip}
        if (rel.kind === 'behind') {
          if ((await store.compareAndSwap(remoteTip, localTip, 'sync: fast-forward')).ok) return {...base, action: 'fast_forward', commit: remoteTip}
        } else if (rel.kind === 'ahead') {
          await prepack?.done
          const pushed = await pushList(cwd, remote, session.list, localTip, remoteTip, limits)
          if (pushed.ok) return {...base, action: 'pushed', commit: localTip}
          refused(pushed, attempt)
        } else {
          const m = await mergeTips(session, localTip, remoteTip, rel.base, remote)
          await prepack?.done
          const pushed = await pushList(cwd, remote, session.list, m.commit, remoteTip, limits)
          if (pushed.ok) {
            // Published; now move the local ref. If a local command moved it meanwhile, the next sync merges that too.
            await followPublished(session, m.commit, localTip, 'sync: merge')
            return {...base, action: 'merged', commit: m.commit, notes: m.notes, repairs: m.repairs}
          }
          refused(pushed, attempt)
        }
      }
      await backoff(attempt)
    }
  } finally {
    prepack?.cancel()
  }
  throw new ConflictError('sync_exhausted', `the remote kept changing during sync; gave up after ${MAX_SYNC_TRIES} tries. Try again.`, {tries: MAX_SYNC_TRIES})
}
