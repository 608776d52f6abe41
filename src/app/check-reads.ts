/**
 * Reading the checks an op needs before each try: the snapshot holds task
 * frontmatter only, so the use cases of `done`, `edit` of a card's text,
 * the check commands and batches hand the transaction this `Prepare`, and a
 * lost race re-reads the checks with the new snapshot.
 */
import {type Snapshot, resolve} from '../core/snapshot'
import type {Loaded} from '../refstore/list-store'
import type {Comment} from '../core/task'
import type {Session} from './session'
import type {Prepare} from './transaction'

/**
 * A `Prepare` that reads the checks of the tasks `inputs` name (ids or
 * prefixes; one that does not resolve is left for the op to report).
 */
export function prepareChecks(session: Session, inputs: (snap: Snapshot) => Iterable<string>): Prepare {
  return async (_store, loaded: Loaded) => {
    const snap = loaded.snapshot
    const ids: string[] = []
    for (const input of inputs(snap)) {
      try {
        ids.push(resolve(snap, input))
      } catch {
        // Reported by the op, with its own code.
      }
    }
    if (ids.length === 0) return snap
    const {checks} = await session.store.readChecks(loaded.index.commit, ids)
    return {...snap, checks}
  }
}

/**
 * A `Prepare` that reads the comments of the tasks `inputs` name (ids or
 * prefixes), for `comment --key`: its key is looked for among them, and a
 * lost race reads them again with the new snapshot. Composed after
 * `prepareChecks` when given one.
 */
export function prepareComments(session: Session, inputs: (snap: Snapshot) => Iterable<string>, before?: Prepare): Prepare {
  return async (store, loaded: Loaded) => {
    const snap = (before ? await before(store, loaded) : undefined) ?? loaded.snapshot
    const ids = new Set<string>()
    for (const input of inputs(snap)) {
      try {
        ids.add(resolve(snap, input))
      } catch {
        // Reported by the op, with its own code.
      }
    }
    const comments = new Map<string, readonly Comment[]>()
    for (const id of ids) {
      const dir = (snap.tasks.get(id) as {dir?: unknown} | undefined)?.dir
      comments.set(id, (await session.store.readDetail(loaded.index.commit, id, typeof dir === 'string' ? dir : undefined)).comments)
    }
    return {...snap, comments}
  }
}
