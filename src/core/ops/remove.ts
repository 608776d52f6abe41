/**
 * `rm`: remove an item and its sub-items. Rejected while anything outside
 * the removed set depends on them, and (without --force) while someone
 * else holds a live claim on one of them. The files stay in git history.
 */
import type {OpContext, Plan} from '../plan'
import {assertRemovable} from '../dependency-graph'
import {type Snapshot, childrenOf, lookup} from '../snapshot'
import type {TaskMeta} from '../task'
import {assertMove, overrideTrailers} from './permission'

export function removeTask(snap: Snapshot, ctx: OpContext, args: {id: string}): Plan<{removed: TaskMeta[]}> {
  const meta = lookup(snap, args.id)
  const removed = [meta, ...childrenOf(snap, meta.id)]
  assertRemovable(snap, new Set(removed.map((t) => t.id)))
  let forced = false
  for (const t of removed) if (assertMove(snap, t, ctx, 'remove', 'remove').overridden) forced = true
  return {
    op: 'rm',
    subject: {id: meta.id, title: meta.title},
    changes: removed.map((t) => ({kind: 'delete-task' as const, id: t.id})),
    trailers: forced ? overrideTrailers(ctx) : [],
    result: {removed},
  }
}
