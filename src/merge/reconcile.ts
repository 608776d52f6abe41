/**
 * The reconciler: after a merge, check the invariants of the whole list and
 * repair what two clones broke between them, deterministically. It owns
 * exactly these repairs (docs/merge.md), in this order:
 *
 *  1. dangling parent (parent not in the list) → clear the parent;
 *     parent links forming a loop → clear the parent of the loop member with
 *     the latest updated_at (ties: the greatest id);
 *     sub-item nested deeper than max_depth → re-parent it to its ancestor
 *     at depth max_depth - 1 (its top-level ancestor by default);
 *  2. dangling dependency → remove the edge;
 *  3. dependency cycle → remove the edge from the cycle member with the
 *     latest updated_at (ties: the greatest id) to its successor in the
 *     cycle; repeat until acyclic;
 *  4. item done while a dependency is not done, when that is new in the
 *     merged state (the pair is in none of the `before` snapshots: the merge
 *     made it) → reopen it to todo, clearing owner and lease; repeat until
 *     nothing new remains;
 *  5. item done that breaks a rule `done` itself enforces: flagged, an
 *     active check not passed with evidence (only for cards whose checks
 *     the snapshot holds), a sub-item neither done nor cancelled → reopen
 *     it as in 4. No op reaches these states (done refuses them, a finished
 *     card takes no flag, check change or open sub-item), so without
 *     `before` (`tasks doctor --fix`) every one is repaired; with `before`
 *     (a merge), those new in the merged state.
 *
 * Nothing else: it never edits anything that is not one of these, never
 * reads git or a clock (time comes in as `now`), and every repair is returned
 * as a Repair and as a comment on the affected card.
 */
import {cmp} from '../core/order'
import type {Change} from '../core/plan'
import {NO_CLAIM} from '../core/ops/revision'
import {type Snapshot, type TaskEntry, checksOf, tablesOf} from '../core/snapshot'
import {unmetChecks} from '../core/check'
import {FINISHED, type Status, type TaskMeta} from '../core/task'
import {MERGE_ACTOR, cmpTime, engineComment} from './merge-types'

export type RepairKind =
  | 'dangling_parent'
  | 'parent_cycle'
  | 'nesting_too_deep'
  | 'dangling_dependency'
  | 'dependency_cycle'
  | 'done_with_open_dependency'
  | 'done_while_flagged'
  | 'done_with_unmet_checks'
  | 'done_with_open_subitems'

/** One repair the reconciler made, on one card. */
export interface Repair {
  kind: RepairKind
  /** The card that was changed. */
  task: string
  message: string
}

/** An invariant that does not hold (reported by checkInvariants, e.g. for `tasks doctor`). */
export interface Violation {
  kind: RepairKind
  /** The card that breaks the invariant (the one a repair would change). */
  task: string
  /** The other ids involved: the missing parent or dependency, the loop or cycle, the open dependency. */
  related: string[]
  message: string
}

export interface ReconcileContext {
  /** ISO-8601 UTC time of the merge. */
  now: string
  /**
   * The snapshots that were merged (ours and theirs). A done item with an
   * unfinished dependency is reopened only when that pair is in none of
   * them, i.e. the merge made it: a state one clone reached by its own ops
   * (say, a dependency reopened after its dependent was done) is left as a
   * fast-forward would leave it. Absent or empty: such items are never
   * reopened.
   */
  before?: readonly Snapshot[]
  /**
   * Ids that may differ between `merged` and a `before` snapshot (extra ids
   * are harmless; every id that differs must be here). When given together
   * with `before`, only violations that involve a task whose presence,
   * readability, status, parent or dependencies differ between `merged` and
   * some `before` snapshot are looked for, starting from those tasks rather
   * than visiting the whole list. When at least one `before` snapshot is
   * itself consistent, every violation there is involves such a task, so
   * the result is the full reconcile's. A violation both sides already had
   * is left as it was (`tasks doctor` reports it). Absent: the whole list.
   */
  changed?: Iterable<string>
}

export interface ReconcileResult {
  /** put-task (revision + 1, updated_at now, updated_by git-tasks) and add-comment changes. */
  changes: Change[]
  repairs: Repair[]
}

/** Working state: the readable tasks (mutable copies, made on first write) and which ids exist at all. */
interface Work {
  metas: WorkMetas
  exists: (id: string) => boolean
}

/**
 * The readable tasks of a snapshot as the reconciler edits them. Reading a
 * task's parent, dependencies or status uses the snapshot entry's own fields
 * (no frontmatter decoded) until the task is edited; `get` makes a mutable
 * copy of the frontmatter, once. A 100,000-task merge then decodes only the
 * tasks it repairs, not every task of the list.
 */
class WorkMetas {
  private readonly copies = new Map<string, TaskMeta>()

  constructor(private readonly snap: Snapshot) {}

  /** A readable task (an unreadable file exists but has no frontmatter). */
  has(id: string): boolean {
    return this.copies.has(id) || this.snap.tasks.get(id)?.status !== undefined
  }

  /** The mutable copy of a readable task's frontmatter (made on first use). */
  get(id: string): TaskMeta | undefined {
    let meta = this.copies.get(id)
    if (!meta) {
      const m = this.snap.tasks.get(id)?.meta
      if (!m) return undefined
      meta = {...m, tags: [...m.tags], depends_on: [...m.depends_on]}
      this.copies.set(id, meta)
    }
    return meta
  }

  parent(id: string): string | undefined {
    const c = this.copies.get(id)
    if (c) return c.parent
    const e = this.snap.tasks.get(id)
    return e?.status === undefined ? undefined : e.parent
  }

  deps(id: string): readonly string[] {
    const c = this.copies.get(id)
    if (c) return c.depends_on
    const e = this.snap.tasks.get(id)
    return e?.status === undefined ? [] : (e.depends_on ?? [])
  }

  status(id: string): string | undefined {
    return this.copies.get(id)?.status ?? this.snap.tasks.get(id)?.status
  }
}

function work(snap: Snapshot): Work {
  return {metas: new WorkMetas(snap), exists: (id) => snap.tasks.has(id)}
}

/**
 * Which ids each repair step visits. The whole list: every id. Incremental
 * (`ReconcileContext.changed`): the tasks that differ from a side (`changed`,
 * sorted) and their neighbours, which is where a violation the merge made
 * must be (docs/merge.md, "The reconciler").
 */
interface Scope {
  /** Where a dangling parent or a sub-item nested too deep can be. */
  parents(): readonly string[]
  /** Null: no parent loop anywhere; else the ids to search loops from (every task that can reach one). */
  parentLoops(w: Work): readonly string[] | null
  /** Where a dangling dependency can be. */
  deps(): readonly string[]
  /** Null: no dependency cycle anywhere; else the ids to search cycles from (every task that can reach one). */
  depCycles(w: Work): readonly string[] | null
  /** Where a done item with an open dependency the merge made can be, first round. */
  done(): readonly string[]
  /** The ids to look at again after `reopened` were reopened. */
  afterReopen(reopened: readonly string[]): readonly string[]
  /** Where a done item breaking a finish rule (flag, checks, sub-items) the merge made can be. */
  finished(): readonly string[]
}

function wholeList(snap: Snapshot): Scope {
  const ids = (): readonly string[] => tablesOf(snap).sortedIds()
  return {
    parents: ids,
    parentLoops: () => ids(),
    deps: ids,
    depCycles: () => ids(),
    done: ids,
    afterReopen: () => ids(),
    finished: ids,
  }
}

/** The same relevant facts (presence, readability, status, parent, dependencies) in two entries. */
function sameFacts(a: TaskEntry | undefined, b: TaskEntry | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  if (a.status !== b.status) return false
  if (a.status === undefined) return true
  if (a.parent !== b.parent) return false
  const x = a.depends_on ?? []
  const y = b.depends_on ?? []
  return x.length === y.length && x.every((d, i) => d === y[i])
}

function aroundChanges(merged: Snapshot, before: readonly Snapshot[], candidates: Iterable<string>): Scope {
  const tables = tablesOf(merged)
  const changed = new Set<string>()
  for (const id of candidates) {
    if (changed.has(id)) continue
    const m = merged.tasks.get(id)
    if (before.some((b) => !sameFacts(m, b.tasks.get(id)))) changed.add(id)
  }
  const d = [...changed].sort(cmp)
  const withNeighbours = (next: (id: string) => readonly string[], from: readonly string[]): string[] => {
    const out = new Set(from)
    for (const id of from) for (const n of next(id)) out.add(n)
    return [...out].sort(cmp)
  }
  /** `from` and everything reachable from it by `next`, sorted. */
  const closure = (next: (id: string) => readonly string[], from: readonly string[]): string[] => {
    const seen = new Set(from)
    const stack = [...from]
    while (stack.length > 0) for (const n of next(stack.pop()!)) if (!seen.has(n)) (seen.add(n), stack.push(n))
    return [...seen].sort(cmp)
  }
  const children = (id: string) => tables.children(id)
  const dependents = (id: string) => tables.dependents(id)
  let nearChildren: string[] | undefined
  let nearDependents: string[] | undefined
  return {
    parents: () => (nearChildren ??= withNeighbours(children, d)),
    // A loop has a link one side did not have, so it holds a changed task: searching from them finds any.
    // Then every task that can reach a loop hangs below a changed task on it (a loop member's descendants).
    parentLoops: (w) => (findParentLoop(w, d) ? closure(children, d) : null),
    deps: () => (nearDependents ??= withNeighbours(dependents, d)),
    // Likewise a cycle has an edge one side did not have, from a changed task; a task that can reach a
    // cycle can reach that task, so it depends on it, directly or not. Edges are only ever removed
    // before and during this step, so the merged list's reverse edges cover what is left.
    depCycles: (w) => (cycleIn(w.metas, d) ? closure(dependents, d) : null),
    done: () => (nearDependents ??= withNeighbours(dependents, d)),
    afterReopen: (reopened) => [...new Set(reopened.flatMap((id) => dependents(id)))].sort(cmp),
    // A changed card, or the parent of one (a sub-item reopened on one clone while the other finished the parent).
    finished: () => [...new Set([...d, ...d.flatMap((id) => {
      const parent = merged.tasks.get(id)?.parent
      return parent !== undefined ? [parent] : []
    })])].sort(cmp),
  }
}

/** The member of a loop or cycle whose link goes: the latest updated_at, then the greatest id. */
function latest(metas: WorkMetas, members: readonly string[]): string {
  let best = members[0]!
  for (const id of members.slice(1)) {
    const c = cmpTime(metas.get(id)!.updated_at, metas.get(best)!.updated_at) || cmp(id, best)
    if (c > 0) best = id
  }
  return best
}

type Report = (kind: RepairKind, task: string, related: string[], message: string) => void

// ---------------------------------------------------------------------------
// Parents.

/** A loop of parent links among readable tasks, in link order, or null. */
function findParentLoop(w: Work, ids: readonly string[]): string[] | null {
  const done = new Set<string>()
  for (const start of ids) {
    if (done.has(start) || !w.metas.has(start)) continue
    const path: string[] = []
    const onPath = new Map<string, number>()
    let id: string | undefined = start
    while (id !== undefined && w.metas.has(id) && !done.has(id)) {
      if (onPath.has(id)) return path.slice(onPath.get(id))
      onPath.set(id, path.length)
      path.push(id)
      id = w.metas.parent(id)
    }
    for (const p of path) done.add(p)
  }
  return null
}

function repairParents(w: Work, scope: Scope, report: Report, maxDepth: number): void {
  for (const id of scope.parents()) {
    const parent = w.metas.parent(id)
    if (!parent || w.exists(parent)) continue
    delete w.metas.get(id)!.parent
    report('dangling_parent', id, [parent], `cleared the parent ${parent}, which is not in this list (removed on another clone); this is now a top-level item`)
  }
  const loopIds = scope.parentLoops(w)
  for (let loop = loopIds && findParentLoop(w, loopIds); loop; loop = findParentLoop(w, loopIds!)) {
    const id = latest(w.metas, loop)
    const meta = w.metas.get(id)!
    const parent = meta.parent!
    delete meta.parent
    report('parent_cycle', id, [...loop], `cleared the parent ${parent}: parent links formed a loop (${[...loop, loop[0]].join(' → ')})`)
  }
  // Ancestors (nearest first) are read before any re-parenting: an item nested deeper than max_depth moves under its
  // ancestor at depth max_depth - 1 (its top-level ancestor when max_depth is 1), which no move changes.
  const ancestors = (id: string): string[] => {
    const out: string[] = []
    for (let cur = w.metas.parent(id); cur !== undefined && cur !== id && !out.includes(cur) && out.length < 64; cur = w.metas.parent(cur)) out.push(cur)
    return out
  }
  const moves: Array<{id: string; from: string; to: string}> = []
  for (const id of scope.parents()) {
    const chain = ancestors(id)
    if (chain.length <= maxDepth) continue
    moves.push({id, from: chain[0]!, to: chain[chain.length - maxDepth]!})
  }
  for (const {id, from, to} of moves) {
    w.metas.get(id)!.parent = to
    report('nesting_too_deep', id, [from, to], `moved under ${to}: under its parent ${from} it was nested deeper than this list allows (max_depth ${maxDepth})`)
  }
}

// ---------------------------------------------------------------------------
// Dependencies.

function repairDangling(w: Work, scope: Scope, report: Report): void {
  for (const id of scope.deps()) {
    if (!w.metas.has(id)) continue
    for (const dep of w.metas.deps(id).filter((d) => !w.exists(d))) {
      const meta = w.metas.get(id)!
      meta.depends_on = meta.depends_on.filter((d) => d !== dep)
      report('dangling_dependency', id, [dep], `removed the dependency on ${dep}, which is not in this list (removed on another clone)`)
    }
  }
}

/**
 * The first dependency cycle a depth-first search finds, visiting ids and
 * edges in sorted order (deterministic), as [a, b, …] with a → b → … → a.
 */
export function findCycle(metas: ReadonlyMap<string, TaskMeta>, ids: readonly string[]): string[] | null {
  return cycleIn({has: (id) => metas.has(id), deps: (id) => metas.get(id)!.depends_on}, ids)
}

function cycleIn(metas: {has(id: string): boolean; deps(id: string): readonly string[]}, ids: readonly string[]): string[] | null {
  const state = new Map<string, 1 | 2>() // 1 on the stack, 2 finished
  for (const root of ids) {
    if (state.has(root) || !metas.has(root)) continue
    const stack: Array<{id: string; next: string[]; i: number}> = []
    const enter = (id: string): void => {
      state.set(id, 1)
      stack.push({id, next: [...metas.deps(id)].sort(cmp), i: 0})
    }
    enter(root)
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      if (top.i >= top.next.length) {
        state.set(top.id, 2)
        stack.pop()
        continue
      }
      const dep = top.next[top.i++]!
      if (!metas.has(dep)) continue
      const s = state.get(dep)
      if (s === 1) {
        const from = stack.findIndex((f) => f.id === dep)
        return stack.slice(from).map((f) => f.id)
      }
      if (s === undefined) enter(dep)
    }
  }
  return null
}

function repairCycles(w: Work, scope: Scope, report: Report): void {
  const ids = scope.depCycles(w)
  for (let cycle = ids && cycleIn(w.metas, ids); cycle; cycle = cycleIn(w.metas, ids!)) {
    const id = latest(w.metas, cycle)
    const successor = cycle[(cycle.indexOf(id) + 1) % cycle.length]!
    const meta = w.metas.get(id)!
    meta.depends_on = meta.depends_on.filter((d) => d !== successor)
    report('dependency_cycle', id, [...cycle], `removed the dependency on ${successor}: dependencies made on different clones formed a cycle (${[...cycle, cycle[0]].join(' → ')})`)
  }
}

// ---------------------------------------------------------------------------
// Done items with unfinished dependencies.

/** Pairs [done item, dependency] where the dependency is readable and not done. */
function doneWithOpen(metas: WorkMetas, ids: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = []
  for (const id of ids) {
    if (metas.status(id) !== 'done') continue
    for (const dep of [...metas.deps(id)].sort(cmp)) {
      if (metas.has(dep) && metas.status(dep) !== 'done') out.push([id, dep])
    }
  }
  return out
}

function inSnapshot(snap: Snapshot, id: string, dep: string): boolean {
  const meta = snap.tasks.get(id)?.meta
  const d = snap.tasks.get(dep)?.meta
  return meta?.status === 'done' && meta.depends_on.includes(dep) && d !== undefined && d.status !== 'done'
}

function repairDone(w: Work, scope: Scope, before: readonly Snapshot[], report: Report, start: readonly string[] = scope.done()): void {
  if (before.length === 0) return
  const isNew = (id: string, dep: string): boolean => !before.some((s) => inSnapshot(s, id, dep))
  // Each round, only the items whose dependency was just reopened can newly break the rule.
  for (let ids = start; ; ) {
    const fresh = doneWithOpen(w.metas, ids).filter(([id, dep]) => isNew(id, dep))
    if (fresh.length === 0) return
    const reopened = new Set<string>()
    for (const [id, dep] of fresh) {
      if (reopened.has(id)) continue
      reopened.add(id)
      const meta = w.metas.get(id)!
      const depStatus = w.metas.status(dep)!
      // What `reopen` clears.
      for (const k of [...Object.keys(NO_CLAIM), 'closed_at'] as Array<keyof TaskMeta>) delete meta[k]
      meta.status = 'todo'
      report('done_with_open_dependency', id, [dep], `reopened (it was done) because its dependency ${dep} is ${depStatus}: it was finished on one clone while the dependency changed on another`)
    }
    ids = scope.afterReopen([...reopened].sort(cmp))
  }
}

// ---------------------------------------------------------------------------
// Done items that break a rule of `done`: flagged, checks not passed, open sub-items.

interface FinishFault {
  kind: 'done_while_flagged' | 'done_with_unmet_checks' | 'done_with_open_subitems'
  related: string[]
  message: string
}

/** What `done` would refuse of the done item `id` as the list stands (`w`), each with the ids involved. */
function finishFaults(w: Work, snap: Snapshot, id: string): FinishFault[] {
  if (w.metas.status(id) !== 'done') return []
  const out: FinishFault[] = []
  const meta = snap.tasks.get(id)?.meta
  if (meta?.flag_reason !== undefined) {
    out.push({kind: 'done_while_flagged', related: [], message: `it is flagged by ${meta.flagged_by ?? 'someone'} ("${meta.flag_reason}"), and a flagged item cannot be done`})
  }
  const unmet = unmetChecks(checksOf(snap, id))
  if (unmet.length > 0) {
    out.push({kind: 'done_with_unmet_checks', related: unmet.map((c) => c.id), message: `its check${unmet.length === 1 ? '' : 's'} ${unmet.map((c) => `${c.id} (${c.status})`).join(', ')} ${unmet.length === 1 ? 'has' : 'have'} not passed with evidence`})
  }
  // Its sub-items as the repairs so far left them: a re-parented one (nesting too deep) was a descendant in `snap`.
  const tables = tablesOf(snap)
  const seen = new Set<string>([id])
  const kids: string[] = []
  for (let todo = [...tables.children(id)]; todo.length > 0; ) {
    const k = todo.pop()!
    if (seen.has(k)) continue
    seen.add(k)
    if (w.metas.parent(k) === id) kids.push(k)
    todo.push(...tables.children(k))
  }
  const open = kids.sort(cmp).filter((k) => w.metas.has(k) && !FINISHED.has(w.metas.status(k) as Status))
  if (open.length > 0) {
    out.push({kind: 'done_with_open_subitems', related: open, message: `its sub-item${open.length === 1 ? '' : 's'} ${open.map((k) => `${k} (${w.metas.status(k)})`).join(', ')} ${open.length === 1 ? 'is' : 'are'} not finished`})
  }
  return out
}

/** True when `snap` (a side of the merge) already had this fault of `id`: the merge did not make it. */
function hadFault(snap: Snapshot, id: string, f: FinishFault): boolean {
  const meta = snap.tasks.get(id)?.meta
  if (meta?.status !== 'done') return false
  if (f.kind === 'done_while_flagged') return meta.flag_reason !== undefined
  if (f.kind === 'done_with_unmet_checks') {
    const unmet = new Set(unmetChecks(checksOf(snap, id)).map((c) => c.id))
    return f.related.every((c) => unmet.has(c))
  }
  return f.related.every((k) => {
    const child = snap.tasks.get(k)?.meta
    return child?.parent === id && !FINISHED.has(child.status)
  })
}

/** Returns the items it reopened. `first`: look at the scope's ids too (the first round), else only around `repaired`. */
function repairFinished(w: Work, snap: Snapshot, scope: Scope, before: readonly Snapshot[] | null, repaired: readonly string[], report: Report, first: boolean): string[] {
  // A card an earlier step reopened or moved may leave its (new) done parent with an open sub-item, and so may a
  // sub-item reopened here: their parents are looked at too.
  const parentsOf = (ids: readonly string[]) => ids.flatMap((id) => {
    const parent = w.metas.parent(id)
    return parent !== undefined ? [parent] : []
  })
  const queue = [...new Set([...(first ? scope.finished() : []), ...parentsOf(repaired)])].sort(cmp)
  const reopened: string[] = []
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!
    const faults = finishFaults(w, snap, id).filter((f) => before === null || !before.some((b) => hadFault(b, id, f)))
    if (faults.length === 0) continue
    reopened.push(id)
    const meta = w.metas.get(id)!
    for (const k of [...Object.keys(NO_CLAIM), 'closed_at'] as Array<keyof TaskMeta>) delete meta[k]
    meta.status = 'todo'
    for (const f of faults) report(f.kind, id, f.related, `reopened (it was done) because ${f.message}${before === null ? '' : ': it was finished on one clone while this changed on another'}`)
    if (meta.parent !== undefined && w.metas.status(meta.parent) === 'done') queue.push(meta.parent)
  }
  return reopened
}

// ---------------------------------------------------------------------------

/**
 * Check the merged list's invariants and repair them deterministically.
 * Returns the changes to commit with the merge (one put-task per changed
 * card: revision + 1, updated_at = ctx.now, updated_by "git-tasks"; one
 * add-comment per repair, kind "problem", author "git-tasks") and the
 * repairs for the commit message and sync output. Unreadable task files are
 * left alone (and count as existing, so edges to them are not dangling).
 * Idempotent: reconciling the reconciled list (same `before`) changes nothing.
 */
export function reconcile(merged: Snapshot, ctx: ReconcileContext): ReconcileResult {
  const w = work(merged)
  const before = ctx.before ?? []
  const scope = ctx.changed !== undefined && before.length > 0 ? aroundChanges(merged, before, ctx.changed) : wholeList(merged)
  const repairs: Repair[] = []
  const report: Report = (kind, task, _related, message) => repairs.push({kind, task, message})
  repairParents(w, scope, report, merged.config.max_depth ?? 1)
  repairDangling(w, scope, report)
  repairCycles(w, scope, report)
  repairDone(w, scope, before, report)
  // A merge (before given) repairs what it made; doctor --fix (no before) every one: no op reaches these states.
  // Each reopening can break the other rule (a reopened dependency, a reopened sub-item): alternate until neither finds more.
  const sides = before.length > 0 ? before : null
  for (let reopened = repairFinished(w, merged, scope, sides, [...new Set(repairs.map((r) => r.task))], report, true); reopened.length > 0; ) {
    const from = repairs.length
    repairDone(w, scope, before, report, scope.afterReopen([...reopened].sort(cmp)))
    reopened = repairFinished(w, merged, scope, sides, repairs.slice(from).map((r) => r.task), report, false)
  }

  const changes: Change[] = []
  const touched = [...new Set(repairs.map((r) => r.task))].sort(cmp)
  for (const id of touched) {
    const original = merged.tasks.get(id)!.meta!
    const meta: TaskMeta = {...w.metas.get(id)!, revision: original.revision + 1, updated_at: ctx.now, updated_by: MERGE_ACTOR}
    changes.push({kind: 'put-task', meta})
    for (const r of repairs.filter((x) => x.task === id)) {
      changes.push({kind: 'add-comment', comment: engineComment(id, 'problem', MERGE_ACTOR, `Merge repair: ${r.message}.`, ctx.now)})
    }
  }
  return {changes, repairs}
}

/**
 * Every invariant the reconciler would repair that does not hold in `snap`,
 * without changing anything (for `tasks doctor`). Unlike reconcile, every
 * done item with an unfinished dependency is reported, new or not. Cycles
 * are reported as the reconciler would meet them (one per edge it would
 * remove).
 */
export function checkInvariants(snap: Snapshot): Violation[] {
  const w = work(snap)
  const all = wholeList(snap)
  const out: Violation[] = []
  const report: Report = (kind, task, related, message) => out.push({kind, task, related, message})
  // Repairing a copy finds loops and cycles the way reconcile would, one at a time.
  repairParents(w, all, report, snap.config.max_depth ?? 1)
  repairDangling(w, all, report)
  repairCycles(w, all, report)
  const original = work(snap)
  for (const [id, dep] of doneWithOpen(original.metas, all.done())) {
    out.push({kind: 'done_with_open_dependency', task: id, related: [dep], message: `${id} is done but its dependency ${dep} is ${original.metas.status(dep)}`})
  }
  for (const id of all.finished()) {
    for (const f of finishFaults(original, snap, id)) out.push({kind: f.kind, task: id, related: f.related, message: `${id} is done but ${f.message}`})
  }
  return out.map((v) => (v.message.startsWith(v.task) ? v : {...v, message: `${v.task}: ${v.message}`}))
}
