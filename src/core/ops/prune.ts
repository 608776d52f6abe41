/**
 * `tasks prune [--older-than D]`: remove finished items (done or cancelled)
 * that were closed longer ago than the retention (`retention_seconds` in
 * config.yaml, 7 days by default), in one commit; history keeps them and
 * `tasks restore` brings one back. Kept whatever their age: an item that an
 * item staying in the list depends on (a live item's dependency, or one a
 * kept finished item needs), and a parent of a sub-item that stays.
 */
import type {OpContext, Plan} from '../plan'
import {FINISHED} from '../task'
import {type Snapshot, tablesOf} from '../snapshot'

const FINISHED_STATUSES: ReadonlySet<string> = new Set(FINISHED)

export interface PruneResult {
  removed: Array<{id: string; title: string; status: string; closed_at: string | null}>
  /** Old enough, but kept because something that stays needs them. */
  kept: Array<{id: string; reason: 'dependency' | 'parent'; by: string}>
  cutoff: string
}

export function pruneFinished(snap: Snapshot, ctx: OpContext, args: {olderThanSeconds?: number}): Plan<PruneResult> {
  const seconds = args.olderThanSeconds ?? snap.config.retention_seconds
  const cutoffMs = Date.parse(ctx.now) - seconds * 1000
  const cutoff = new Date(Math.max(cutoffMs, Date.parse('0000-01-01T00:00:00.000Z'))).toISOString()
  const tables = tablesOf(snap)
  const candidates = new Set<string>()
  for (const id of tables.idsWithStatus(FINISHED_STATUSES)) {
    const meta = snap.tasks.get(id)!.meta
    if (!meta) continue
    const closed = meta.closed_at ?? meta.updated_at
    if (Date.parse(closed) < cutoffMs) candidates.add(id)
  }
  // Anything that stays keeps what it depends on and its parent; repeat until nothing more is kept.
  const kept = new Map<string, {reason: 'dependency' | 'parent'; by: string}>()
  const work = [...candidates]
  const keep = (id: string, reason: 'dependency' | 'parent', by: string): void => {
    if (!candidates.delete(id)) return
    kept.set(id, {reason, by})
    work.push(id)
  }
  const stays = (id: string) => !candidates.has(id)
  // First pass: every candidate with a dependent or a sub-item that stays is kept.
  for (const id of [...candidates]) {
    const holder = tables.dependents(id).find(stays)
    if (holder) keep(id, 'dependency', holder)
    else {
      const child = tables.children(id).find(stays)
      if (child) keep(id, 'parent', child)
    }
  }
  // Then what the newly kept need, transitively.
  while (work.length > 0) {
    const id = work.pop()!
    if (candidates.has(id)) continue
    const meta = snap.tasks.get(id)?.meta
    if (!meta) continue
    for (const dep of meta.depends_on) keep(dep, 'dependency', id)
    if (meta.parent) keep(meta.parent, 'parent', id)
  }
  const removed = [...candidates].sort().map((id) => snap.tasks.get(id)!.meta!)
  return {
    op: 'prune',
    summary: `${removed.length} finished task${removed.length === 1 ? '' : 's'} closed before ${cutoff}`,
    changes: removed.map((m) => ({kind: 'delete-task' as const, id: m.id})),
    trailers: [['Tasks-Prune-Before', cutoff]],
    result: {
      removed: removed.map((m) => ({id: m.id, title: m.title, status: m.status, closed_at: m.closed_at ?? null})),
      kept: [...kept].map(([id, k]) => ({id, ...k})).sort((a, b) => (a.id < b.id ? -1 : 1)),
      cutoff,
    },
  }
}
