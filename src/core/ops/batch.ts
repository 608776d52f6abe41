/**
 * Several ids in one command (`done A B C`): the single-item op run on each
 * id in turn, each on the snapshot as the previous ones left it, composed
 * into ONE plan and so one commit. All or nothing: the first item an op
 * refuses aborts the whole batch (nothing is written), and the error keeps
 * the item's own code with the failing `id` and its `index` (0-based, in
 * argument order) added. Because the batch is one op, a lost race re-runs
 * every item on the new snapshot. Never writes anything itself.
 */
import {LiveOverlay} from '../live-overlay'
import {TasksError} from '../errors'
import type {Change, OpContext, Plan} from '../plan'
import {type Snapshot, resolve} from '../snapshot'

export interface BatchItem<R> {
  /** The full id the argument resolved to. */
  id: string
  result: R
}

/**
 * Run `one` for every id, in order, on successive snapshots. Ids resolve
 * against the snapshot the batch starts from; an id that an earlier item
 * already changed (a repeat, or a sub-item removed or cancelled with its
 * parent) is not acted on again and has no entry of its own.
 */
export function runBatch<R>(snap: Snapshot, ctx: OpContext, op: string, ids: readonly string[], one: (snap: Snapshot, ctx: OpContext, id: string) => Plan<R>): Plan<BatchItem<R>[]> {
  const resolved = ids.map((input, index) => inItem(ids.length, index, input, () => resolve(snap, input)))
  const changes: Change[] = []
  const trailers: Array<[string, string]> = []
  const seenTrailers = new Set<string>()
  const touched = new Set<string>()
  const items: BatchItem<R>[] = []
  // Each item sees the list as the previous ones left it, kept up to date in place (linear in the items).
  const live = new LiveOverlay(snap)
  const current = live.snapshot
  resolved.forEach((id, index) => {
    if (touched.has(id)) return
    const plan = inItem(ids.length, index, id, () => one(current, ctx, id))
    for (const c of plan.changes) touched.add(c.kind === 'put-task' ? c.meta.id : c.kind === 'delete-task' ? c.id : c.kind === 'add-comment' ? c.comment.task : c.kind === 'put-check' ? c.check.task : '')
    touched.add(id)
    changes.push(...plan.changes)
    for (const t of plan.trailers) {
      const key = `${t[0]}\n${t[1]}`
      if (!seenTrailers.has(key)) trailers.push(t)
      seenTrailers.add(key)
    }
    live.apply(plan.changes)
    items.push({id, result: plan.result})
  })
  const only = items.length === 1 ? snap.tasks.get(items[0]!.id)?.meta : undefined
  return {
    op,
    ...(only ? {subject: {id: only.id, title: only.title}} : {summary: `${items.length} tasks`}),
    changes,
    trailers,
    result: items,
  }
}

/** Run one item's step; a refusal names the item (id, index) when there are several. */
function inItem<T>(count: number, index: number, id: string, step: () => T): T {
  try {
    return step()
  } catch (error) {
    if (count > 1 && error instanceof TasksError) {
      error.data.id ??= id
      error.data.index = index
      const which = `item ${index + 1} of ${count}`
      error.message = error.message.includes(String(error.data.id)) ? `${which}: ${error.message}` : `${which} (${id}): ${error.message}`
    }
    throw error
  }
}
