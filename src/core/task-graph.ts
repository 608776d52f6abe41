/**
 * The picture of a list's work as a graph, for people: which items are in
 * it, the edges between them (dependencies and sub-item nesting), the ready
 * frontier and the critical path (the longest chain of unfinished work).
 * Pure: a snapshot and a viewer in, a value out. Renderers (src/render/graph-*)
 * draw it; they decide nothing.
 *
 * The graph is acyclic by construction: the store refuses dependency cycles,
 * but a merge or a hand edit could still leave one, and sub-item nesting is
 * not checked against dependencies at all. Edges that would close a cycle
 * are set aside (`dropped_edges`) before anything is laid out or measured,
 * so a layout never sees a cycle and the longest path is well defined.
 */
import {type Snapshot, childIds, tablesOf} from './snapshot'
import {FINISHED, STATUSES, type Status, type TaskMeta} from './task'
import type {State} from './readiness'
import type {TaskViewer} from './task-view'

export interface GraphNode {
  id: string
  short_id: string
  title: string
  status: Status
  state: State
  priority: number
  owner: string | null
  assignee: string | null
  parent: string | null
  tags: string[]
  /** Ready to be claimed now (the readiness rule of `next`). */
  ready: boolean
  /** On the critical path. */
  critical: boolean
}

/**
 * `depends`: `from` is the dependency, `to` the item waiting for it (work
 * flows from → to). `subitem`: `from` is the parent, `to` its sub-item.
 */
export interface GraphEdge {
  from: string
  to: string
  kind: 'depends' | 'subitem'
  critical: boolean
}

export interface TaskGraph {
  nodes: GraphNode[]
  edges: GraphEdge[]
  /** The longest chain of unfinished work, first item first; empty when nothing is open. */
  critical_path: string[]
  /** Ids of the items ready now. */
  frontier: string[]
  /** Edges left out because they would close a cycle. */
  dropped_edges: GraphEdge[]
}

export interface GraphScope {
  /** Full ids: the graph is what is reachable from them (their dependencies and sub-items, transitively). */
  roots?: readonly string[]
  /** Keep done and cancelled items too. */
  all?: boolean
}

const OPEN_STATUSES: ReadonlySet<string> = new Set(STATUSES.filter((s) => !FINISHED.has(s)))
const ALL_STATUSES: ReadonlySet<string> = new Set(STATUSES)

/** The items in scope, sorted by id. Roots are always kept; others only when open (or `all`). */
function nodeIds(snap: Snapshot, scope: GraphScope): string[] {
  const keep = (id: string) => {
    const status = snap.tasks.get(id)?.status
    return status !== undefined && (scope.all || OPEN_STATUSES.has(status))
  }
  if (!scope.roots || scope.roots.length === 0) {
    return [...tablesOf(snap).idsWithStatus(scope.all ? ALL_STATUSES : OPEN_STATUSES)].sort()
  }
  const roots = new Set(scope.roots)
  const seen = new Set<string>()
  const stack = [...scope.roots]
  while (stack.length > 0) {
    const id = stack.pop()!
    if (seen.has(id)) continue
    const entry = snap.tasks.get(id)
    if (!entry?.status) continue
    seen.add(id)
    for (const d of entry.depends_on ?? []) stack.push(d)
    for (const c of childIds(snap, id)) stack.push(c)
  }
  return [...seen].filter((id) => roots.has(id) || keep(id)).sort()
}

/**
 * Keep the edges of a DAG: a depth-first search in id order drops every edge
 * that reaches back to a node on the current path. Deterministic.
 */
export function breakCycles<E extends {from: string; to: string}>(ids: readonly string[], edges: readonly E[]): {kept: E[]; dropped: E[]} {
  const out = new Map<string, E[]>()
  for (const e of edges) {
    let list = out.get(e.from)
    if (!list) out.set(e.from, (list = []))
    list.push(e)
  }
  for (const list of out.values()) list.sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : 0))
  const state = new Map<string, 1 | 2>() // 1: on the path, 2: finished
  const dropped = new Set<E>()
  for (const start of ids) {
    if (state.has(start)) continue
    const stack: Array<{id: string; next: number}> = [{id: start, next: 0}]
    state.set(start, 1)
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const list = out.get(top.id) ?? []
      if (top.next >= list.length) {
        state.set(top.id, 2)
        stack.pop()
        continue
      }
      const e = list[top.next++]!
      const s = state.get(e.to)
      if (s === 1) dropped.add(e)
      else if (s === undefined) {
        state.set(e.to, 1)
        stack.push({id: e.to, next: 0})
      }
    }
  }
  return {kept: edges.filter((e) => !dropped.has(e)), dropped: edges.filter((e) => dropped.has(e))}
}

/**
 * The longest chain in a DAG given as predecessor lists, counting nodes.
 * Ties go to the chain ending at the smaller id, then to the predecessor
 * with the smaller id, so the answer is stable.
 */
export function longestChain(ids: readonly string[], preds: ReadonlyMap<string, readonly string[]>): string[] {
  const length = new Map<string, number>()
  const via = new Map<string, string | null>()
  const visit = (start: string) => {
    // Iterative post-order: a node's length needs its predecessors' first.
    const stack: Array<{id: string; expanded: boolean}> = [{id: start, expanded: false}]
    while (stack.length > 0) {
      const top = stack.pop()!
      if (length.has(top.id)) continue
      const ps = preds.get(top.id) ?? []
      if (!top.expanded) {
        stack.push({id: top.id, expanded: true})
        for (const p of ps) if (!length.has(p)) stack.push({id: p, expanded: false})
        continue
      }
      let best: string | null = null
      let bestLen = 0
      for (const p of [...ps].sort()) {
        const l = length.get(p) ?? 0
        if (l > bestLen) {
          best = p
          bestLen = l
        }
      }
      length.set(top.id, bestLen + 1)
      via.set(top.id, best)
    }
  }
  let end: string | null = null
  for (const id of [...ids].sort()) {
    visit(id)
    if (end === null || length.get(id)! > length.get(end)!) end = id
  }
  const chain: string[] = []
  for (let at = end; at !== null; at = via.get(at) ?? null) chain.push(at)
  return chain.reverse()
}

function nodeOf(meta: TaskMeta, viewer: TaskViewer): GraphNode {
  const v = viewer.view(meta)
  return {
    id: v.id,
    short_id: v.short_id,
    title: v.title,
    status: v.status,
    state: v.state,
    priority: v.priority,
    owner: v.owner,
    assignee: v.assignee,
    parent: v.parent,
    tags: v.tags,
    ready: v.ready,
    critical: false,
  }
}

/** The graph of the open items of `snap` (or of all, or of what `scope.roots` reach). */
export function buildTaskGraph(snap: Snapshot, viewer: TaskViewer, scope: GraphScope = {}): TaskGraph {
  const ids = nodeIds(snap, scope)
  const nodes = new Map<string, GraphNode>()
  for (const id of ids) {
    const meta = snap.tasks.get(id)?.meta
    if (meta) nodes.set(id, nodeOf(meta, viewer))
  }
  const present = ids.filter((id) => nodes.has(id))
  // Drawn edges: dependency → dependent, parent → sub-item.
  const drawn: GraphEdge[] = []
  for (const id of present) {
    const n = nodes.get(id)!
    for (const d of snap.tasks.get(id)?.depends_on ?? []) if (nodes.has(d)) drawn.push({from: d, to: id, kind: 'depends', critical: false})
    if (n.parent && nodes.has(n.parent)) drawn.push({from: n.parent, to: id, kind: 'subitem', critical: false})
  }
  const {kept, dropped} = breakCycles(present, drawn)

  // The order work must happen in, among unfinished items: a dependency before
  // its dependent; a parent's dependencies before its sub-items (they wait for
  // them too); sub-items before their parent (they are its work).
  const open = present.filter((id) => !FINISHED.has(nodes.get(id)!.status))
  const openSet = new Set(open)
  const order: Array<{from: string; to: string}> = []
  for (const id of open) {
    const deps = (snap.tasks.get(id)?.depends_on ?? []).filter((d) => openSet.has(d))
    for (const d of deps) order.push({from: d, to: id})
    const parent = nodes.get(id)!.parent
    if (parent && openSet.has(parent)) {
      order.push({from: id, to: parent})
      for (const d of snap.tasks.get(parent)?.depends_on ?? []) if (openSet.has(d) && d !== id) order.push({from: d, to: id})
    }
  }
  const preds = new Map<string, string[]>()
  for (const e of breakCycles(open, order).kept) {
    let list = preds.get(e.to)
    if (!list) preds.set(e.to, (list = []))
    if (!list.includes(e.from)) list.push(e.from)
  }
  const critical = open.length > 0 ? longestChain(open, preds) : []
  const onPath = new Set(critical)
  const steps = new Set<string>()
  for (let i = 1; i < critical.length; i++) steps.add(`${critical[i - 1]}\n${critical[i]}`)
  for (const id of critical) nodes.get(id)!.critical = true
  for (const e of kept) {
    // A sub-item edge is drawn parent → child while the work runs child → parent.
    e.critical = onPath.has(e.from) && onPath.has(e.to) && (steps.has(`${e.from}\n${e.to}`) || steps.has(`${e.to}\n${e.from}`))
  }
  return {
    nodes: present.map((id) => nodes.get(id)!),
    edges: kept,
    critical_path: critical,
    frontier: present.filter((id) => nodes.get(id)!.ready),
    dropped_edges: dropped,
  }
}
