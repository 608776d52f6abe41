/**
 * `stale` and `remind`: work that is not moving. Pure.
 *
 * Stale: in-progress items without a change for `olderThan` seconds, and
 * todo items nobody has picked up (ready to start: no unfinished
 * dependency) for as long, counted from the later of their last change and
 * their last dependency's finish (the time they became ready); todo items
 * waiting on dependencies are left out. Blocked items are stale like
 * in-progress ones unless they are parked (`block --on ACTOR`: waiting on
 * someone, `blocked_on`), which are left out: their owner cannot move them.
 * Grouped by owner (a todo item by its assignee, else under nobody).
 *
 * Remind: one digest inbox record per owner listing their stale items, at
 * most once per `remind_every_seconds` (latch: reminders/<owner>.yaml
 * `last_digest`); and an escalation record to a card's creator when its
 * owner has not been seen for `escalate_after_seconds`, once per streak (a
 * streak is the owner and the last_seen it is measured from; latch:
 * reminders/cards/<id>.yaml `streak`), also when the creator is the one
 * running `remind`: the latch is written only with the record. The latches are files on the ref,
 * merged by the later value, so clones that sync agree on what was sent.
 *
 * Operator escalation (issue 33): with an `operator` in config.yaml, a
 * priority 0–1 card still stale after it was listed in
 * `escalate_after_digests` digests of its current stale streak is sent to
 * the operator, once per streak (the streak is the time its staleness counts
 * from; latch: reminders/cards/<id>.yaml `digests`, the times of those
 * digests, merged as a set, and `operator_streak`).
 */
import {isOverdue, notYetScheduled, wokenStatus} from '../dates'
import {type ActorEntry, type InboxRecord, type ReminderLatch, cardLatchPath, ownerLatchPath, recordPath, serialiseLatch, serialiseRecord} from '../inbox'
import {canonicalActor, recordStem} from '../notify'
import type {Change, OpContext, Plan} from '../plan'
import {waitReasons} from '../readiness'
import {type Snapshot, tasksWithStatus} from '../snapshot'
import {ENGINE_ACTOR, type ListConfig, type TaskMeta} from '../task'

const IN_PROGRESS: ReadonlySet<string> = new Set(['in_progress'])
const TODO: ReadonlySet<string> = new Set(['todo', 'deferred'])
const BLOCKED: ReadonlySet<string> = new Set(['blocked'])
/** Priorities at or below this are escalated to the operator (0 and 1). */
export const OPERATOR_PRIORITY = 1

export interface StaleItem {
  id: string
  title: string
  status: string
  owner: string | null
  assignee: string | null
  created_by: string
  updated_at: string
  /** Seconds since the card last changed (a todo card: since it became ready, when that is later). */
  idle_seconds: number
  priority: number
  /** Issue 33: its due date (null: none), and whether it has passed (an overdue item is listed however recently it changed). */
  due: string | null
  overdue: boolean
}

export interface StaleGroup {
  /** The owner (in progress) or assignee (todo); null for todo items nobody is assigned. */
  owner: string | null
  items: StaleItem[]
}

/**
 * When the card's current stale streak began: its last change, or for a
 * todo card the later finish of a dependency (its own or its parent's) that
 * made it ready. An unblocked card is not stale the moment it is ready.
 */
export function staleSince(snap: Snapshot, meta: TaskMeta): string {
  let since = meta.updated_at
  if (meta.status !== 'todo') return since
  const parent = meta.parent ? snap.tasks.get(meta.parent)?.meta : undefined
  for (const dep of [...meta.depends_on, ...(parent?.depends_on ?? [])]) {
    const closed = snap.tasks.get(dep)?.meta?.closed_at
    if (closed && Date.parse(closed) > Date.parse(since)) since = closed
  }
  return since
}

function idle(snap: Snapshot, meta: TaskMeta, now: string): number {
  return Math.max(0, Math.floor((Date.parse(now) - Date.parse(staleSince(snap, meta))) / 1000))
}

function item(snap: Snapshot, meta: TaskMeta, now: string): StaleItem {
  return {
    id: meta.id,
    title: meta.title,
    status: meta.status,
    owner: meta.owner ?? null,
    assignee: meta.assignee ?? null,
    created_by: meta.created_by,
    updated_at: meta.updated_at,
    idle_seconds: idle(snap, meta, now),
    priority: meta.priority,
    due: meta.due ?? null,
    overdue: isOverdue(meta, Date.parse(now)),
  }
}

/** Parked: blocked on someone (`block --on`); stale and remind leave it alone. */
export function isParked(meta: TaskMeta): boolean {
  return meta.status === 'blocked' && meta.blocked_on !== undefined
}

/** Stale items grouped by owner: owners in name order, nobody last; items oldest change first. */
export function staleGroups(snap: Snapshot, now: string, olderThanSeconds: number): StaleGroup[] {
  const groups = new Map<string | null, StaleItem[]>()
  const add = (key: string | null, meta: TaskMeta): void => {
    const list = groups.get(key) ?? []
    list.push(item(snap, meta, now))
    groups.set(key, list)
  }
  // Issue 33: overdue work is listed whatever its idle time (a blocked item too, unless parked on someone: their
  // decision queue is theirs); a deferred item is not stale, nor a todo one before its scheduled date; a deferral
  // whose time has come is todo again (dates.ts).
  const nowMs = Date.parse(now)
  for (const t of tasksWithStatus(snap, IN_PROGRESS)) if (idle(snap, t, now) >= olderThanSeconds || isOverdue(t, nowMs)) add(t.owner ?? null, t)
  // Blocked without naming whom it waits on: its owner is the one to move it. Parked cards are not.
  for (const t of tasksWithStatus(snap, BLOCKED)) if (!isParked(t) && (idle(snap, t, now) >= olderThanSeconds || isOverdue(t, nowMs))) add(t.owner ?? null, t)
  for (const t of tasksWithStatus(snap, TODO)) {
    if (wokenStatus(t, nowMs) !== 'todo') continue
    if (!isOverdue(t, nowMs) && (idle(snap, t, now) < olderThanSeconds || waitReasons(snap, t).length > 0 || notYetScheduled(t, nowMs))) continue
    add(t.assignee ?? null, t)
  }
  const keys = [...groups.keys()].sort((a, b) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1))
  return keys.map((owner) => ({
    owner,
    items: groups.get(owner)!.sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.id < b.id ? -1 : 1)),
  }))
}

export interface RemindInput {
  olderThanSeconds: number
  registry: ReadonlyMap<string, ActorEntry>
  /** Latches by path (reminders/<owner>.yaml, reminders/cards/<id>.yaml) as read at the snapshot. */
  latches: ReadonlyMap<string, ReminderLatch>
}

export interface RemindResult {
  digests: Array<{to: string; tasks: string[]}>
  escalations: Array<{to: string; task: string; owner: string; last_seen: string}>
  /** High-priority cards still stale after `escalate_after_digests` digests, sent to the list's operator. */
  operator_escalations: Array<{to: string; task: string; priority: number; digests: number; stale_since: string}>
  /** Owners whose digest was already sent within the cadence. */
  skipped: Array<{to: string; last_digest: string}>
}

/** Names whose registry entries `remind` reads: every owner, assignee and creator of a stale item (and the operator). */
export function remindNames(groups: readonly StaleGroup[], config?: Pick<ListConfig, 'operator'>): string[] {
  const names = new Set<string>()
  for (const g of groups) {
    if (g.owner) names.add(g.owner)
    for (const i of g.items) names.add(i.created_by)
  }
  if (config?.operator) names.add(config.operator)
  return [...names]
}

/** Whether a stale item counts its digests for the operator: the list has one, and the item is priority 0–1. */
function forOperator(i: StaleItem, config: Pick<ListConfig, 'operator'> | undefined): boolean {
  return !!config?.operator && i.priority <= OPERATOR_PRIORITY
}

/** The latch paths `remind` reads for these groups, given the registry (owners by canonical name) and the list's config. */
export function remindLatchPaths(groups: readonly StaleGroup[], registry: ReadonlyMap<string, ActorEntry>, config?: Pick<ListConfig, 'operator'>): string[] {
  const paths = new Set<string>()
  for (const g of groups) {
    if (g.owner) paths.add(ownerLatchPath(canonicalActor(g.owner, registry)))
    for (const i of g.items) if (i.status === 'in_progress' || forOperator(i, config)) paths.add(cardLatchPath(i.id))
  }
  return [...paths]
}

function hours(seconds: number): string {
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))}m`
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`
  return `${Math.round(seconds / 86_400)}d`
}

export function remind(snap: Snapshot, ctx: OpContext, input: RemindInput): Plan<RemindResult> {
  const cfg = snap.config
  const groups = staleGroups(snap, ctx.now, input.olderThanSeconds)
  const canon = (n: string): string => canonicalActor(n, input.registry)
  const actor = canon(ctx.actor)
  const nowMs = Date.parse(ctx.now)
  const changes: Change[] = []
  const result: RemindResult = {digests: [], escalations: [], operator_escalations: [], skipped: []}
  const ROLE: Record<string, string> = {digest: 'owner', escalation: 'creator', 'operator-escalation': 'operator'}
  const record = (to: string, event: string, tasks: string[], body: string): void => {
    const stem = recordStem(ctx.now, to, event, `${ctx.entropy}\0${tasks.join(',')}`)
    const r: InboxRecord = {id: stem, event, task: tasks[0]!, tasks, actor: ctx.actor, to, created_at: ctx.now, roles: [ROLE[event] ?? 'creator'], body}
    changes.push({kind: 'put-file', path: recordPath(to, stem), content: serialiseRecord(r)})
  }
  // Card latches as this run leaves them, written once each at the end (an escalation and a digest count may share one).
  const cardLatches = new Map<string, ReminderLatch>()
  const cardLatch = (id: string): ReminderLatch => {
    const path = cardLatchPath(id)
    let l = cardLatches.get(path)
    if (!l) cardLatches.set(path, (l = {...input.latches.get(path)}))
    return l
  }
  const operator = cfg.operator ? canon(cfg.operator) : ''
  const sinceOf = new Map<string, string>()
  const streakOf = (id: string): string => {
    let s = sinceOf.get(id)
    if (s === undefined) sinceOf.set(id, (s = staleSince(snap, snap.tasks.get(id)!.meta!)))
    return s
  }
  /** The digests that listed the card during its current stale streak, as the latch holds them. */
  const digestsOf = (id: string, latch: ReminderLatch | undefined): string[] => (latch?.digests ?? []).filter((t) => Date.parse(t) >= Date.parse(streakOf(id)))
  // Digests: one per owner (several names of one actor make one digest).
  const byOwner = new Map<string, StaleItem[]>()
  for (const g of groups) if (g.owner) byOwner.set(canon(g.owner), [...(byOwner.get(canon(g.owner)) ?? []), ...g.items])
  for (const [to, items] of [...byOwner].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (to === actor || to === ENGINE_ACTOR) continue
    const path = ownerLatchPath(to)
    const latch = input.latches.get(path)
    if (latch?.last_digest && nowMs - Date.parse(latch.last_digest) < cfg.remind_every_seconds * 1000) {
      result.skipped.push({to, last_digest: latch.last_digest})
      continue
    }
    const lines = items.map((i) => `- ${i.id} "${i.title.replace(/\s+/g, ' ').slice(0, 120)}" (${i.status}, ${i.overdue ? `OVERDUE: due ${i.due}, ` : ''}no change for ${hours(i.idle_seconds)})`)
    const overdue = items.filter((i) => i.overdue).length
    record(to, 'digest', items.map((i) => i.id), `${items.length} item${items.length === 1 ? '' : 's'} of yours ${items.length === 1 ? 'has' : 'have'} not moved${overdue ? ` or ${overdue === 1 ? 'is' : 'are'} overdue (${overdue} overdue)` : ''}:\n\n${lines.join('\n')}`)
    changes.push({kind: 'put-file', path, content: serialiseLatch({...latch, owner: to, last_digest: ctx.now})})
    result.digests.push({to, tasks: items.map((i) => i.id)})
    // Count the digest for each high-priority card in it (the streak's earlier ones kept, older ones dropped).
    for (const i of items) {
      if (!operator || i.priority > OPERATOR_PRIORITY) continue
      const l = cardLatch(i.id)
      l.task = i.id
      l.digests = [...new Set([...digestsOf(i.id, input.latches.get(cardLatchPath(i.id))), ctx.now])].sort().slice(-MAX_COUNTED_DIGESTS)
    }
  }
  // Escalations: in-progress cards whose owner has not been seen for long enough, once per streak.
  for (const g of groups) {
    for (const i of g.items) {
      if (i.status !== 'in_progress' || !i.owner) continue
      const owner = canon(i.owner)
      const meta = snap.tasks.get(i.id)?.meta
      const lastSeen = input.registry.get(owner)?.last_seen ?? meta?.claimed_at ?? i.updated_at
      if (nowMs - Date.parse(lastSeen) < cfg.escalate_after_seconds * 1000) continue
      const streak = `${owner}@${lastSeen}`
      const path = cardLatchPath(i.id)
      if (input.latches.get(path)?.streak === streak) continue
      const creator = canon(i.created_by)
      Object.assign(cardLatch(i.id), {task: i.id, streak, escalated_at: ctx.now})
      // Nobody to tell: the owner who is gone made the card, or the engine did. The creator running remind
      // (cron or the daemon under their name) is told like anyone else: latching without a record would
      // stop every later run from sending it.
      if (creator === owner || creator === ENGINE_ACTOR) continue
      record(creator, 'escalation', [i.id], `${i.id} "${i.title.replace(/\s+/g, ' ').slice(0, 120)}" is held by ${owner}, who has not been seen since ${lastSeen} (${hours(Math.floor((nowMs - Date.parse(lastSeen)) / 1000))}). Consider taking it over or reassigning it.`)
      result.escalations.push({to: creator, task: i.id, owner, last_seen: lastSeen})
    }
  }
  // The operator: a priority 0-1 card still stale after escalate_after_digests digests (sent by earlier runs) of its
  // current streak, once per streak. Told whoever runs remind (the operator's own cron included), as the creator is.
  if (operator && operator !== ENGINE_ACTOR) {
    for (const g of groups) {
      for (const i of g.items) {
        if (i.priority > OPERATOR_PRIORITY) continue
        const before = input.latches.get(cardLatchPath(i.id))
        const since = streakOf(i.id)
        const counted = digestsOf(i.id, before).filter((t) => t < ctx.now).length
        if (counted < cfg.escalate_after_digests || before?.operator_streak === since) continue
        Object.assign(cardLatch(i.id), {task: i.id, operator_streak: since, operator_escalated_at: ctx.now})
        const who = i.owner ? `held by ${i.owner}` : i.assignee ? `reserved for ${i.assignee}` : 'unassigned'
        record(operator, 'operator-escalation', [i.id], `${i.id} "${i.title.replace(/\s+/g, ' ').slice(0, 120)}" (priority ${i.priority}, ${i.status}, ${who}) has not moved since ${since} (${hours(i.idle_seconds)}), through ${counted} digest${counted === 1 ? '' : 's'}. It needs a decision: reassign it, unblock it, or lower its priority.`)
        result.operator_escalations.push({to: operator, task: i.id, priority: i.priority, digests: counted, stale_since: since})
      }
    }
  }
  for (const [path, latch] of [...cardLatches].sort(([a], [b]) => (a < b ? -1 : 1))) changes.push({kind: 'put-file', path, content: serialiseLatch(latch)})
  const escalated = result.escalations.length + result.operator_escalations.length
  return {op: 'remind', summary: `${result.digests.length} digest${result.digests.length === 1 ? '' : 's'}, ${escalated} escalation${escalated === 1 ? '' : 's'}`, changes, trailers: [], result}
}

/** The most digest times a card latch keeps (the schema's bound). */
const MAX_COUNTED_DIGESTS = 1000
