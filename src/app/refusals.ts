/**
 * Refusals explained from history, read only on the error path: a stale
 * `--if-revision` names the commits that changed the card since, and a
 * holder whose claim was taken over is told by whom and when.
 */
import {NotPermittedError, TasksError} from '../core/errors'
import {trackingRef} from '../refstore/remote'
import {taskDir} from '../core/ids'
import {readHistory} from '../refstore/history'
import type {Session} from './session'

/** How many of the changes since a stale revision `revision_mismatch` lists. */
const CHANGES_SINCE_LIMIT = 20

/**
 * A `revision_mismatch` from the op names the current revision and the last
 * writer; this adds the commits that changed the card's file since the
 * revision the caller read (`changes_since`, newest first: commit, actor,
 * op, date), read from history only on this error path. Online the refusal
 * came from the remote's tip, so the remote-tracking ref is read first.
 */
export async function explainRevision<T>(session: Session, work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (!(error instanceof TasksError) || error.code !== 'revision_mismatch') throw error
    const id = String(error.data.id ?? '')
    const behind = Number(error.data.revision) - Number(error.data.expected)
    if (!id || !(behind > 0)) throw error
    const remote = await session.configuredRemote()
    const refs = [...(remote && !session.offline ? [trackingRef(remote, session.list)] : []), session.store.ref]
    for (const ref of refs) {
      const events = await readHistory(session.store.repo.cwd, ref, {path: `${taskDir(id)}/task.md`, limit: Math.min(behind, CHANGES_SINCE_LIMIT)})
      if (events.length === 0) continue
      error.data.changes_since = events.map((e) => ({commit: e.commit, actor: e.actor, op: e.op, date: new Date(e.date).toISOString()}))
      break
    }
    throw error
  }
}


/**
 * A holder whose claim was taken over (its lease expired, or someone forced
 * it) and who then tries to finish, block, release or heartbeat the item is
 * refused as "not the owner" by the op. The card's history says more: when
 * the latest claim of the card took it over from this actor, the refusal
 * becomes `claim_taken_over`, naming who holds it now at which epoch, and
 * telling the agent to stop and pick other work. Read only on this error
 * path; the local ref, or the remote-tracking one when the refusal came from
 * the remote's tip.
 */
export async function explainTakeover<T>(session: Session, work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (!(error instanceof TasksError) || (error.code !== 'not_owner' && error.code !== 'stale_epoch')) throw error
    const id = String(error.data.id ?? '')
    const actor = await session.actor()
    const remote = await session.configuredRemote()
    const refs = [session.store.ref, ...(remote ? [trackingRef(remote, session.list)] : [])]
    for (const ref of refs) {
      const events = await readHistory(session.store.repo.cwd, ref, {path: taskDir(id), limit: 50})
      const lastClaim = events.find((e) => e.op === 'claim' || e.op === 'takeover')
      if (!lastClaim) continue
      const from = lastClaim.trailers.find(([k]) => k === 'Tasks-Takeover')?.[1]
      if (from !== actor) break
      const epoch = Number(lastClaim.trailers.find(([k]) => k === 'Tasks-Epoch')?.[1] ?? error.data.epoch)
      const override = lastClaim.trailers.find(([k]) => k === 'Tasks-Override')?.[1]
      const reason = lastClaim.trailers.find(([k]) => k === 'Tasks-Reason')?.[1]
      const unflagged = lastClaim.trailers.some(([k]) => k === 'Tasks-Unflagged')
      // A `takeover` is only ever of a live claim; a claim took it over when the lease had run out, the card was flagged, or by force.
      const how =
        lastClaim.op === 'takeover' ? `taken over while your claim was live: ${reason ?? 'no reason recorded'}` : override ? `forced: ${override}` : unflagged ? 'the card was flagged, and anyone may take a flagged card' : 'your lease had expired'
      // --epoch given: the fencing code stays stale_epoch (scripts rely on it); the message tells the story.
      throw new NotPermittedError(
        error.code === 'stale_epoch' ? 'stale_epoch' : 'claim_taken_over',
        `your claim on ${id} was taken over by ${lastClaim.author} at epoch ${epoch} (${lastClaim.date}; ${how}). Stop working on it: your changes to it will be refused. Run \`tasks next\` for other work.`,
        {...error.data, id, owner: error.data.owner ?? lastClaim.author, epoch, taken_over_by: lastClaim.author, taken_over_at: new Date(lastClaim.date).toISOString(), takeover_commit: lastClaim.commit, forced: override ?? null},
      )
    }
    throw error
  }
}
