/**
 * `stale` and `remind`: work that is not moving. Pure.
 *
 * Stale: in-progress items without a change for `olderThan` seconds, and
 * todo items nobody has picked up (ready to start: no unfinished
 * dependency) for as long; blocked items are left out (they wait on what
 * their note names), as are todo items waiting on dependencies. Grouped by
 * owner (a todo item by its assignee, else under nobody).
 *
 * Remind: one digest inbox record per owner listing their stale items, at
 * most once per `remind_every_seconds` (latch: reminders/<owner>.yaml
 * `last_digest`); and an escalation record to a card's creator when its
 * owner has not been seen for `escalate_after_seconds`, once per streak (a
 * streak is the owner and the last_seen it is measured from; latch:
 * reminders/cards/<id>.yaml `streak`), also when the creator is the one
 * running `remind`: the latch is written only with the record. The latches are files on the ref,
 * merged by the later value, so clones that sync agree on what was sent.
 */
import {isOverdue, notYetScheduled, wokenStatus} from '../dates'
import {type ActorEntry, type InboxRecord, type ReminderLatch, cardLatchPath, ownerLatchPath, recordPath, serialiseLatch, serialiseRecord} from '../inbox'
import {canonicalActor, recordStem} from '../notify'
import type {Change, OpContext, Plan} from '../plan'
import {waitReasons} from '../readiness'
import {type Snapshot, tasksWithStatus} from '../snapshot'
import {ENGINE_ACTOR, type TaskMeta} from '../task'

const IN_PROGRESS: ReadonlySet<string> = new Set(['in_progress'])
const TODO: ReadonlySet<string> = new Set(['todo', 'deferred'])
const BLOCKED: ReadonlySet<string> = new Set(['blocked'])

export interface StaleItem {
  id: string
  title: string
  status: string
  owner: string | null
  assignee: string | null
  created_by: string
  updated_at: string
  /** Seconds since the card last changed. */
  idle_seconds: number
  /** Issue 33: its due date (null: none), and whether it has passed (an overdue item is listed however recently it changed). */
  due: string | null
  overdue: boolean
}

export interface StaleGroup {
  /** The owner (in progress) or assignee (todo); null for todo items nobody is assigned. */
  owner: string | null
  items: StaleItem[]
}

function idle(meta: TaskMeta, now: string): number {
  return Math.max(0, Math.floor((Date.parse(now) - Date.parse(meta.updated_at)) / 1000))
}

function item(meta: TaskMeta, now: string): StaleItem {
  return {
    id: meta.id,
    title: meta.title,
    status: meta.status,
    owner: meta.owner ?? null,
    assignee: meta.assignee ?? null,
    created_by: meta.created_by,
    updated_at: meta.updated_at,
    idle_seconds: idle(meta, now),
    due: meta.due ?? null,
    overdue: isOverdue(meta, Date.parse(now)),
  }
}

/** Stale items grouped by owner: owners in name order, nobody last; items oldest change first. */
export function staleGroups(snap: Snapshot, now: string, olderThanSeconds: number): StaleGroup[] {
  const groups = new Map<string | null, StaleItem[]>()
  const add = (key: string | null, meta: TaskMeta): void => {
    const list = groups.get(key) ?? []
    list.push(item(meta, now))
    groups.set(key, list)
  }
  // Issue 33: overdue work is listed whatever its idle time (a blocked item too); a deferred item is not stale, nor a
  // todo one before its scheduled date; a deferral whose time has come is todo again (dates.ts).
  const nowMs = Date.parse(now)
  for (const t of tasksWithStatus(snap, IN_PROGRESS)) if (idle(t, now) >= olderThanSeconds || isOverdue(t, nowMs)) add(t.owner ?? null, t)
  for (const t of tasksWithStatus(snap, BLOCKED)) if (isOverdue(t, nowMs)) add(t.owner ?? null, t)
  for (const t of tasksWithStatus(snap, TODO)) {
    if (wokenStatus(t, nowMs) !== 'todo') continue
    if (!isOverdue(t, nowMs) && (idle(t, now) < olderThanSeconds || waitReasons(snap, t).length > 0 || notYetScheduled(t, nowMs))) continue
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
  /** Owners whose digest was already sent within the cadence. */
  skipped: Array<{to: string; last_digest: string}>
}

/** Names whose registry entries `remind` reads: every owner, assignee and creator of a stale item. */
export function remindNames(groups: readonly StaleGroup[]): string[] {
  const names = new Set<string>()
  for (const g of groups) {
    if (g.owner) names.add(g.owner)
    for (const i of g.items) names.add(i.created_by)
  }
  return [...names]
}

/** The latch paths `remind` reads for these groups, given the registry (owners by canonical name). */
export function remindLatchPaths(groups: readonly StaleGroup[], registry: ReadonlyMap<string, ActorEntry>): string[] {
  const paths = new Set<string>()
  for (const g of groups) {
    if (g.owner) paths.add(ownerLatchPath(canonicalActor(g.owner, registry)))
    for (const i of g.items) if (i.status === 'in_progress') paths.add(cardLatchPath(i.id))
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
  const result: RemindResult = {digests: [], escalations: [], skipped: []}
  const record = (to: string, event: string, tasks: string[], body: string): void => {
    const stem = recordStem(ctx.now, to, event, `${ctx.entropy}\0${tasks.join(',')}`)
    const r: InboxRecord = {id: stem, event, task: tasks[0]!, tasks, actor: ctx.actor, to, created_at: ctx.now, roles: [event === 'digest' ? 'owner' : 'creator'], body}
    changes.push({kind: 'put-file', path: recordPath(to, stem), content: serialiseRecord(r)})
  }
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
      changes.push({kind: 'put-file', path, content: serialiseLatch({task: i.id, streak, escalated_at: ctx.now})})
      // Nobody to tell: the owner who is gone made the card, or the engine did. The creator running remind
      // (cron or the daemon under their name) is told like anyone else: latching without a record would
      // stop every later run from sending it.
      if (creator === owner || creator === ENGINE_ACTOR) continue
      record(creator, 'escalation', [i.id], `${i.id} "${i.title.replace(/\s+/g, ' ').slice(0, 120)}" is held by ${owner}, who has not been seen since ${lastSeen} (${hours(Math.floor((nowMs - Date.parse(lastSeen)) / 1000))}). Consider taking it over or reassigning it.`)
      result.escalations.push({to: creator, task: i.id, owner, last_seen: lastSeen})
    }
  }
  return {op: 'remind', summary: `${result.digests.length} digest${result.digests.length === 1 ? '' : 's'}, ${result.escalations.length} escalation${result.escalations.length === 1 ? '' : 's'}`, changes, trailers: [], result}
}
