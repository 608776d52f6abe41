/**
 * The OnlineRemote of a real command: the session's list store, the remote
 * through git (refstore/remote.ts, refstore/claim-refs.ts), and the op with
 * its prepare step and inbox hook. Each method is one action of the loop;
 * which to take, and when, is step.ts's business.
 */
import type {OpContext, Plan} from '../../core/plan'
import type {Snapshot} from '../../core/snapshot'
import {ACTORS_DIR, INBOX_DIR} from '../../core/inbox'
import {MUTATION_TIMEOUT_MS, fetchList, fetchedBusy, pushList, recordFetch, relate} from '../../refstore/remote'
import {
  PENDING_REFUSED_TTL_MS,
  findFolded,
  foldPending,
  forgetPending,
  notePendingRefused,
  peekPending,
  pendingChanges,
  pendingRefused,
  pushPending,
  recentLine,
  withdrawPending,
} from '../../refstore/claim-refs'
import type {ListStore, Loaded} from '../../refstore/list-store'
import {withInbox} from '../inbox-hook'
import {withUnblocked} from '../../core/unblock'
import {mergeTips} from '../sync'
import type {Session} from '../session'
import type {OnlineRemote, Pending} from './types'

/** One try's run of the op: what it ran on and what it planned; the commit once written. */
export interface Computed<R> {
  loaded: Loaded
  snapshot: Snapshot
  /** The plan with the inbox records added (the op's own plan when it changed nothing). */
  plan: Plan<R>
  ctx: OpContext
  commit?: string
}

/** `op` and `prepare` as transaction.ts's Op and Prepare (spelt out here so that this module does not import its caller). */
export async function gitRemote<R>(
  session: Session,
  remote: string,
  op: (snap: Snapshot, ctx: OpContext) => Plan<R>,
  prepare?: (store: ListStore, loaded: Loaded) => Promise<Snapshot | void>,
): Promise<OnlineRemote<Computed<R>>> {
  const store = session.store
  const cwd = store.repo.cwd
  const commonDir = store.repo.commonDir
  const list = session.list
  const limits = await session.networkLimits(MUTATION_TIMEOUT_MS)
  const setRef = (ref: string, oid: string) => store.setRef(ref, oid)
  const readRef = (ref: string) => store.readRef(ref)
  /** A fetch of the list found it at `tip` with `pendingCount` changes pending: the clone's fetch note, and the store's. */
  const noteFetch = (tip: string | null, pendingCount: number) => {
    recordFetch(commonDir, remote, list, new Date(), pendingCount)
    store.noteFetched(remote, tip, pendingCount)
  }
  /** The change's commit, written once (on the commit the op ran on). */
  const commitOf = async (change: Computed<R>) => (change.commit ??= await store.writePlan(change.loaded, change.plan, change.ctx.actor, change.ctx.now))
  return {
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    random: () => Math.random(),
    fetchedBusy: (withinMs, pending) => fetchedBusy(commonDir, remote, list, withinMs, pending),
    async assumedTip() {
      return store.assumedRemoteTip(remote, await session.trackingRef(remote))
    },
    async fetch(how, claims) {
      const tracking = await session.trackingRef(remote)
      if (how === 'tracking') return {tip: await store.readRef(tracking), pending: await pendingChanges(cwd, remote, list, commonDir), pendingHere: true}
      if (how === 'list-and-look') {
        const [tip, look] = await Promise.all([fetchList(cwd, remote, list, readRef, limits), peekPending(cwd, remote, list, limits)])
        if (look) {
          noteFetch(tip, look.pending.size)
          return {tip, pending: look.pending, pendingHere: false}
        }
      }
      const tip = await fetchList(cwd, remote, list, readRef, limits, claims)
      const pending = claims ? await pendingChanges(cwd, remote, list, commonDir) : new Map<string, string>()
      noteFetch(tip, pending.size)
      return {tip, pending, pendingHere: true}
    },
    look: () => peekPending(cwd, remote, list, limits),
    localTip: () => store.refreshTip(),
    async relate(remoteTip, localTip, recentSince) {
      // Usually this clone's last publish, which others have built on since: the walk finds it, no `git merge-base`.
      const line = await recentLine(store.reader, remoteTip, localTip, await session.actor(), recentSince)
      const rel = line.distance !== null ? {kind: 'behind' as const} : await relate(cwd, localTip, remoteTip)
      return {relation: rel.kind, mergeBase: rel.kind === 'diverged' ? rel.base : null, othersLanded: line.others}
    },
    async mergeLocal(remoteTip, localTip, mergeBase) {
      const merged = await mergeTips(session, localTip, remoteTip, mergeBase, remote)
      const warnings = [
        ...merged.notes.map((n) => ({...n, message: `merged unpublished local changes: ${n.message}`})),
        ...merged.repairs.map((r) => ({...r, kind: `repaired_${r.kind}`, message: `repaired after merging: ${r.message}`})),
      ]
      return {commit: merged.commit, warnings}
    },
    async runOp(base, contention) {
      const loaded = base === null ? await store.load() : await store.loadCommit(base)
      const ctx = await session.opContext()
      if (contention) {
        ctx.busy = contention.busy
        ctx.spread = contention.spread
      }
      let snapshot: Snapshot
      let planned: Plan<R>
      try {
        snapshot = (prepare ? await prepare(store, loaded) : undefined) ?? loaded.snapshot
        // Finishing the last open dependency of an item bumps it in the same commit (core/unblock.ts).
        planned = withUnblocked(snapshot, op(snapshot, ctx))
      } catch (error) {
        return {kind: 'refused', error}
      }
      if (planned.changes.length === 0) return {kind: 'unchanged', change: {loaded, snapshot, plan: planned, ctx}}
      const plan = await withInbox(store, loaded, planned, ctx)
      const item = singleItem(snapshot, plan)
      const holdsItem = item !== null && snapshot.tasks.get(item)?.meta?.owner === ctx.actor
      return {kind: 'changed', change: {loaded, snapshot, plan, ctx}, item, holdsItem}
    },
    async fold(tip, pending, own) {
      const mine = own ? {id: own.id, commit: await commitOf(own.change)} : undefined
      const {outcome, fold} = await foldPending(cwd, store.reader, store.writer, remote, list, tip, pending, limits, mine, setRef)
      return {pushed: outcome, tip: fold.tip, folded: fold.folded}
    },
    async pushPending(id, change) {
      const commit = await commitOf(change)
      return {pushed: await pushPending(cwd, remote, list, id, commit, limits), commit}
    },
    async pushList(change, expected) {
      const commit = await commitOf(change)
      return {pushed: await pushList(cwd, remote, list, commit, expected, limits, setRef), commit}
    },
    withdraw: (parked) => withdrawPending(cwd, remote, list, parked.id, parked.commit, limits),
    async learnFate(parked, seen: Pending | null) {
      const tip = await fetchList(cwd, remote, list, readRef, limits)
      if (seen) {
        noteFetch(tip, seen.size)
        await forgetPending(cwd, remote, list, commonDir, seen)
      }
      const landed = tip ? await findFolded(cwd, store.reader, tip, parked.base, parked.id, parked.commit) : null
      return {tip, landed, localTip: landed && tip ? await store.refreshTip() : null}
    },
    findLanded: (tip, parked) => findFolded(cwd, store.reader, tip, parked.base, parked.id, parked.commit),
    forgetAssumedTip: () => store.noteRemoteMoved(remote),
    pendingRefused: () => pendingRefused(commonDir, remote) !== null,
    notePendingRefused(detail) {
      // Said once: by the command that learnt it, not by the ones that honour the note (nor by a second process
      // that learnt it at the same moment, if the first one's note is already there).
      if (!notePendingRefused(commonDir, remote, detail)) return
      const hours = PENDING_REFUSED_TTL_MS / 3_600_000
      session.warn({
        kind: 'pending_refs_refused',
        message: `remote "${remote}" refuses the pending-change refs (refs/tasks-claims/*): this clone sends every change to the list's ref for the next ${hours === 1 ? 'hour' : `${hours} hours`} (\`tasks remote\` shows it; grant the agents refs/tasks-claims/ for faster drains under contention). It said: ${detail}`,
        remote,
        detail,
      })
    },
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
