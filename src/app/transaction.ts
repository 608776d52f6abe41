/**
 * The mutation loop: snapshot → op (pure) → objects and one commit → CAS.
 * When the swap loses (another writer moved the ref), take a new snapshot
 * and run the op again, so the second claimer of an item is told "already
 * claimed by X" instead of overwriting it. Locally: jittered exponential
 * backoff and a bounded number of tries, here. Online: the state machine of
 * online-write/ (a time budget while the remote keeps moving, fair jittered
 * backoff, a quick end when it stops moving, pending per-item changes).
 * Running out is a conflict (exit 4), not a hang.
 */
import {ConflictError} from '../core/errors'
import type {Change, OpContext, Plan} from '../core/plan'
import type {Snapshot} from '../core/snapshot'
import {withChanges} from '../core/apply'
import {followPublished} from './published'
import {withInbox} from './inbox-hook'
import {withUnblocked} from '../core/unblock'
import type {Session} from './session'
import {type ListStore, type Loaded, persistAfterChanges} from '../refstore/list-store'
import type {GitObject} from '../refstore/object-reader'
import {writeDeltaAfterCommit} from '../refstore/task-index'
import {shardOf} from '../core/ids'
import {TASK_FILE} from '../core/store-layout'
import {MAX_FILE_BYTES} from '../core/task'
import {driveOnline} from './online-write/drive'
import {gitRemote} from './online-write/git-remote'

const MAX_TRIES = 40

export interface Committed<R> {
  result: R
  plan: Plan<R>
  /** The new commit, or null when the op changed nothing (nothing written). */
  commit: string | null
  tries: number
  /** The list after the change (the snapshot the op ran on, with its changes applied). */
  after: Snapshot
}

export type Op<R> = (snap: Snapshot, ctx: OpContext) => Plan<R>

/**
 * Read, before each run of the op, what the op needs beyond the task index,
 * from the snapshot the op is about to run on (the checks of the tasks it
 * is about, reminder latches, registry entries): so on a lost race, and
 * online, the op sees what the commit it builds on holds, never an older
 * local copy. A Prepare that returns a snapshot gives the op that snapshot
 * (the index's, with those files added); one that returns nothing keeps
 * what it read in its own closure.
 */
export type Prepare = (store: ListStore, loaded: Loaded) => Promise<Snapshot | void>

function backoff(attempt: number): Promise<void> {
  const cap = Math.min(400, 8 * 2 ** Math.min(attempt, 6))
  return new Promise((r) => setTimeout(r, Math.random() * cap))
}

/**
 * Run `op` through the transaction: online (fetch, op, push with lease)
 * when a remote is configured and not --offline, else locally. Records on
 * the session whether the result is published (Session.wrote), so every
 * mutation's result says so without each command asking.
 */
export async function mutate<R>(session: Session, op: Op<R>, prepare?: Prepare): Promise<Committed<R>> {
  const remote = await session.remote()
  if (remote) {
    const done = await mutateOnline(session, remote, op, prepare)
    session.wrote = {published: true, remote}
    return done
  }
  const done = await mutateLocal(session, op, prepare)
  session.wrote = {published: false, remote: await session.configuredRemote()}
  return done
}

/**
 * Ask the reader, in the same write as the inbox hook's reads that follow,
 * for what writing the plan will read: the root and tasks trees, the shard
 * tree and directory of each card it changes, and the file of a card
 * whose body it keeps. Trees are kept by id and prefetched files until read,
 * so the registry, the tree edit and the old card cost one round trip to
 * git instead of three in a row. Nothing is awaited; anything not here is
 * read as before.
 */
function prefetchPlan(store: ListStore, loaded: Loaded, changes: readonly Change[]): void {
  const reader = store.reader
  reader.prefetch(loaded.index.rootTree)
  if (loaded.index.tasksTree) reader.prefetch(loaded.index.tasksTree)
  // A large batch reads its cards through writePlan's own pipelined reads; asking twice would double git's work.
  if (changes.length > PREFETCH_PLAN_CHANGES) return
  for (const c of changes) {
    const id = c.kind === 'put-task' ? c.meta.id : c.kind === 'add-comment' ? c.comment.task : c.kind === 'put-check' ? c.check.task : null
    if (id === null) continue
    const shard = loaded.index.shards[shardOf(id)]
    if (shard) reader.prefetch(shard)
    const entry = loaded.snapshot.tasks.get(id)
    const dir = entry && 'dir' in entry && typeof entry.dir === 'string' && entry.dir ? entry.dir : null
    if (!dir) continue
    reader.prefetch(dir)
    if (c.kind === 'put-task' && c.body === undefined) reader.prefetch(`${dir}:${TASK_FILE}`, MAX_FILE_BYTES)
  }
}

/** Changes of a plan up to which prefetchPlan asks for each card's trees. */
const PREFETCH_PLAN_CHANGES = 64

async function mutateLocal<R>(session: Session, op: Op<R>, prepare?: Prepare): Promise<Committed<R>> {
  const store = session.store
  // Every mutation reads through the batch reader (the actors, the trees it edits): start it now.
  store.reader.warm()
  // The objects this command writes, so that once its commit is in, the index cache's delta can be brought
  // to it from them (writeDeltaAfterCommit). Not in a long-lived process, which keeps its index in memory.
  const written = store.writer.onWrite ? null : new Map<string, GitObject>()
  if (written) store.writer.onWrite = (oid, type, content) => void written.set(oid, {oid, type, size: content.length, content})
  try {
    for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
      if (attempt > 1) await store.refreshTip()
      const loaded = await store.load()
      const snap = (prepare ? await prepare(store, loaded) : undefined) ?? loaded.snapshot
      const ctx = await session.opContext()
      // Finishing the last open dependency of an item bumps it in the same commit (core/unblock.ts).
      const planned = withUnblocked(snap, op(snap, ctx))
      if (planned.changes.length === 0) return {result: planned.result, plan: planned, commit: null, tries: attempt, after: snap}
      prefetchPlan(store, loaded, planned.changes)
      const plan = await withInbox(store, loaded, planned, ctx)
      const commit = await store.writePlan(loaded, plan, ctx.actor, ctx.now)
      const outcome = await store.compareAndSwap(commit, loaded.index.commit, plan.subject ? `${plan.op} ${plan.subject.id}` : plan.op)
      if (outcome.ok) {
        const carry = persistAfterChanges(loaded.index.base.tasks.size)
        if (written && plan.changes.length <= carry) {
          await writeDeltaAfterCommit(store.repo.commonDir, store.reader, store.repo.algorithm, loaded.index, commit, written, carry)
        }
        return {result: plan.result, plan, commit, tries: attempt, after: withChanges(snap, plan.changes, commit)}
      }
      await backoff(attempt)
    }
  } finally {
    if (written) store.writer.onWrite = null
  }
  throw new ConflictError('cas_exhausted', `the task list kept changing under this command; gave up after ${MAX_TRIES} tries. Try again.`, {
    tries: MAX_TRIES,
  })
}

/**
 * Online mode: the op runs on the remote's tip (plus any unpublished local
 * commits, merged in first), and the new commit is pushed with a lease on
 * the remote tip it was computed from. A rejected push fetches and re-runs
 * the op, so across machines exactly one claimer of an item wins. The local
 * ref moves only after the push was accepted. The loop's rules are the
 * state machine of online-write/step.ts, driven through git here.
 */
async function mutateOnline<R>(session: Session, remote: string, op: Op<R>, prepare?: Prepare): Promise<Committed<R>> {
  const finished = await driveOnline(await gitRemote(session, remote, op, prepare), remote)
  const {plan, snapshot} = finished.change
  if (finished.kind === 'unchanged') {
    for (const w of finished.warnings) session.warn(w)
    return {result: plan.result, plan, commit: null, tries: finished.tries, after: snapshot}
  }
  // Only this command's own push tells where it left the list (a fold someone else pushed says nothing of who else is at work).
  if (finished.ownPush) session.store.notePublished(remote, finished.tip)
  for (const w of finished.warnings) session.warn(w)
  // Published. Bring the local ref along; if a local command moved it meanwhile, `sync` merges it later.
  await followPublished(session, finished.tip, finished.localTip, plan.subject ? `${plan.op} ${plan.subject.id}` : plan.op)
  return {result: plan.result, plan, commit: finished.landed, tries: finished.tries, after: withChanges(snapshot, plan.changes, finished.landed)}
}
