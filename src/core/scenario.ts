/**
 * Scenarios (issue 33, after graith's): a list whose items were seeded one
 * per member by `tasks scenario start`, and whose completion is derived from
 * the items, never declared. The list's marker is the file `scenario.yaml`
 * at the root of its ref (written once, with the seeds, in one commit): the
 * scenario's name, and per member the task it was given, its seed item and
 * the members it waits for. A list without the file is not a scenario.
 *
 * Pure: the file's text, the member arguments, and the status of a scenario
 * from a snapshot.
 */
import {validateScenario} from '../generated/validators'
import {InvalidError, UsageError} from './errors'
import {serialiseFrontmatter} from './frontmatter'
import type {ListMarker} from './list-marker'
import {descendantIds} from './nesting'
import {derivedState, waitReasons} from './readiness'
import {type Snapshot, keyedId, tablesOf} from './snapshot'
import type {Parsed} from './task-file'
import type {TaskMeta} from './task'
import {checkActor, checkTitle} from './validation'
import {parseYamlStrictly} from './yaml-loader'
import {DEFAULT_CONFIG} from './task'

/** The marker of a scenario list, at the root of its ref. */
export const SCENARIO_PATH = 'scenario.yaml'

export interface ScenarioMember {
  /** The member: an actor name, the seed's assignee. */
  name: string
  /** The task it was given: its seed item's title at start. */
  task: string
  /** The seed item's id (from the key `scenario:<name>`, so the same everywhere). */
  item: string
  /** The members whose seeds its seed depends on, sorted. */
  depends_on: string[]
}

export interface ScenarioFile {
  scenario: string
  /** Sorted by name. */
  members: ScenarioMember[]
}

/** The idempotency key of a member's seed item: a retry finds the same id (core/ops/add.ts). */
export function seedKey(member: string): string {
  return `scenario:${member}`
}

/** The id a member's seed gets on list `list` (as `add --key scenario:<member>` would make it). */
export function seedId(snap: Snapshot, member: string): string {
  return keyedId(snap, seedKey(member))
}

/** Deterministic text: the same scenario started anywhere writes the same bytes. */
export function serialiseScenario(s: ScenarioFile): string {
  const members = s.members.map((m) => ({name: m.name, task: m.task, item: m.item, depends_on: m.depends_on}))
  const text = serialiseFrontmatter([['scenario', s.scenario], ['members', members]], '')
  return text.slice('---\n'.length, -'---\n'.length)
}

export function parseScenario(text: string): Parsed<ScenarioFile> {
  const parsed = parseYamlStrictly(text)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  if (!validateScenario(parsed.value)) {
    const e = validateScenario.errors?.[0]
    return {ok: false, error: `${SCENARIO_PATH}${e?.instancePath ?? ''} ${e?.message ?? 'is not valid'}`}
  }
  const file = parsed.value as ScenarioFile
  const names = new Set(file.members.map((m) => m.name))
  if (names.size !== file.members.length) return {ok: false, error: `${SCENARIO_PATH} names a member twice`}
  for (const m of file.members) {
    const stray = m.depends_on.find((d) => !names.has(d) || d === m.name)
    if (stray !== undefined) return {ok: false, error: `${SCENARIO_PATH}: member "${m.name}" depends on "${stray}", ${stray === m.name ? 'itself' : 'not a member'}`}
  }
  return {ok: true, value: file}
}

/** scenario.yaml as a list's marker (core/list-marker.ts): it names its scenario, the list it is on. */
export const SCENARIO_MARKER: ListMarker<ScenarioFile> = {kind: 'scenario', path: SCENARIO_PATH, parse: parseScenario, listOf: (f) => f.scenario}

// ------------------------------------------------------------------ the command's arguments

/** Characters a member name cannot hold: `=` separates it from its task, `:` from its upstreams, `,` upstreams. */
const MEMBER_SEPARATORS = /[=:,]/

function checkMemberName(name: string, input: string): string {
  const n = name.trim()
  if (n === '' || MEMBER_SEPARATORS.test(n)) {
    throw new UsageError(`"${input}": a member is a name without = : or , (an actor, e.g. alice or agent-7)`, {member: input}, 'bad_member')
  }
  return checkActor(n, 'member')
}

/**
 * The scenario `--member M=TASK…` and `--depends M:UPSTREAM[,UPSTREAM…]…`
 * ask for, without the seed ids: members sorted by name, each with its
 * upstreams sorted (repeats fold). Usage errors (exit 2) for a malformed
 * argument, a member named twice, a dependency on a non-member; invalid
 * (exit 5) for a member waiting on itself or a cycle among members.
 */
export function scenarioMembers(memberArgs: readonly string[], dependsArgs: readonly string[]): Array<Omit<ScenarioMember, 'item'>> {
  if (memberArgs.length === 0) throw new UsageError('a scenario needs at least one --member NAME=TASK', {}, 'no_members')
  const members = new Map<string, {name: string; task: string; depends_on: Set<string>}>()
  for (const arg of memberArgs) {
    const eq = arg.indexOf('=')
    if (eq <= 0) throw new UsageError(`--member "${arg}": write NAME=TASK (the member, then the task it is given)`, {member: arg}, 'bad_member')
    const name = checkMemberName(arg.slice(0, eq), arg)
    const task = checkTitle(arg.slice(eq + 1), DEFAULT_CONFIG)
    if (members.has(name)) throw new UsageError(`member "${name}" is named twice: one --member each`, {member: name}, 'duplicate_member')
    members.set(name, {name, task, depends_on: new Set()})
  }
  for (const arg of dependsArgs) {
    const colon = arg.indexOf(':')
    if (colon <= 0 || colon === arg.length - 1) throw new UsageError(`--depends "${arg}": write MEMBER:UPSTREAM (MEMBER's item waits for UPSTREAM's)`, {depends: arg}, 'bad_member')
    const name = arg.slice(0, colon).trim()
    const m = members.get(name)
    if (!m) throw new UsageError(`--depends "${arg}": "${name}" is not a member (give it a --member ${name}=TASK)`, {depends: arg, member: name}, 'unknown_member')
    for (const up of arg.slice(colon + 1).split(',').map((u) => u.trim()).filter(Boolean)) {
      if (!members.has(up)) throw new UsageError(`--depends "${arg}": "${up}" is not a member (give it a --member ${up}=TASK)`, {depends: arg, member: up}, 'unknown_member')
      if (up === name) throw new InvalidError('self_dependency', `--depends "${arg}": member "${name}" cannot wait for itself`, {depends: arg, member: name})
      m.depends_on.add(up)
    }
  }
  const out = [...members.values()].map((m) => ({name: m.name, task: m.task, depends_on: [...m.depends_on].sort()})).sort((a, b) => (a.name < b.name ? -1 : 1))
  memberOrder(out)
  return out
}

/**
 * The members in an order where each comes after those it waits for
 * (seeds are added in it, so each one's dependencies exist); a cycle is
 * refused with the same code as a dependency cycle between items.
 */
export function memberOrder<M extends {name: string; depends_on: readonly string[]}>(members: readonly M[]): M[] {
  const byName = new Map(members.map((m) => [m.name, m]))
  const state = new Map<string, 1 | 2>()
  const out: M[] = []
  const visit = (m: M, path: string[]): void => {
    const s = state.get(m.name)
    if (s === 2) return
    if (s === 1) {
      const loop = [...path.slice(path.indexOf(m.name)), m.name]
      throw new InvalidError('dependency_cycle', `the members' dependencies make a cycle: ${loop.join(' → ')}`, {cycle: loop})
    }
    state.set(m.name, 1)
    for (const d of m.depends_on) visit(byName.get(d)!, [...path, m.name])
    state.set(m.name, 2)
    out.push(m)
  }
  for (const m of members) visit(m, [])
  return out
}

/** What differs between a scenario on the list and the one asked for again (member names; empty: the same). */
export function scenarioDifferences(have: ScenarioFile, want: ReadonlyArray<Omit<ScenarioMember, 'item'>>): string[] {
  const out: string[] = []
  const haveBy = new Map(have.members.map((m) => [m.name, m]))
  const wantBy = new Map(want.map((m) => [m.name, m]))
  for (const m of want) {
    const h = haveBy.get(m.name)
    if (!h) out.push(`member "${m.name}" is new`)
    else {
      if (h.task !== m.task) out.push(`member "${m.name}" was given "${h.task}", not "${m.task}"`)
      if (h.depends_on.join(',') !== m.depends_on.join(',')) out.push(`member "${m.name}" waits for [${h.depends_on.join(', ')}], not [${m.depends_on.join(', ')}]`)
    }
  }
  for (const h of have.members) if (!wantBy.has(h.name)) out.push(`member "${h.name}" is left out`)
  return out
}

// ------------------------------------------------------------------ status

export interface MemberStatus {
  member: string
  /** The member's seed item, and whether it is still on the list. */
  item: string
  title: string | null
  /** Whom the seed is assigned to now (a reassigned seed still counts for its member). */
  assignee: string | null
  /** The member's items: its seed, the seed's sub-items (at any depth), and every other item assigned to it. Cancelled ones are left out. */
  done: number
  total: number
  /**
   * `done` once every item is; else the seed's state as its member sees it
   * (ready, waiting, in_progress, stale, blocked, …), or in_progress/todo
   * from its other items once the seed is finished; `missing` when the seed
   * is gone and nothing else is tracked.
   */
  state: string
  /** Tracked (has items) and every one done. */
  complete: boolean
  tracked: boolean
  /** The members whose items its seed waits for (directly or through its parent); an item no member holds is named by its id. */
  waiting_on: string[]
}

export interface ScenarioStatus {
  scenario: string
  members: MemberStatus[]
  /** Over every member's items, each counted once. */
  done: number
  total: number
  /** Every tracked member complete (and at least one tracked). */
  complete: boolean
}

/** The status of a scenario on `snap`, its members' states as each member sees its own work. */
export function scenarioStatus(snap: Snapshot, file: ScenarioFile, now: string): ScenarioStatus {
  const seedOwner = new Map(file.members.map((m) => [m.item, m.name]))
  const members = new Set(file.members.map((m) => m.name))
  // Items assigned to a member, beyond its seed's tree.
  const assigned = new Map<string, string[]>()
  for (const id of tablesOf(snap).sortedIds()) {
    const a = snap.tasks.get(id)?.meta?.assignee
    if (a !== undefined && members.has(a)) assigned.set(a, [...(assigned.get(a) ?? []), id])
  }
  const counted = new Set<string>()
  let done = 0
  let total = 0
  const rows: MemberStatus[] = file.members.map((m) => {
    const seed = snap.tasks.get(m.item)?.meta
    const ids = new Set<string>([...(seed ? [m.item, ...descendantIds(snap, m.item)] : []), ...(assigned.get(m.name) ?? [])])
    const metas = [...ids].flatMap((id) => snap.tasks.get(id)?.meta ?? []).filter((t) => t.status !== 'cancelled')
    const mine = {done: metas.filter((t) => t.status === 'done').length, total: metas.length}
    for (const t of metas) {
      if (counted.has(t.id)) continue
      counted.add(t.id)
      total++
      if (t.status === 'done') done++
    }
    const complete = mine.total > 0 && mine.done === mine.total
    return {
      member: m.name,
      item: m.item,
      title: seed?.title ?? null,
      assignee: seed?.assignee ?? null,
      done: mine.done,
      total: mine.total,
      state: memberState(snap, seed, metas, complete, m.name, now),
      complete,
      tracked: mine.total > 0,
      waiting_on: seed ? waitingOn(snap, seed, seedOwner, members) : [],
    }
  })
  const tracked = rows.filter((r) => r.tracked)
  return {scenario: file.scenario, members: rows, done, total, complete: tracked.length > 0 && tracked.every((r) => r.complete)}
}

function memberState(snap: Snapshot, seed: TaskMeta | undefined, metas: readonly TaskMeta[], complete: boolean, member: string, now: string): string {
  if (complete) return 'done'
  if (seed && seed.status !== 'done' && seed.status !== 'cancelled') return derivedState(snap, seed, member, now).state
  if (metas.length === 0) return seed ? seed.status : 'missing'
  return metas.some((t) => t.status === 'in_progress') ? 'in_progress' : metas.some((t) => t.status === 'blocked') ? 'blocked' : 'todo'
}

/** Who the seed waits for, sorted: the member of each unfinished item it waits on (the member whose seed, or whose seed's sub-item, it is; else the member it is assigned to), else the item's id. */
function waitingOn(snap: Snapshot, seed: TaskMeta, seedOwner: ReadonlyMap<string, string>, members: ReadonlySet<string>): string[] {
  const out: string[] = []
  for (const r of waitReasons(snap, seed)) {
    const assignee = snap.tasks.get(r.id)?.meta?.assignee
    const who = ownerOfItem(snap, r.id, seedOwner) ?? (assignee !== undefined && members.has(assignee) ? assignee : r.id)
    if (!out.includes(who)) out.push(who)
  }
  return out.sort()
}

/** The member whose seed `id` is under (a sub-item of a member's seed). */
function ownerOfItem(snap: Snapshot, id: string, seedOwner: ReadonlyMap<string, string>): string | undefined {
  let at: string | undefined = id
  for (let depth = 0; at !== undefined && depth < 16; depth++) {
    const m = seedOwner.get(at)
    if (m !== undefined) return m
    at = snap.tasks.get(at)?.parent
  }
  return undefined
}
