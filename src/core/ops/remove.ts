/**
 * `rm`: remove an item (and, when asked, its sub-items). Rejected while
 * anything outside the removed set depends on them, while the item has
 * sub-items and `withSubitems` was not given, and (without --force) while
 * someone else holds a live claim on one of them. The files stay in git
 * history; the reason is recorded in the commit (`Tasks-Reason`).
 *
 * A removal is confirmed (docs/model.md, "Removing and restoring"): without
 * a terminal the caller repeats the ids (`--confirm`) and gives a reason;
 * on a terminal the command line asks instead. `assertRemovalConfirmed`
 * (core/removal.ts) is that rule, checked on every surface before the op runs.
 */
import {ConflictError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {assertRemovable} from '../dependency-graph'
import {type Snapshot, childrenOf, lookup} from '../snapshot'
import type {TaskMeta} from '../task'
import {checkNote} from '../validation'
import {assertMove, overrideTrailers} from './permission'

export interface RemoveArgs {
  id: string
  /** Why (recorded as Tasks-Reason, shown by `tasks log`). */
  reason?: string
  /** Remove the item's sub-items too; without it an item with sub-items is refused (`has_subitems`). */
  withSubitems?: boolean
}

export function removeTask(snap: Snapshot, ctx: OpContext, args: RemoveArgs): Plan<{removed: TaskMeta[]}> {
  const meta = lookup(snap, args.id)
  const children = childrenOf(snap, meta.id)
  if (children.length > 0 && !args.withSubitems) {
    throw new ConflictError(
      'has_subitems',
      `${meta.id} has sub-items: ${children.map((c) => `${c.id} (${c.status})`).join(', ')}; pass --with-subitems to remove them too, or cancel ${meta.id} instead (\`tasks cancel ${meta.id} --reason R\` cancels its open sub-items and keeps the history in the list)`,
      {id: meta.id, subitems: children.map((c) => ({id: c.id, status: c.status}))},
    )
  }
  const removed = [meta, ...children]
  assertRemovable(snap, new Set(removed.map((t) => t.id)))
  let forced = false
  for (const t of removed) if (assertMove(snap, t, ctx, 'remove', 'remove').overridden) forced = true
  const reason = args.reason === undefined ? undefined : checkNote('reason', args.reason, snap.config)
  return {
    op: 'rm',
    subject: {id: meta.id, title: meta.title},
    changes: removed.map((t) => ({kind: 'delete-task' as const, id: t.id})),
    trailers: [...(reason ? [['Tasks-Reason', reason] as [string, string]] : []), ...(forced ? overrideTrailers(ctx) : [])],
    result: {removed},
  }
}
