/**
 * Who hears about a change: the one recipient rule, applied to every plan
 * by the transaction (app/inbox-hook.ts) before its commit is written, so
 * each mutation writes its inbox records in the same commit. It reads only
 * the plan, the cards it touches (before and after) and the registry
 * entries of the names on those cards, never the inbox itself, so its cost
 * does not grow with the list or with anyone's unread records.
 *
 * Keyed by the plan's op name (its Tasks-Op) and generic over changes: an op
 * this module has never heard of gets records from the `*` rule. Three
 * layers, most specific wins:
 *   1. the list's config: roles per event (config.yaml `notify`, over NOTIFY_DEFAULTS);
 *   2. the actor's registry entry: `mute` drops an event, `watch` adds it on
 *      cards where they hold any role;
 *   3. the card: `notify_roles` replaces the role list, `subscribers` adds
 *      people, `notify_mute` silences someone on this card whatever else says.
 * The actor is never a recipient (nor the merge's own identity). Names are
 * folded through aliases first, so one person known by several names gets
 * one record.
 */
import {createHash} from 'node:crypto'
import {compactTimestamp} from './ops/comment'
import type {Change, OpContext, Plan} from './plan'
import type {Snapshot} from './snapshot'
import {unblockedIn} from './unblock'
import {ENGINE_ACTOR, NOTIFY_DEFAULTS, type ListConfig, type TaskMeta} from './task'
import {type ActorEntry, type InboxRecord, actorPath, recordPath, serialiseActor, serialiseRecord} from './inbox'

/** Registry entries by the name they are stored under (only the names asked for). */
export type Registry = ReadonlyMap<string, ActorEntry>

/** A mutation refreshes its actor's last_seen when it is older than this (keeps the registry file from changing on every command). */
export const LAST_SEEN_GRANULARITY_MS = 60_000

/** The card as it was and as the plan leaves it (either may be missing: created, removed). */
interface Touched {
  id: string
  before?: TaskMeta
  after?: TaskMeta
  comment?: string
}

const TASK_PATH_RE = /^tasks\/[^/]+\/([^/]+)\//

/** The cards a plan touches, in the order it first touches them. */
function touchedCards(plan: Plan<unknown>, snap: Snapshot): Touched[] {
  const byId = new Map<string, Touched>()
  const get = (id: string): Touched => {
    let t = byId.get(id)
    if (!t) {
      const meta = snap.tasks.get(id)?.meta
      t = {id, before: meta, after: meta}
      byId.set(id, t)
    }
    return t
  }
  // An item only bumped because the plan finished its last dependency (core/unblock.ts) is not what the op did to anyone.
  const bumped = new Set(unblockedIn(plan.trailers ?? []))
  for (const c of plan.changes) {
    if (c.kind === 'put-task' && bumped.has(c.meta.id) && !byId.has(c.meta.id)) continue
    if (c.kind === 'put-task') get(c.meta.id).after = c.meta
    else if (c.kind === 'delete-task') get(c.id).after = undefined
    else if (c.kind === 'add-comment') get(c.comment.task).comment ??= c.comment.body
    else if (c.kind === 'put-check') get(c.check.task)
    else {
      const m = TASK_PATH_RE.exec(c.path)
      if (m) get(m[1]!)
    }
  }
  return [...byId.values()]
}

/** Names holding `role` on a card version. */
function holders(meta: TaskMeta | undefined, role: string): string[] {
  if (!meta) return []
  switch (role) {
    case 'owner':
      return meta.owner ? [meta.owner] : []
    case 'assignee':
      return meta.assignee ? [meta.assignee] : []
    case 'creator':
      return [meta.created_by]
    case 'collaborators':
      return meta.collaborators ?? []
    case 'subscribers':
      return meta.subscribers ?? []
    default:
      return []
  }
}

const ALL_ROLES = ['owner', 'assignee', 'creator', 'collaborators', 'subscribers']

/** The roles the list's config names for `event` (over the built-in defaults). */
export function configRoles(config: ListConfig, event: string): readonly string[] {
  const rules = {...NOTIFY_DEFAULTS, ...(config.notify ?? {})}
  return rules[event] ?? rules['*'] ?? []
}

/** Layer 3's role list: `event:role` entries for this event, else plain `role` entries, else null (use the config). */
export function cardRoles(meta: TaskMeta | undefined, event: string): string[] | null {
  const entries = meta?.notify_roles ?? []
  if (entries.length === 0) return null
  const forEvent = entries.filter((e) => e.startsWith(`${event}:`)).map((e) => e.slice(event.length + 1))
  if (forEvent.length > 0) return forEvent
  const plain = entries.filter((e) => !e.includes(':'))
  return plain.length > 0 ? plain : null
}

/** Every name the rule may need a registry entry for: the actor and everyone on the touched cards. */
export function namesToResolve(plan: Plan<unknown>, snap: Snapshot, ctx: OpContext): string[] {
  const names = new Set<string>([ctx.actor])
  for (const t of touchedCards(plan, snap)) {
    for (const meta of [t.before, t.after]) {
      for (const role of ALL_ROLES) for (const n of holders(meta, role)) names.add(n)
      for (const n of meta?.notify_mute ?? []) names.add(n)
    }
  }
  return [...names]
}

/** The canonical actor for a name: the target of its alias entry, else the name itself. */
export function canonicalActor(name: string, registry: Registry): string {
  return registry.get(name)?.alias_of ?? name
}

export interface Recipient {
  to: string
  tasks: string[]
  roles: string[]
}

/**
 * Who gets a record for this plan, with the cards and the reasons (roles,
 * `watch`), in a stable order. Pure: the same plan, snapshot and registry
 * give the same recipients.
 */
export function recipientsOf(plan: Plan<unknown>, snap: Snapshot, ctx: OpContext, registry: Registry, cards: readonly Touched[] = touchedCards(plan, snap)): Recipient[] {
  const event = plan.op
  const actor = canonicalActor(ctx.actor, registry)
  const out = new Map<string, {tasks: string[]; roles: Set<string>}>()
  const canon = (n: string): string => canonicalActor(n, registry)
  for (const card of cards) {
    const versions = [card.before, card.after]
    const roles = cardRoles(card.after ?? card.before, event) ?? configRoles(snap.config, event)
    const here = new Map<string, Set<string>>()
    const add = (name: string, why: string): void => {
      const c = canon(name)
      const set = here.get(c) ?? new Set<string>()
      set.add(why)
      here.set(c, set)
    }
    for (const role of roles) for (const meta of versions) for (const n of holders(meta, role)) add(n, role)
    // Layer 2: each person on the card, by their own preferences.
    const onCard = new Set<string>()
    for (const role of ALL_ROLES) for (const meta of versions) for (const n of holders(meta, role)) onCard.add(canon(n))
    for (const person of onCard) {
      const prefs = registry.get(person)
      if (!prefs) continue
      if (prefs.watch?.includes(event) || prefs.watch?.includes('*')) {
        const set = here.get(person) ?? new Set<string>()
        set.add('watch')
        here.set(person, set)
      }
      if (prefs.mute?.includes(event) || prefs.mute?.includes('*')) here.delete(person)
    }
    // Layer 3: the card's own mutes beat everything.
    for (const meta of versions) for (const n of meta?.notify_mute ?? []) here.delete(canon(n))
    here.delete(actor)
    here.delete(ENGINE_ACTOR)
    for (const [to, why] of here) {
      const entry = out.get(to) ?? {tasks: [], roles: new Set<string>()}
      // Each card comes once (touchedCards): no search of the list (an import names one person on 100,000 cards).
      entry.tasks.push(card.id)
      for (const w of why) entry.roles.add(w)
      out.set(to, entry)
    }
  }
  return [...out.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([to, e]) => ({to, tasks: e.tasks, roles: [...e.roles].sort()}))
}

const VERBS: Record<string, string> = {
  add: 'added',
  edit: 'edited',
  claim: 'claimed',
  done: 'finished',
  block: 'blocked',
  reopen: 'reopened',
  cancel: 'cancelled',
  release: 'released',
  assign: 'assigned',
  comment: 'commented on',
  deps: 'changed the dependencies of',
  rm: 'removed',
  restore: 'restored',
  undo: 'undid a change to',
  collab: 'changed the collaborators of',
  takeover: 'took over',
  // issue 33
  defer: 'deferred',
  fail: 'marked as failed',
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** The short text of a record: who did what to which card, and the gist (a comment's start, the new state). */
export function renderRecordBody(plan: Plan<unknown>, snap: Snapshot, ctx: OpContext, tasks: readonly string[], touched: readonly Touched[] = touchedCards(plan, snap)): string {
  const wanted = new Set(tasks)
  const cards = touched.filter((t) => wanted.has(t.id))
  const verb = VERBS[plan.op] ?? `${plan.op}:`
  const first = cards[0]!
  const meta = first.after ?? first.before
  const title = meta ? ` "${oneLine(meta.title, 120)}"` : ''
  let line = cards.length > 1 ? `${ctx.actor} ${verb} ${cards.length} cards: ${cards.map((c) => c.id).slice(0, 10).join(', ')}${cards.length > 10 ? ', …' : ''}` : `${ctx.actor} ${verb} ${first.id}${title}`
  const details: string[] = []
  if (cards.length === 1) {
    const before = first.before
    const after = first.after
    if (after && before && after.status !== before.status) details.push(`status: ${before.status} → ${after.status}`)
    if (after && after.assignee !== before?.assignee) details.push(after.assignee ? `assignee: ${after.assignee}` : 'assignee: (none)')
    if (after?.block_note && after.block_note !== before?.block_note) details.push(`note: ${oneLine(after.block_note, 200)}`)
    if (plan.op === 'takeover' && before?.owner && after?.owner !== before.owner) {
      // A takeover is only ever of a live claim (ops/claim.ts, takeoverTask): say so, and why, to the displaced owner.
      const reason = plan.trailers.find(([k]) => k === 'Tasks-Reason')?.[1]
      details.push(`${before.owner}'s claim was taken over while it was live (lease until ${before.lease_expires ?? 'none'}); epoch ${before.epoch} → ${after?.epoch ?? '?'}: stop working on it, your changes to it will be refused`)
      if (reason !== undefined) details.push(`reason: ${oneLine(reason, 280)}`)
    }
    if (first.comment) details.push(`> ${oneLine(first.comment, 280)}`)
  }
  if (details.length > 0) line += `\n\n${details.join('\n')}`
  return line
}

/** A record's file stem: sorts by time, unique per recipient and commit. */
export function recordStem(now: string, to: string, event: string, entropy: string): string {
  return `${compactTimestamp(now)}-${createHash('sha256').update(`${to}\0${event}\0${now}\0${entropy}`).digest('hex').slice(0, 8)}`
}

/**
 * The changes to add to a plan: one inbox record per recipient, and the
 * actor's last_seen when it is older than LAST_SEEN_GRANULARITY_MS (in the
 * canonical entry; left alone when the plan writes that entry itself).
 */
export function inboxChanges(plan: Plan<unknown>, snap: Snapshot, ctx: OpContext, registry: Registry): Change[] {
  const changes: Change[] = []
  // Worked out once for all recipients: once each was linear in the cards per recipient, quadratic for an import.
  const touched = touchedCards(plan, snap)
  for (const r of recipientsOf(plan, snap, ctx, registry, touched)) {
    const stem = recordStem(ctx.now, r.to, plan.op, ctx.entropy)
    const record: InboxRecord = {
      id: stem,
      event: plan.op,
      task: r.tasks[0]!,
      tasks: r.tasks,
      actor: ctx.actor,
      to: r.to,
      created_at: ctx.now,
      roles: r.roles,
      body: renderRecordBody(plan, snap, ctx, r.tasks, touched),
    }
    changes.push({kind: 'put-file', path: recordPath(r.to, stem), content: serialiseRecord(record)})
  }
  const seen = lastSeenChange(plan.changes, ctx.actor, ctx.now, registry)
  if (seen) changes.push(seen)
  return changes
}

/** The put-file that moves an actor's last_seen to `now`, or null when it is recent enough or the changes already write that entry. */
export function lastSeenChange(existing: readonly Change[], name: string, now: string, registry: Registry, granularityMs = LAST_SEEN_GRANULARITY_MS): Change | null {
  if (name === ENGINE_ACTOR) return null
  const actor = canonicalActor(name, registry)
  const path = actorPath(actor)
  if (existing.some((c) => (c.kind === 'put-file' || c.kind === 'delete-file') && c.path === path)) return null
  const entry = registry.get(actor)
  if (entry?.last_seen && Date.parse(now) - Date.parse(entry.last_seen) < granularityMs) return null
  if (entry?.last_seen && entry.last_seen > now) return null
  return {kind: 'put-file', path, content: serialiseActor({...(entry ?? {id: actor}), id: actor, last_seen: now})}
}
