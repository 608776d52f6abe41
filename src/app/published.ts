/**
 * Keeping the local ref with what this clone published. A push that the
 * remote accepted is the command's success even when the local ref cannot
 * follow (its lock is held): that is a warning and a note, and the next
 * command fast-forwards the local ref and says so. Never silently behind.
 */
import {TasksError} from '../core/errors'
import {clearPublished, readPublished, recordPublished} from '../refstore/published-marker'
import type {ListStore} from '../refstore/list-store'
import {relate} from '../refstore/remote'

/**
 * What following a published commit asks of the command's session (a
 * Session is one): named here so that this module does not import
 * session.ts, which calls catchUpPublished when it opens.
 */
export interface PublishingSession {
  readonly store: ListStore
  readonly list: string
  warn(warning: {kind: string; message: string}): void
}

/**
 * After a push was accepted: move the local ref from `localTip` to the
 * published `commit`. The change is published whatever happens here, so a
 * held lock is not the command's failure: it is a warning, and a note that
 * the next command uses to bring the local ref up to date (catchUpPublished).
 */
export async function followPublished(session: PublishingSession, commit: string, localTip: string | null, message: string): Promise<void> {
  const store = session.store
  try {
    await store.compareAndSwap(commit, localTip, message)
  } catch (e) {
    if (!(e instanceof TasksError) || e.code !== 'ref_locked') throw e
    recordPublished(store.repo.commonDir, session.list, commit)
    session.warn({
      kind: 'local_ref_behind',
      message: `published ${commit.slice(0, 12)}, but the local ${store.ref} could not follow: ${e.message} The next tasks command brings it up to date.`,
    })
  }
}

/**
 * At the start of a command: if an earlier command published a commit that
 * the local ref could not follow, fast-forward the local ref to it now (only
 * when that is a fast-forward: a local ref that moved on by itself is left
 * to `tasks sync`), and say so. Costs one failed file open when there is
 * nothing to do. Never fails the command: a lock still in the way is a warning.
 */
export async function catchUpPublished(session: PublishingSession): Promise<void> {
  const store = session.store
  const commonDir = store.repo.commonDir
  const published = readPublished(commonDir, session.list)
  if (!published) return
  const local = store.tip
  const rel = local ? await relate(store.repo.cwd, local, published) : {kind: 'behind' as const}
  if (rel.kind !== 'behind') {
    clearPublished(commonDir, session.list, published)
    return
  }
  try {
    const outcome = await store.compareAndSwap(published, local, 'catch up with a published commit')
    if (!outcome.ok) return // moved meanwhile; the next command looks again
  } catch (e) {
    if (!(e instanceof TasksError) || e.code !== 'ref_locked') throw e
    session.warn({kind: 'local_ref_behind', message: `the local ${store.ref} is still behind ${published.slice(0, 12)}, which an earlier command published: ${e.message}`})
    return
  }
  clearPublished(commonDir, session.list, published)
  session.warn({
    kind: 'local_ref_caught_up',
    message: `moved the local ${store.ref} forward to ${published.slice(0, 12)}, published by an earlier command whose local update was blocked by a lock`,
  })
}
