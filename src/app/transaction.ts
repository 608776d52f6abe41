/**
 * The mutation loop: snapshot → op (pure) → objects and one commit → CAS.
 * When the swap loses (another writer moved the ref), take a new snapshot
 * and run the op again, so the second claimer of an item is told "already
 * claimed by X" instead of overwriting it. Locally: jittered exponential
 * backoff and a bounded number of tries. Online: a time budget while the
 * remote keeps moving, fair jittered backoff, and a quick end when it stops
 * moving. Running out is a conflict (exit 4), not a hang.
 */
import {ConflictError} from '../core/errors'
import type {Change, OpContext, Plan} from '../core/plan'
import type {Snapshot} from '../core/snapshot'
import {withChanges} from '../core/apply'
import {MUTATION_TIMEOUT_MS, fetchList, fetchedBusy, networkLimits, pushList, recordFetch, relate} from '../refstore/remote'
import {findFolded, foldPending, forgetPending, peekPending, pendingChanges, pushPending, recentLine, withdrawPending} from '../refstore/claim-refs'
import {followPublished} from './published'
import {withInbox} from './inbox-hook'
import {ACTORS_DIR, INBOX_DIR} from '../core/inbox'
import {mergeTips, refusalCounter} from './sync'
import type {Session} from './session'
import {type ListStore, type Loaded, persistAfterChanges} from '../refstore/list-store'
import type {GitObject} from '../refstore/object-reader'
import {writeDeltaAfterCommit} from '../refstore/task-index'
import {shardOf} from '../core/ids'
import {TASK_FILE} from '../core/store-layout'
import {MAX_FILE_BYTES} from '../core/task'

const MAX_TRIES = 40
/**
 * Online, a lost push is not counted against a fixed number of tries: with
 * 64 agents on one remote a fair agent may lose races for minutes while the
 * list makes progress (measured: 4 of 640 commands still losing after 10
 * minutes in a 20-minute drain, docs/scale.md). It keeps trying while the
 * remote keeps moving, for up to this long in all...
 */
const ONLINE_BUDGET_MS = 30 * 60_000
/** ...and gives up at once when this many pushes in a row were rejected while the remote's tip stayed where it was (nobody is winning: a stuck remote). */
const MAX_STALLED_TRIES = 12
/**
 * A one-item change is pushed to the list directly (carrying whatever is
 * pending) until it has lost this many races; then it waits as a pending ref.
 * With few agents the second try usually wins, and a pending ref costs two
 * pushes; with many, waiting lets one push carry everyone's change.
 */
const PENDING_AFTER_LOSSES = 2
/**
 * ...or at once when the list is busy: at least this many changes of others
 * pending, or changes of BUSY_LANDED other actors on the list in the last
 * RECENT_MS, or a race lost while others wait. A direct push would most
 * likely lose (to the leader's fold, or to another direct push), and a lost
 * try (a fetch, the op, a push) is pure waste. That holds for the
 * leader-to-be (no older pending id) too: its direct push carrying every
 * pending change raced the live leader's fold and lost 92 times in 96 (64
 * agents), so it waits in line like the rest, and folds at its first look
 * if it still leads.
 */
const PENDING_AT_ONCE = 2
const BUSY_LANDED = 3
/**
 * How far back the list's changes count as news of who is at work. Anyone's
 * count, not only those since this clone last published: at 64 agents a
 * clone's last publish is often more than a minute old, and when that was
 * the measure, 189 of 197 direct pushes lost (right after a big fold, with
 * nothing pending, a change looked uncontended).
 */
const RECENT_MS = 60_000
/**
 * A pending change whose list has not moved for this long (nobody folding:
 * a leader may have died) is folded by its own command even when it is not
 * the leader. Long, because a fold by a waiter that runs out of patience
 * while a live leader folds is a lost race (at 32 agents and load 60, with
 * 4 s: 0.47 per command), and a dead leader's change is folded anyway by
 * the next leader-to-be or list writer that comes along.
 */
const FOLD_PATIENCE_MS = 8000
/**
 * A change of an item the actor holds goes pending on the list as this
 * clone last saw it, without a fetch first, when that look was at most this
 * long ago and found at least PENDING_AT_ONCE changes pending (the list is
 * busy: the change would wait as a pending ref anyway). The fold checks the
 * item's directory against what the change was computed on, so a stale base
 * is safe for the item. In a drain it is the `done` after a `next` whose last
 * fetch is moments old (16 agents: 420 fetches for 160 changes, against 462).
 */
const STALE_BASE_MS = 5000
/**
 * When the clone's last fetch of the list, at most this long ago,
 * found a change pending, a new change fetches the list alone and looks at
 * the pending refs (`git ls-remote`) alongside, instead of fetching the
 * pending changes' objects too: on a busy list it will most likely wait as
 * a pending change itself, and only a fold needs the others' objects (a
 * fetch with them cost twice the list's alone, docs/scale.md). A fold that
 * turns out due fetches them and runs the op again.
 */
const LOOK_ONLY_WITHIN_MS = 60_000
/** ...or three times the longest the list stood still while it waited (a busy machine folds slower), up to this. */
const MAX_FOLD_PATIENCE_MS = 30_000

/**
 * How long a waiting change that is not the leader sleeps between looks:
 * longer as more changes are pending, since the leader's next fold carries
 * them all and a fold takes longer the busier the remote is, and about as
 * long as the list last took to move (a busy machine folds slower; at half
 * of it a waiter looked about twice per move, and one of the two could only
 * see nothing new);
 * each look costs a `git ls-remote` (a process, and on a local remote an
 * upload-pack; docs/scale.md counts them).
 */
function waitingLook(pendingCount: number, gapMs = 0): Promise<void> {
  const window = Math.min(MAX_LOOK_MS, Math.max(150 + 50 * pendingCount, gapMs * 0.9))
  return new Promise((r) => setTimeout(r, window * (0.5 + Math.random())))
}

/**
 * The longest a waiter sleeps between looks. Looks were ~15% of a 64-agent
 * drain's CPU (a process forked from node and a `git ls-remote`, 7.4 for
 * every change) at 2 s while the list moved every ~9 s; a look every 3 s
 * still sees each move about three times.
 */
const MAX_LOOK_MS = 3000

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
 * Wait before another online try: uniformly jittered (agents that lost
 * together do not retry together) in a window that doubles from 50 ms and
 * stops at one second, so past the ramp every contender draws from the same
 * window (uncapped exponential backoff starves exactly the agents that
 * waited longest). On top of that the window narrows with the time already
 * spent losing, down to a fifth after two minutes: the longest-waiting
 * agents try most often, which shortens the tail of who waits how long.
 */
function onlineBackoff(lost: number, waitedMs: number): Promise<void> {
  const window = Math.min(1000, 50 * 2 ** Math.min(lost - 1, 5)) * Math.max(0.2, 1 - waitedMs / 150_000)
  return new Promise((r) => setTimeout(r, Math.random() * window))
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
      const planned = op(snap, ctx)
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
 * ref moves only after the push was accepted.
 */
async function mutateOnline<R>(session: Session, remote: string, op: Op<R>, prepare?: Prepare): Promise<Committed<R>> {
  const store = session.store
  const cwd = store.repo.cwd
  const limits = await session.networkLimits(MUTATION_TIMEOUT_MS)
  const setRef = (ref: string, oid: string) => store.setRef(ref, oid)
  let lastRejection = ''
  const refused = refusalCounter(remote)
  const started = Date.now()
  let stalled = 0
  let lastSeen: string | undefined
  /** Off once the remote refused a pending ref or an atomic push: then every try goes to the list's ref, as before. */
  let perItem = true
  /** This command's change while it waits on the remote as a pending ref (claim-refs.ts). */
  let mine: {id: string; commit: string; base: string; plan: Plan<R>; snapshot: Snapshot; at: number} | null = null
  let collisions = 0
  /** While waiting: the list's tip at the last look, and when it was last seen to move. */
  let lookedTip: string | null | undefined
  let movedAt = 0
  let foldNow = false
  /** The longest the list was seen standing still while this change waited: how long a live leader's fold may take now. */
  let longestGap = 0
  let lastGap = 0
  /** Races this command's pushes lost; after PENDING_AFTER_LOSSES its one-item change goes to a pending ref. */
  let lost = 0
  /**
   * A long-lived server (`tasks mcp`) that left the remote's list at a tip
   * nobody else has moved since may skip the fetch on its first try and run
   * the op on that tip (ListStore.assumedRemoteTip): the push's lease on it
   * is the compare-and-swap. A rejected push, or an op that fails or changes
   * nothing there (an answer no lease checked), fetches and runs it again;
   * that try does not count.
   */
  let mayAssume = true
  /** The next try folds another's pending change of its item at once, instead of waiting for it to settle (a silent leader). */
  let settleNow = false
  /** The next try fetches the pending changes' objects with the list, whatever the fetch note says (a fold is due). */
  let wantObjects = false
  /** The first try may run on the last fetch's tip (STALE_BASE_MS): known before the loop, judged once. */
  let mayStale = perItem && fetchedBusy(store.repo.commonDir, remote, session.list, STALE_BASE_MS, PENDING_AT_ONCE)
  /** A fetch of the list found it at `tip` with `pendingCount` changes pending: the clone's fetch note, and the store's. */
  const noteFetch = (tip: string | null, pendingCount: number) => {
    recordFetch(store.repo.commonDir, remote, session.list, new Date(), pendingCount)
    store.noteFetched(remote, tip, pendingCount)
  }
  for (let attempt = 1; ; attempt++) {
    // What merging unpublished local work decided, told once the result is published (not once per try).
    let mergeWarnings: Array<{kind: string; message: string}> = []
    const skipLook = foldNow
    foldNow = false
    /** The remote's pending changes at a look that found this command's own gone (folded or dropped). */
    let gone: Map<string, string> | null = null
    if (mine && !skipLook && Date.now() - started <= ONLINE_BUDGET_MS) {
      // Waiting for a fold: look first (no objects). The leader (the smallest pending id) folds; the others
      // fold only once the list has not moved for FOLD_PATIENCE_MS (a leader may have died), else they wait again.
      const peek = await peekPending(cwd, remote, session.list, limits)
      if (peek) {
        const now = Date.now()
        if (peek.tip !== lookedTip) {
          lastGap = now - Math.max(movedAt, mine.at)
          longestGap = Math.max(longestGap, lastGap)
          lookedTip = peek.tip
          movedAt = now
        }
        // Waiters take over from a silent leader one at a time: the one next in line after one patience, the one after
        // it after two, and so on. When all of them did at once, all but one fold lost its race (at 64 agents, 331 of 333).
        const ahead = [...peek.pending.keys()].filter((id) => id < mine!.id).length
        const led = ahead > 0
        const patience = Math.max(FOLD_PATIENCE_MS, Math.min(3 * longestGap, MAX_FOLD_PATIENCE_MS)) * Math.max(1, ahead)
        const idle = now - Math.max(movedAt, mine.at) >= patience
        if (peek.pending.get(mine.id) !== mine.commit) gone = peek.pending
        else if (!idle && led) {
          await waitingLook(peek.pending.size, lastGap)
          continue
        }
      }
    }
    if (mine && gone) {
      // Someone folded this change, or dropped it. Finding out needs the list only: the objects of the changes still
      // pending are for whoever folds them next, and a fetch of them costs as much again as the list's (docs/scale.md).
      const tip = await fetchList(cwd, remote, session.list, (ref) => store.readRef(ref), limits)
      noteFetch(tip, gone.size)
      await forgetPending(cwd, remote, session.list, store.repo.commonDir, gone)
      const landed = tip ? await findFolded(cwd, store.reader, tip, mine.base, mine.id, mine.commit) : null
      if (landed && tip) return published(session, mine, landed, tip, await store.refreshTip(), attempt)
      mine = null // dropped: its item changed on the list meanwhile; run the op again on a fresh fetch
      continue
    }
    const tracking = await session.trackingRef(remote)
    const assumed: string | null = mayAssume && attempt === 1 && perItem && !mine ? await store.assumedRemoteTip(remote, tracking) : null
    mayAssume = false
    /** This try runs on the tracking ref as the last fetch left it (STALE_BASE_MS), and may only go pending. */
    const stale: boolean = !assumed && mayStale && attempt === 1 && !mine
    mayStale = false
    // On a busy list a new change fetches the list alone and learns what is pending from a look made alongside
    // (LOOK_ONLY_WITHIN_MS): the pending changes' objects are for whoever folds them, and most changes only wait.
    const lookOnly: boolean = perItem && !assumed && !stale && !mine && !wantObjects && fetchedBusy(store.repo.commonDir, remote, session.list, LOOK_ONLY_WITHIN_MS, 1)
    wantObjects = false
    let remoteTip: string | null
    let pending: Map<string, string>
    /** Whether `pending`'s commits are in this clone (a fetch brought them): a fold needs them. */
    let pendingHere = true
    const looked: [string | null, Awaited<ReturnType<typeof peekPending>>] | null = lookOnly
      ? await Promise.all([fetchList(cwd, remote, session.list, (ref) => store.readRef(ref), limits), peekPending(cwd, remote, session.list, limits)])
      : null
    if (looked && looked[1]) {
      remoteTip = looked[0]
      pending = looked[1].pending
      pendingHere = false
    } else {
      remoteTip = assumed ?? (stale ? await store.readRef(tracking) : await fetchList(cwd, remote, session.list, (ref) => store.readRef(ref), limits, perItem))
      pending = perItem && !assumed ? await pendingChanges(cwd, remote, session.list, store.repo.commonDir) : new Map<string, string>()
    }
    if (!assumed && !stale) noteFetch(remoteTip, pending.size)
    /** A fold is due but the pending changes' objects are not here: fetch them with the list and run the op again. */
    const fetchObjects = () => {
      wantObjects = true
      attempt = 0
    }
    /** The assumed tip was not the remote's: fetch and run the op again, as if this try had not been made. */
    const unassume = () => {
      store.noteRemoteMoved(remote)
      attempt = 0
    }
    // A rejection after which neither the list nor its pending changes had moved means nobody won that round.
    const seen = `${remoteTip} ${[...pending].sort().join(',')}`
    if (attempt > 1) stalled = seen === lastSeen ? stalled + 1 : 0
    lastSeen = seen
    if (stalled >= MAX_STALLED_TRIES || Date.now() - started > ONLINE_BUDGET_MS) {
      if (mine && !(await withdrawPending(cwd, remote, session.list, mine.id, mine.commit, limits))) {
        // Too late to take it back: someone folded (or dropped) it. Say what happened to it.
        const tip = await fetchList(cwd, remote, session.list, (ref) => store.readRef(ref), limits)
        const landed = tip ? await findFolded(cwd, store.reader, tip, mine.base, mine.id, mine.commit) : null
        if (landed && tip) return published(session, mine, landed, tip, await store.refreshTip(), attempt)
      }
      const why = stalled >= MAX_STALLED_TRIES ? `${stalled} pushes in a row were rejected while the remote did not change` : `it kept losing races for ${Math.round((Date.now() - started) / 1000)} s`
      throw new ConflictError('cas_exhausted', `the remote kept rejecting the push: ${why} (last: ${lastRejection || 'rejected'}); gave up after ${attempt - 1} tries. Try again.`, {
        tries: attempt - 1,
        remote,
        last_rejection: lastRejection,
      })
    }
    const localTip = await store.refreshTip()
    if (stale && (!remoteTip || localTip !== remoteTip)) {
      attempt = 0 // the local list is not the last fetch's tip: fetch as usual
      continue
    }

    if (mine && remoteTip) {
      if (pending.get(mine.id) === mine.commit) {
        // Still pending: fold it (with everyone else's) into the list.
        const {outcome, fold} = await foldPending(cwd, store.reader, store.writer, remote, session.list, remoteTip, pending, limits, undefined, setRef)
        if (outcome.ok) {
          const landed = fold.folded.get(mine.id)
          if (landed) return published(session, mine, landed, fold.tip, localTip, attempt)
          mine = null // dropped: its item changed on the list meanwhile; run the op again on the new tip
          continue
        } else {
          lastRejection = outcome.detail
          if (outcome.reason === 'declined') {
            perItem = false
            if (!(await withdrawPending(cwd, remote, session.list, mine.id, mine.commit, limits))) continue // gone already: folded or dropped, found out next round
            mine = null
          } else {
            await onlineBackoff(attempt, Date.now() - started)
            continue
          }
        }
      } else {
        // Someone else folded it, or dropped it because its item moved on.
        const landed = await findFolded(cwd, store.reader, remoteTip, mine.base, mine.id, mine.commit)
        if (landed) return published(session, mine, landed, remoteTip, localTip, attempt)
        mine = null
      }
    }

    let base: string
    /** Other actors with a change on the list in the last RECENT_MS (a measure of contention); 0 when unknown. */
    let othersLanded = 0
    if (!remoteTip) {
      if (!localTip) await store.load() // raises not_initialised
      base = localTip!
    } else if (!localTip || localTip === remoteTip) {
      base = remoteTip
    } else {
      // Usually this clone's last publish, which others have built on since: no `git merge-base` for that. The same walk
      // counts who else landed changes lately (anyone's, not only since this clone last published).
      const line = await recentLine(store.reader, remoteTip, localTip, await session.actor(), Math.floor((Date.now() - RECENT_MS) / 1000))
      const distance = line.distance
      othersLanded = line.others
      const rel = distance !== null ? {kind: 'behind' as const} : await relate(cwd, localTip, remoteTip)
      if (rel.kind === 'behind' || rel.kind === 'same') base = remoteTip
      else if (rel.kind === 'ahead') base = localTip
      else {
        // Unpublished local commits diverged from the remote: merge them first, and say what the merge decided.
        const merged = await mergeTips(session, localTip, remoteTip, rel.base, remote)
        base = merged.commit
        mergeWarnings = [
          ...merged.notes.map((n) => ({...n, message: `merged unpublished local changes: ${n.message}`})),
          ...merged.repairs.map((r) => ({...r, kind: `repaired_${r.kind}`, message: `repaired after merging: ${r.message}`})),
        ]
      }
    }
    // Contended (a lost race, or others' changes pending): go per item, and spread `next` over the ready items.
    // Other actors landing changes lately count too: about that many agents are picking now.
    const contended = perItem && remoteTip !== null && base === remoteTip && (attempt > 1 || pending.size > 0 || othersLanded >= BUSY_LANDED)
    const loaded = await store.loadCommit(base)
    let snap: Snapshot
    let planned: Plan<R>
    const ctx = await session.opContext()
    if (contended) {
      ctx.busy = new Set(pending.keys())
      ctx.spread = Math.min(64, Math.max(pending.size + 1, othersLanded + 1, 2 ** Math.min(collisions + attempt, 6)))
    }
    try {
      snap = (prepare ? await prepare(store, loaded) : undefined) ?? loaded.snapshot
      planned = op(snap, ctx)
    } catch (error) {
      if (!assumed && !stale) throw error
      attempt = 0 // refused on a tip no fetch confirmed: decide on the remote's own
      continue
    }
    if ((assumed || stale) && planned.changes.length === 0) {
      attempt = 0
      continue
    }
    if (planned.changes.length === 0) {
      for (const w of mergeWarnings) session.warn(w)
      return {result: planned.result, plan: planned, commit: null, tries: attempt, after: snap}
    }
    const plan = await withInbox(store, loaded, planned, ctx)
    const onTip: boolean = perItem && remoteTip !== null && base === remoteTip
    // A one-item change (its task.md and comments, with the inbox records and last_seen it writes) may wait as a pending ref.
    const item: string | null = onTip ? singleItem(snap, plan) : null
    if (stale && (!item || pending.has(item) || snap.tasks.get(item)?.meta?.owner !== ctx.actor)) {
      attempt = 0 // not a change of an item this actor holds: run it on a fresh fetch
      continue
    }
    if (onTip && remoteTip && item && pending.has(item) && pending.size >= PENDING_AT_ONCE && !settleNow) {
      // Someone else's change of this item waits in a busy line (`next` hands out a pending item only when nothing
      // else is ready): the leader's fold settles it, and a fold of this command's now would race that one (32 of 32
      // lost at 64 agents). Look until it is gone, then run the op again; if the list stands still for
      // FOLD_PATIENCE_MS meanwhile (a leader may have died), fold it on the next try.
      const value = pending.get(item)
      let tip: string | null = remoteTip
      let movedLast = Date.now()
      for (;;) {
        await waitingLook(pending.size, lastGap)
        const peek = await peekPending(cwd, remote, session.list, limits)
        if (!peek) break
        if (peek.tip !== tip) {
          tip = peek.tip
          movedLast = Date.now()
        }
        if (peek.pending.get(item) !== value) break
        if (Date.now() - movedLast >= FOLD_PATIENCE_MS || Date.now() - started > ONLINE_BUDGET_MS) {
          settleNow = true
          break
        }
      }
      continue
    }
    settleNow = false
    if (onTip && remoteTip && (item ? pending.has(item) : pending.size > 0)) {
      if (!pendingHere) {
        fetchObjects()
        continue
      }
      // Settle what is pending first (fold or drop it), then run the op on the result: someone else's change of
      // this item, or, for a change that cannot carry pending ones, all of them, so none waits on this writer.
      const {outcome} = await foldPending(cwd, store.reader, store.writer, remote, session.list, remoteTip, pending, limits, undefined, setRef)
      if (!outcome.ok) {
        lastRejection = outcome.detail
        if (outcome.reason === 'declined') perItem = false
        await onlineBackoff(attempt, Date.now() - started)
      }
      continue
    }
    if (item && remoteTip) {
      const commit = await store.writePlan(loaded, plan, ctx.actor, ctx.now)
      // Direct push while the list is quiet; else, or after PENDING_AFTER_LOSSES lost races, wait as a pending change
      // (PENDING_AT_ONCE).
      const leader = ![...pending.keys()].some((id) => id < item)
      const busy = pending.size >= PENDING_AT_ONCE || othersLanded >= BUSY_LANDED || (lost > 0 && pending.size > 0)
      if (!stale && lost < PENDING_AFTER_LOSSES && !busy) {
        if (!pendingHere && pending.size > 0) {
          fetchObjects() // the direct push carries what is pending
          continue
        }
        // First tries: this change on the list's tip, carrying whatever is pending with it, in one push.
        const {outcome, fold} = await foldPending(cwd, store.reader, store.writer, remote, session.list, remoteTip, pending, limits, {id: item, commit}, setRef)
        const landed = fold.folded.get(item)
        if (outcome.ok && landed) {
          for (const w of mergeWarnings) session.warn(w)
          return published(session, {id: item, plan, snapshot: snap}, landed, fold.tip, localTip, attempt, remote)
        }
        if (!outcome.ok && assumed && outcome.reason === 'stale') {
          unassume()
          continue
        }
        if (!outcome.ok) {
          lastRejection = outcome.detail
          if (outcome.reason === 'declined') {
            perItem = false
            refused({ok: false, reason: 'declined', detail: outcome.detail}, attempt)
            await onlineBackoff(attempt, Date.now() - started)
          } else {
            lost++ // contended: after PENDING_AFTER_LOSSES this command's change waits on the remote as a pending ref
            await onlineBackoff(attempt, Date.now() - started)
          }
        }
        continue
      }
      const pushed = await pushPending(cwd, remote, session.list, item, commit, limits)
      if (pushed.ok) {
        mine = {id: item, commit, base: remoteTip, plan, snapshot: snap, at: Date.now()}
        lookedTip = remoteTip
        movedAt = mine.at
        // A leader that lost its direct pushes on a quiet list folds at once. On a busy one it looks first: the
        // leader it took over from may have a fold on its way, which a fold now would race. One that opened the batch
        // (nothing else was pending) first lets others join it, so its fold carries more; the others let the
        // leader's fold carry theirs.
        if (leader && pending.size > 0 && !busy) foldNow = true
        else await waitingLook(pending.size + 1)
        continue
      }
      lastRejection = pushed.detail
      if (pushed.reason === 'declined') perItem = false
      else collisions++
      // Try again after a collision on the item.
      await onlineBackoff(attempt, Date.now() - started)
      continue
    }
    const commit = await store.writePlan(loaded, plan, ctx.actor, ctx.now)
    const pushed = await pushList(cwd, remote, session.list, commit, remoteTip, limits, setRef)
    if (!pushed.ok && assumed && pushed.reason === 'stale') {
      unassume()
      continue
    }
    if (pushed.ok) {
      store.notePublished(remote, commit)
      for (const w of mergeWarnings) session.warn(w)
      // Published. Bring the local ref along; if a local command moved it meanwhile, `sync` merges it later.
      await followPublished(session, commit, localTip, plan.subject ? `${plan.op} ${plan.subject.id}` : plan.op)
      return {result: plan.result, plan, commit, tries: attempt, after: withChanges(snap, plan.changes, commit)}
    }
    lastRejection = pushed.detail
    refused(pushed, attempt)
    await onlineBackoff(attempt, Date.now() - started)
  }
}

/**
 * The task a plan changes when that is all it changes (its task.md and
 * comments, on an item that exists), besides the inbox records and the
 * actor's last_seen its mutation writes (files a fold copies one by one,
 * claim-refs.ts): such a change can wait on the remote as a pending ref of
 * its own. Anything else (several items, a new or removed item, other list
 * files) goes to the list's ref.
 */
function singleItem(snap: Snapshot, plan: Plan<unknown>): string | null {
  let id: string | null = null
  for (const c of plan.changes) {
    if (c.kind === 'put-file' && (c.path.startsWith(`${INBOX_DIR}/`) || c.path.startsWith(`${ACTORS_DIR}/`))) continue
    const of = c.kind === 'put-task' ? c.meta.id : c.kind === 'add-comment' ? c.comment.task : null
    if (of === null || (id !== null && of !== id)) return null
    id = of
  }
  return id !== null && snap.tasks.has(id) ? id : null
}

/** A pending change is on the list as `landed`, the list's tip is `tip`: the command's success. */
async function published<R>(session: Session, mine: {id: string; plan: Plan<R>; snapshot: Snapshot}, landed: string, tip: string, localTip: string | null, tries: number, remote?: string): Promise<Committed<R>> {
  const plan = mine.plan
  // This command's own push put the list at `tip` (not a fold someone else pushed, which tells nothing of who else is at work).
  if (remote) session.store.notePublished(remote, tip)
  await followPublished(session, tip, localTip, plan.subject ? `${plan.op} ${plan.subject.id}` : plan.op)
  return {result: plan.result, plan, commit: landed, tries, after: withChanges(mine.snapshot, plan.changes, landed)}
}
