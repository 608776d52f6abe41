/**
 * What `tasks verify` judges, as data and pure functions (no I/O): which
 * file kinds exist on the ref and how each is checked, and which status
 * transitions are legal for whom. docs/verify.md explains the rules; to
 * teach the guard a new file kind or op, add a row here.
 */
import {claimIsLive} from '../core/readiness'
import {ENGINE_ACTOR, type ListConfig, type Status, type TaskMeta} from '../core/task'

/** How a path is checked. `null`: a kind this version knows of but cannot judge yet (reported, accepted). */
export type FileCheck = 'meta' | 'config' | 'task' | 'comment' | null

export interface FileKind {
  kind: string
  pattern: RegExp
  check: FileCheck
  /** Why a kind with no check is accepted as it is. */
  note?: string
}

/** Every path on the ref, first match wins; a path matching none is `unknown` and accepted (reported). */
export const FILE_KINDS: readonly FileKind[] = [
  {kind: 'meta', pattern: /^meta\.yaml$/, check: 'meta'},
  {kind: 'config', pattern: /^config\.yaml$/, check: 'config'},
  {kind: 'task', pattern: /^tasks\/[0-9a-f]{2}\/tsk-[0-9a-z]+\/task\.md$/, check: 'task'},
  {kind: 'comment', pattern: /^tasks\/[0-9a-f]{2}\/tsk-[0-9a-z]+\/comments\/[^/]+\.md$/, check: 'comment'},
  {kind: 'check', pattern: /^tasks\/[0-9a-f]{2}\/tsk-[0-9a-z]+\/checks\//, check: null, note: 'check files have no schema in this version'},
  {kind: 'actor', pattern: /^actors\//, check: null, note: 'actor files have no schema in this version'},
  {kind: 'inbox', pattern: /^inbox\/[^/]+\//, check: null, note: 'inbox records have no schema in this version'},
]

export function fileKindOf(path: string): FileKind {
  return FILE_KINDS.find((k) => k.pattern.test(path)) ?? {kind: 'unknown', pattern: /^/, check: null, note: 'not a file kind this version knows'}
}

/**
 * Who may make a status change:
 * - `taker`: the actor takes the item: the new owner must be the actor;
 * - `holder`: the current holder, or anyone once the holder's lease has
 *   expired, or anyone with a recorded override (Tasks-Override);
 * - `anyone`.
 */
export type Who = 'taker' | 'holder' | 'anyone'

export interface Transition {
  from: Status
  to: Status
  who: Who
}

/** The state machine of docs/model.md as rows. A status change not listed is illegal. */
export const TRANSITIONS: readonly Transition[] = [
  {from: 'todo', to: 'in_progress', who: 'taker'},
  {from: 'todo', to: 'blocked', who: 'taker'},
  {from: 'todo', to: 'done', who: 'taker'},
  {from: 'todo', to: 'cancelled', who: 'anyone'},
  {from: 'in_progress', to: 'blocked', who: 'holder'},
  {from: 'in_progress', to: 'done', who: 'holder'},
  {from: 'in_progress', to: 'todo', who: 'holder'},
  {from: 'in_progress', to: 'cancelled', who: 'holder'},
  {from: 'blocked', to: 'in_progress', who: 'holder'},
  {from: 'blocked', to: 'done', who: 'holder'},
  {from: 'blocked', to: 'todo', who: 'holder'},
  {from: 'blocked', to: 'cancelled', who: 'holder'},
  {from: 'done', to: 'todo', who: 'anyone'},
]

/** Fields that make up a claim: changing them without a status change is the holder's (heartbeat) or a takeover. */
const CLAIM_FIELDS = ['owner', 'epoch', 'claimed_at', 'lease_expires', 'claim_epochs'] as const

export interface CommitFacts {
  /** The acting identity: the Actor trailer, else the author name. */
  actor: string
  /** Tasks-Op trailer ('' when none). */
  op: string
  /** Committer time, ISO-8601 UTC: when lease expiry is judged. */
  time: string
  /** Tasks-Override trailer, when present. */
  override: string | null
}

export interface Refusal {
  rule: string
  message: string
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** Ops whose changes are made by the tool itself on the actor's behalf (doctor's repairs, a restore). */
const ENGINE_OPS = new Set(['doctor', 'sync'])

/**
 * The refusals for one card's change in a one-parent commit: `before`
 * undefined is a creation, `after` undefined a removal (judged elsewhere).
 * `config` is the list's config before the commit.
 */
export function judgeTaskChange(before: TaskMeta | undefined, after: TaskMeta, facts: CommitFacts, config: ListConfig): Refusal[] {
  const out: Refusal[] = []
  const actor = facts.actor
  const engineWrite = after.updated_by === ENGINE_ACTOR && ENGINE_OPS.has(facts.op)
  if (after.updated_by !== actor && !engineWrite) {
    out.push({rule: 'forged_actor', message: `the card says it was updated by "${after.updated_by}", but the commit was made by "${actor}"`})
  }
  const overrideAllowed = facts.override !== null && (config.admins.length === 0 || config.admins.includes(actor))
  if (facts.override !== null && !overrideAllowed) {
    out.push({rule: 'not_admin', message: `the commit records an override, but only the admins (${config.admins.join(', ')}) may force`})
  }
  if (!before) {
    if (facts.op !== 'restore' && after.created_by !== actor && !engineWrite) {
      out.push({rule: 'forged_creator', message: `the card says it was created by "${after.created_by}", but the commit was made by "${actor}"`})
    }
    if (facts.op !== 'restore' && after.owner !== undefined && after.owner !== actor) {
      out.push({rule: 'forged_claim', message: `a new card held by "${after.owner}" was added by "${actor}"`})
    }
    return out
  }
  if (after.epoch < before.epoch) out.push({rule: 'epoch_decreased', message: `the epoch went from ${before.epoch} down to ${after.epoch}; it never decreases`})
  if (after.revision <= before.revision) out.push({rule: 'revision', message: `the revision went from ${before.revision} to ${after.revision}; every change raises it`})
  const live = claimIsLive(before, facts.time, config)
  const holderOk = before.owner === actor || !live || overrideAllowed
  const holderRefusal = (what: string): Refusal => ({
    rule: 'not_owner',
    message: `${what}: the card is held by "${before.owner ?? 'nobody'}" (lease until ${before.lease_expires ?? 'none'}), the commit was made by "${actor}", and it records no override`,
  })
  if (before.status !== after.status) {
    const row = TRANSITIONS.find((t) => t.from === before.status && t.to === after.status)
    if (!row) {
      out.push({rule: 'illegal_transition', message: `${before.status} → ${after.status} is not a transition of the state machine`})
      return out
    }
    if (row.who === 'taker' && after.epoch <= before.epoch) {
      out.push({rule: 'epoch_not_raised', message: `taking the card must raise its epoch (the fencing token): it stayed at ${after.epoch}`})
    }
    if (row.who === 'taker' && after.owner !== actor && !overrideAllowed) {
      out.push({rule: 'forged_claim', message: `${before.status} → ${after.status} makes "${after.owner ?? 'nobody'}" the owner, but the commit was made by "${actor}"`})
    }
    if (row.who === 'holder' && !holderOk) out.push(holderRefusal(`${before.status} → ${after.status}`))
    if ((after.status === 'in_progress' || after.status === 'blocked') && after.owner !== before.owner && after.owner !== actor && !overrideAllowed) {
      out.push({rule: 'forged_claim', message: `the card is handed to "${after.owner}" by "${actor}"`})
    }
    return out
  }
  if (CLAIM_FIELDS.some((k) => !same(before[k], after[k])) && (after.status === 'in_progress' || after.status === 'blocked')) {
    if (after.owner !== before.owner) {
      // A takeover: the new owner is the actor, and the old claim had expired (or the override is recorded).
      if (after.epoch <= before.epoch) out.push({rule: 'epoch_not_raised', message: `a new claim must raise the epoch (the fencing token): it stayed at ${after.epoch}`})
      if (after.owner !== actor && !overrideAllowed) out.push({rule: 'forged_claim', message: `the claim moves to "${after.owner ?? 'nobody'}", but the commit was made by "${actor}"`})
      else if (live && before.owner && !overrideAllowed) out.push(holderRefusal('a takeover of a live claim'))
    } else if (!holderOk) out.push(holderRefusal('a change to the claim'))
  }
  return out
}
