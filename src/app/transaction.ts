/**
 * The mutation loop: snapshot → op (pure) → objects and one commit → CAS.
 * When the swap loses (another writer moved the ref), take a new snapshot
 * and run the op again, so the second claimer of an item is told "already
 * claimed by X" instead of overwriting it. Jittered exponential backoff and
 * a bounded number of tries; running out is a conflict (exit 4), not a hang.
 */
import {ConflictError} from '../core/errors'
import type {OpContext, Plan} from '../core/plan'
import type {Snapshot} from '../core/snapshot'
import {withChanges} from '../core/apply'
import type {Session} from './session'

export const MAX_TRIES = 40

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

function backoff(attempt: number): Promise<void> {
  const cap = Math.min(400, 8 * 2 ** Math.min(attempt, 6))
  return new Promise((r) => setTimeout(r, Math.random() * cap))
}

export async function mutate<R>(session: Session, op: Op<R>): Promise<Committed<R>> {
  const store = session.store
  for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
    if (attempt > 1) await store.refreshTip()
    const loaded = await store.load('large')
    const ctx = await session.opContext()
    const plan = op(loaded.snapshot, ctx)
    if (plan.changes.length === 0) return {result: plan.result, plan, commit: null, tries: attempt, after: loaded.snapshot}
    const commit = await store.writePlan(loaded, plan, ctx.actor, ctx.now)
    const outcome = await store.compareAndSwap(commit, loaded.index.commit, plan.subject ? `${plan.op} ${plan.subject.id}` : plan.op)
    if (outcome.ok) return {result: plan.result, plan, commit, tries: attempt, after: withChanges(loaded.snapshot, plan.changes, commit)}
    await backoff(attempt)
  }
  throw new ConflictError('cas_exhausted', `the task list kept changing under this command; gave up after ${MAX_TRIES} tries. Try again.`, {
    tries: MAX_TRIES,
  })
}
