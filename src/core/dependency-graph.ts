/**
 * The dependency DAG of one list. Edges point from an item to what it
 * depends on. New edges are checked here: missing ids, self-edges, cycles;
 * duplicates fold. Pure.
 */
import {ConflictError, InvalidError} from './errors'
import {type Snapshot, resolve, tablesOf, taskMeta} from './snapshot'

/** Exit 5 `cross_list_dependency` when `input` names an item of another list (`LIST:tsk-…`): dependencies stay within one. */
export function refuseCrossList(input: string): void {
  if (/^[A-Za-z0-9._-]+:tsk-/i.test(input.trim())) {
    throw new InvalidError('cross_list_dependency', `"${input}" names another list: dependencies stay within one list`, {input})
  }
}

/**
 * Resolve and validate a replacement dependency set for `id`.
 * Returns sorted, de-duplicated stored ids.
 */
export function checkDependencies(snap: Snapshot, id: string, inputs: readonly string[]): string[] {
  const deps = new Set<string>()
  for (const input of inputs) {
    refuseCrossList(input)
    const dep = resolve(snap, input)
    taskMeta(snap, dep) // a broken file cannot be depended on
    if (dep === id) throw new InvalidError('self_dependency', `${id} cannot depend on itself`, {id})
    deps.add(dep)
  }
  // Only an item something already points at can close a cycle: a new id (nothing depends on it) skips the walk,
  // which would otherwise cost the whole dependency closure per created item (a 10,000-item chain in one batch).
  const reachable = snap.tasks.has(id) || tablesOf(snap).dependents(id).length > 0
  const cycle = reachable ? findPathTo(snap, [...deps], id) : null
  if (cycle) {
    const loop = [id, ...cycle]
    throw new InvalidError('dependency_cycle', `that would make a cycle: ${loop.join(' → ')}`, {id, cycle: loop})
  }
  return [...deps].sort()
}

/**
 * Depth-first search along depends_on from `starts`; returns the path that
 * reaches `target` (starts[i] … target) or null. `overrides` gives some
 * cards' dependencies as they are about to be (a revert that restores
 * several cards' dependencies at once); every other card's are the snapshot's.
 */
export function findPathTo(snap: Snapshot, starts: readonly string[], target: string, overrides?: ReadonlyMap<string, readonly string[]>): string[] | null {
  const seen = new Set<string>()
  const stack: Array<{id: string; path: string[]}> = starts.map((s) => ({id: s, path: [s]}))
  while (stack.length > 0) {
    const {id, path} = stack.pop()!
    if (id === target) return path
    if (seen.has(id)) continue
    seen.add(id)
    const deps = overrides?.get(id) ?? snap.tasks.get(id)?.depends_on
    if (!deps) continue
    for (const next of deps) if (!seen.has(next)) stack.push({id: next, path: [...path, next]})
  }
  return null
}

/** Ids outside `removed` that depend on something in `removed` (with `of`: on those of its ids only). */
export function externalDependents(snap: Snapshot, removed: ReadonlySet<string>, of: Iterable<string> = removed): Array<{id: string; on: string}> {
  const tables = tablesOf(snap)
  const out: Array<{id: string; on: string}> = []
  for (const on of [...of].sort()) {
    for (const id of tables.dependents(on)) if (!removed.has(id)) out.push({id, on})
  }
  return out
}

/** Reject removing items that others still depend on. */
export function assertRemovable(snap: Snapshot, removed: ReadonlySet<string>): void {
  const blockers = externalDependents(snap, removed)
  if (blockers.length > 0) {
    const names = blockers.slice(0, 5).map((b) => `${b.id} depends on ${b.on}`)
    throw new ConflictError('has_dependents', `cannot remove: ${names.join('; ')}. Change their dependencies first (tasks deps).`, {
      dependents: blockers,
    })
  }
}
