/**
 * `tasks revert --actor A [--since WHEN] [--until WHEN]`: take back, in one
 * commit, what A wrote in the window, keeping everyone else's changes. The
 * window's bounds resolve to commits of the list (app/at.ts); the history
 * is read (refstore/actor-writes.ts) on the very commit the op runs on,
 * inside the transaction's Prepare, so on a lost race and online (the
 * remote's tip) the op never judges "nobody changed it since" against an
 * older reading. The pure op (core/ops/revert.ts) decides; `--dry-run`
 * runs it on the list as it is and writes nothing.
 */
import {NotFoundError} from '../core/errors'
import {ME} from '../core/flag-values'
import {type RevertResult, revertActor} from '../core/ops/revert'
import {checkActor} from '../core/validation'
import {type ActorWrites, type WindowBounds, readActorWrites} from '../refstore/actor-writes'
import {resolveAt} from './at'
import type {Session} from './session'
import {mutate} from './transaction'

export interface RevertInput {
  actor: string
  since?: string
  until?: string
  dryRun?: boolean
  remove?: boolean
  reason?: string
}

export interface RevertOutput extends RevertResult {
  dry_run: boolean
  commit: string | null
}

export async function revert(session: Session, input: RevertInput): Promise<RevertOutput> {
  const actor = input.actor.trim() === ME ? await session.actor() : checkActor(input.actor, 'actor (--actor)')
  const store = session.store
  const loaded = await store.load() // not_initialised, newer_format
  const since = input.since !== undefined ? await resolveAt(session, input.since, 'since') : null
  const until = input.until !== undefined ? await resolveAt(session, input.until, 'until') : null
  const bounds: WindowBounds = {actor, since: since?.commit ?? null, until: until?.commit ?? null}
  const read = async (tip: string | null): Promise<ActorWrites> => (tip ? readActorWrites(store, tip, bounds) : {commits: 0, cards: [], comments: [], checks: []})
  const nothing = () => {
    const window = `${since ? ` after ${since.commit.slice(0, 10)} (${since.input})` : ''}${until ? ` up to ${until.commit.slice(0, 10)} (${until.input})` : ''}`
    return new NotFoundError('nothing_to_revert', `${actor} made no change to list ${session.list}${window}: nothing to revert`, {actor, since: since?.commit ?? null, until: until?.commit ?? null})
  }
  const args = (w: ActorWrites) => ({actor, since: bounds.since, until: bounds.until, commits: w.commits, cards: w.cards, comments: w.comments, checks: w.checks, reason: input.reason, remove: input.remove})
  if (input.dryRun) {
    const local = await read(loaded.index.commit)
    if (local.commits === 0) throw nothing()
    const plan = revertActor(loaded.snapshot, await session.opContext(), args(local))
    return {...plan.result, dry_run: true, commit: null}
  }
  // Read on the commit each run of the op builds on (online: the remote's tip, which may hold writes this clone has not fetched).
  let writes: ActorWrites = {commits: 0, cards: [], comments: [], checks: []}
  let readAt: string | null | undefined
  const done = await mutate(
    session,
    (snap, ctx) => revertActor(snap, ctx, args(writes)),
    async (_store, at) => {
      if (at.index.commit === readAt) return
      writes = await read(at.index.commit)
      readAt = at.index.commit
    },
  )
  // No writes by the actor: the op planned nothing and nothing was written.
  if (writes.commits === 0) throw nothing()
  return {...done.result, dry_run: false, commit: done.commit}
}
