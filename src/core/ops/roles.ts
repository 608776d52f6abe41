/**
 * Roles on a card that feed the inbox: collaborators (`collab add|rm`),
 * subscribers (`watch` / `unwatch`, `unwatch --mute`) and the per-card
 * notify override (`notify ID RULE…`). Each is a set in the task file
 * (absent when empty) that the merge unions by adds and removes. Adding
 * someone who is already there is no change (commit null).
 */
import {UsageError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {type Snapshot, lookup} from '../snapshot'
import {NOTIFY_ROLES, type TaskMeta} from '../task'
import {checkActor} from '../validation'
import {revise} from './revision'

type RoleSet = 'collaborators' | 'subscribers' | 'notify_roles' | 'notify_mute'

function setOf(meta: TaskMeta, key: RoleSet): string[] {
  return meta[key] ?? []
}

/** The new value of an optional set: sorted, undefined when empty (so the key is absent). */
function normalised(values: Iterable<string>): string[] | undefined {
  const out = [...new Set(values)].sort()
  return out.length > 0 ? out : undefined
}

function sameSet(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return (a ?? []).join('\0') === (b ?? []).join('\0')
}

/** A plan that sets some role sets on one card, or no change when they already hold those values. */
function roleChange(meta: TaskMeta, ctx: OpContext, op: string, next: Partial<Record<RoleSet, string[] | undefined>>, trailers: Array<[string, string]>): Plan<{task: TaskMeta}> {
  const changed = (Object.keys(next) as RoleSet[]).some((k) => !sameSet(meta[k], next[k]))
  const subject = {id: meta.id, title: meta.title}
  if (!changed) return {op, subject, changes: [], trailers: [], result: {task: meta}}
  const task = revise(meta, ctx, next)
  return {op, subject, changes: [{kind: 'put-task', meta: task}], trailers, result: {task}}
}

/** `collab add|rm ID ACTOR`. */
export function changeCollaborator(snap: Snapshot, ctx: OpContext, args: {id: string; actor: string; remove?: boolean}): Plan<{task: TaskMeta}> {
  const meta = lookup(snap, args.id)
  const who = checkActor(args.actor, 'collaborator')
  const current = setOf(meta, 'collaborators')
  const next = args.remove ? current.filter((a) => a !== who) : [...current, who]
  return roleChange(meta, ctx, 'collab', {collaborators: normalised(next)}, [['Tasks-Collaborator', `${args.remove ? '-' : '+'}${who}`]])
}

/**
 * `watch ID`: subscribe the actor (and lift a mute of theirs on the card).
 * `unwatch ID`: unsubscribe; with `mute`, also never be told about this card.
 */
export function changeWatch(snap: Snapshot, ctx: OpContext, args: {id: string; watch: boolean; mute?: boolean}): Plan<{task: TaskMeta}> {
  const meta = lookup(snap, args.id)
  const me = ctx.actor
  const subs = setOf(meta, 'subscribers')
  const muted = setOf(meta, 'notify_mute')
  if (args.watch) {
    return roleChange(meta, ctx, 'watch', {subscribers: normalised([...subs, me]), notify_mute: normalised(muted.filter((a) => a !== me))}, [])
  }
  const next: Partial<Record<RoleSet, string[] | undefined>> = {subscribers: normalised(subs.filter((a) => a !== me))}
  if (args.mute) next.notify_mute = normalised([...muted, me])
  return roleChange(meta, ctx, 'unwatch', next, args.mute ? [['Tasks-Mute', me]] : [])
}

const RULE_RE = /^(?:([a-z][a-z0-9_-]{0,63}):)?([a-z]+)$/

/** One per-card rule: `role` or `event:role` (e.g. `comment:owner`); a bad one is a usage error. */
export function checkNotifyRule(rule: string): string {
  const r = rule.trim()
  const m = RULE_RE.exec(r)
  if (!m || !(NOTIFY_ROLES as readonly string[]).includes(m[2]!)) {
    throw new UsageError(`"${rule}" is not a notify rule: use ROLE or EVENT:ROLE, with ROLE one of ${NOTIFY_ROLES.join(', ')} (e.g. comment:owner)`, {rule}, 'bad_notify_rule')
  }
  return r
}

/** `notify ID RULE…` replaces the card's notify rules; `--clear` (no rules) goes back to the list's. */
export function setCardNotify(snap: Snapshot, ctx: OpContext, args: {id: string; rules: string[]}): Plan<{task: TaskMeta}> {
  const meta = lookup(snap, args.id)
  const rules = args.rules.flatMap((r) => r.split(',')).filter((r) => r.trim() !== '').map(checkNotifyRule)
  return roleChange(meta, ctx, 'notify', {notify_roles: normalised(rules)}, [['Tasks-Notify', rules.join(',') || '(list default)']])
}
