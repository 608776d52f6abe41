/**
 * `add --blocks ID` and `deps ID --blocks ID` (issue 33, scitex's `blocks`
 * edge): the inverse of `depends_on`. "A blocks X" is stored as X depends on
 * A, so there is one edge and one graph; the item whose dependencies change
 * is X, and every rule of `deps` applies to it as if `tasks deps X … A` were
 * run: missing ids, self-edges, other lists and cycles are refused, X's spec
 * is its holder's (`assertMayRevise`: someone else's live claim needs
 * --force --reason), a done X cannot take an unfinished dependency. All in
 * the caller's one plan: a refusal writes nothing. Pure.
 */
import {withChanges} from '../apply'
import {refuseCrossList} from '../dependency-graph'
import {InvalidError} from '../errors'
import type {Change, OpContext, Plan} from '../plan'
import {type Snapshot, lookup, resolve} from '../snapshot'
import type {TaskMeta} from '../task'
import {assertRevision} from '../revision-guard'
import {setDependencies} from './edit'

export interface InverseEdges {
  changes: Change[]
  trailers: Array<[string, string]>
  /** The items that now depend on `id` (full ids, in the order given; those that already did are left out). */
  blocks: string[]
}

/** `id` becomes a dependency of every item `blocks` names (ids or prefixes), on the list `snap`. */
export function inverseEdges(snap: Snapshot, ctx: OpContext, args: {id: string; blocks: readonly string[]; reason?: string}): InverseEdges {
  const changes: Change[] = []
  const trailers: Array<[string, string]> = []
  const blocks: string[] = []
  let view = snap
  for (const input of args.blocks) {
    refuseCrossList(input)
    const target = resolve(view, input)
    if (target === args.id) throw new InvalidError('self_dependency', `${args.id} cannot block itself`, {id: args.id})
    const meta = view.tasks.get(target)?.meta
    if (!meta || meta.depends_on.includes(args.id) || blocks.includes(target)) continue
    // The target's dependencies change: deps' own checks (cycle, spec ownership, a done target), on the list so far.
    const plan = setDependencies(view, ctx, {id: target, deps: [...meta.depends_on, args.id], reason: args.reason})
    changes.push(...plan.changes)
    for (const t of plan.trailers) if (t[0] !== 'Tasks-Depends-On' && !trailers.some((u) => u[0] === t[0] && u[1] === t[1])) trailers.push(t)
    blocks.push(target)
    view = withChanges(view, plan.changes)
  }
  if (blocks.length > 0) trailers.push(['Tasks-Blocks', blocks.join(' ')])
  return {changes, trailers, blocks}
}

/** A plan with the inverse edges of its subject added (one commit). */
export function withInverseEdges<R>(snap: Snapshot, ctx: OpContext, plan: Plan<R>, args: {id: string; blocks: readonly string[]; reason?: string}): Plan<R> {
  if (args.blocks.length === 0) return plan
  const edges = inverseEdges(withChanges(snap, plan.changes), ctx, args)
  if (edges.changes.length === 0) return plan
  return {...plan, changes: [...plan.changes, ...edges.changes], trailers: [...plan.trailers, ...edges.trailers]}
}

export interface DepsArgs {
  id: string
  deps: string[]
  /** `--blocks`: items that get `id` as a dependency. With some, an empty `deps` leaves the item's own dependencies as they are. */
  blocks?: string[]
  reason?: string
  ifRevision?: number
  epoch?: number
}

/** `deps ID [DEPS…] [--blocks X…]`: the item's own dependencies (replaced), then the inverse edges, in one plan. */
export function setDependenciesAndBlocks(snap: Snapshot, ctx: OpContext, args: DepsArgs): Plan<{task: TaskMeta}> {
  const blocks = args.blocks ?? []
  if (blocks.length === 0 || args.deps.length > 0) {
    const plan = setDependencies(snap, ctx, args)
    return withInverseEdges(snap, ctx, plan, {id: plan.result.task.id, blocks, reason: args.reason})
  }
  const meta = lookup(snap, args.id)
  assertRevision(meta, args.ifRevision)
  const plan: Plan<{task: TaskMeta}> = {op: 'deps', subject: {id: meta.id, title: meta.title}, changes: [], trailers: [], result: {task: meta}}
  return withInverseEdges(snap, ctx, plan, {id: meta.id, blocks, reason: args.reason})
}
