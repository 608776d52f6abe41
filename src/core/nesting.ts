/**
 * Sub-items nested more than one level (`max_depth` in config.yaml, 1 by
 * default, at most 4: Graphit's delivery → subtask → leaf plans). One rule
 * for how deep an item sits and how deep a parent may take a new sub-item,
 * asked by `add`, `import`, the reconciler and the server guard; and the
 * descendants a parent waits for before it may be done.
 */
import {InvalidError} from './errors'
import {type Snapshot, childIds} from './snapshot'
import {FINISHED, type ListConfig, type TaskMeta} from './task'

/** The most parent links followed: a loop (which the reconciler breaks) never hangs a reader. */
const MAX_WALK = 64

/** How many ancestors `id` has: 0 for a top-level item, 1 for a sub-item, … (a missing parent ends the walk). */
export function depthOf(snap: Snapshot, id: string): number {
  let depth = 0
  let cur = snap.tasks.get(id)?.parent
  const seen = new Set<string>([id])
  while (cur !== undefined && !seen.has(cur) && depth < MAX_WALK) {
    seen.add(cur)
    depth++
    cur = snap.tasks.get(cur)?.parent
  }
  return depth
}

/** The ancestors of `id`, nearest first. */
export function ancestorsOf(snap: Snapshot, id: string): string[] {
  const out: string[] = []
  let cur = snap.tasks.get(id)?.parent
  while (cur !== undefined && !out.includes(cur) && cur !== id && out.length < MAX_WALK) {
    out.push(cur)
    cur = snap.tasks.get(cur)?.parent
  }
  return out
}

/**
 * The nesting rule: an item at depth d (its number of ancestors) is allowed
 * when d <= max_depth. Null when allowed, else the error (`nesting_too_deep`, 5).
 */
export function nestingError(snap: Snapshot, parent: string, config: Pick<ListConfig, 'max_depth'>, what = 'a sub-item'): InvalidError | null {
  const depth = depthOf(snap, parent) + 1
  if (depth <= config.max_depth) return null
  const chain = ancestorsOf(snap, parent)
  return new InvalidError(
    'nesting_too_deep',
    `${what} of ${parent} would be nested ${depth} levels deep${chain.length ? ` (under ${[parent, ...chain].join(' → ')})` : ''}; this list nests sub-items at most ${config.max_depth} level${config.max_depth === 1 ? '' : 's'} deep (max_depth)`,
    {parent, depth, max_depth: config.max_depth, ...(chain.length ? {grandparent: chain[0]} : {})},
  )
}

/** Every descendant of `id` (sub-items, theirs, …), depth first, children in the snapshot's order. */
export function descendantIds(snap: Snapshot, id: string): string[] {
  const out: string[] = []
  const seen = new Set<string>([id])
  const walk = (p: string): void => {
    for (const c of childIds(snap, p)) {
      if (seen.has(c)) continue
      seen.add(c)
      out.push(c)
      walk(c)
    }
  }
  walk(id)
  return out
}

/** Descendants that are neither done nor cancelled (a parent cannot be done before every one of them is). */
export function openDescendants(snap: Snapshot, id: string): TaskMeta[] {
  return descendantIds(snap, id).flatMap((c) => {
    const e = snap.tasks.get(c)
    return e?.status !== undefined && !FINISHED.has(e.status) && e.meta ? [e.meta] : []
  })
}
