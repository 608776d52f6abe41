/**
 * What `tasks verify` judges, as data and pure functions (no I/O): which
 * file kinds exist on the ref, and how a pushed change of a card or a check
 * is judged. Who may make which move is not decided here: the guard asks
 * the rulebook (src/core/state-machine.ts) the same questions the ops ask
 * before they write. docs/verify.md explains the rules; to teach the guard
 * a new file kind, add a row to FILE_KINDS and a judge (./judges.ts).
 */
import {wokenMeta} from '../core/dates'
import {type Check, unmetChecks} from '../core/check'
import {type ActorEntry} from '../core/inbox'
import {type CheckMove, TASK_MOVES, checkMoveBetween, judgeMove, judgeSessionMove, mayOverride, movesBetween, sessionMove, sessionMovesBetween, sessionStandingOf, standingOf, taskMove} from '../core/state-machine'
import type {WorkSession} from '../core/work-session'
import {fieldProblems} from '../core/fields'
import {ENGINE_ACTOR, type ListConfig, type Status, type TaskMeta, allowedTypes, typeOf} from '../core/task'
import {type Standing, SPEC_FIELDS} from '../core/state-machine'

/** How a path is checked. `null`: a kind this version knows of but cannot judge yet (reported, accepted). */
export type FileCheck = 'meta' | 'config' | 'task' | 'comment' | 'check' | 'actor' | 'inbox' | 'seen' | 'reminder' | 'session' | 'session-checkpoint' | 'scenario' | 'plan' | null

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
  {kind: 'check', pattern: /^tasks\/[0-9a-f]{2}\/tsk-[0-9a-z]+\/checks\/[^/]+$/, check: 'check'},
  {kind: 'actor', pattern: /^actors\/[^/]+\.yaml$/, check: 'actor'},
  {kind: 'inbox', pattern: /^inbox\/[^/]+\/[^/]+\.md$/, check: 'inbox'},
  {kind: 'seen', pattern: /^inbox\/[^/]+\/[^/]+\.seen$/, check: 'seen'},
  {kind: 'reminder', pattern: /^reminders\/([^/]+|cards\/[^/]+)\.yaml$/, check: 'reminder'},
  {kind: 'session', pattern: /^sessions\/[0-9a-f]{2}\/ses-[0-9a-z]+\/session\.md$/, check: 'session'},
  {kind: 'session-checkpoint', pattern: /^sessions\/[0-9a-f]{2}\/ses-[0-9a-z]+\/checkpoints\/[^/]+\.md$/, check: 'session-checkpoint'},
  // Issue 33: the marker of a scenario list (core/scenario.ts), written once by `scenario start`.
  {kind: 'scenario', pattern: /^scenario\.yaml$/, check: 'scenario'},
  // Issue 34: the marker of a plan list (core/plan-marker.ts), written once by `plan start`.
  {kind: 'plan', pattern: /^plan\.yaml$/, check: 'plan'},
]

export function fileKindOf(path: string): FileKind {
  return FILE_KINDS.find((k) => k.pattern.test(path)) ?? {kind: 'unknown', pattern: /^/, check: null, note: 'not a file kind this version knows'}
}

export interface Transition {
  from: Status
  to: Status
}

/** The status changes of the state machine (TASK_MOVES), each once. A status change not listed is illegal. */
export const TRANSITIONS: readonly Transition[] = TASK_MOVES.flatMap((m) => (m.to !== null && m.to !== m.from ? [{from: m.from, to: m.to}] : [])).filter(
  (t, i, all) => all.findIndex((u) => u.from === t.from && u.to === t.to) === i,
)

/** Fields that make up a claim: changing them without a status change is the holder's (heartbeat, a new block note) or a takeover. */
const CLAIM_FIELDS = ['owner', 'epoch', 'claimed_at', 'lease_expires', 'claim_epochs', 'block_note', 'blocked_on'] as const

export interface CommitFacts {
  /** The acting identity: the Actor trailer, else the author name. */
  actor: string
  /** Tasks-Op trailer ('' when none). */
  op: string
  /** When lease expiry, prune and every other time rule is judged, ISO-8601 UTC: the committer time, but never later than the server's now + clock_skew_seconds (judgedTime). */
  time: string
  /** Tasks-Override trailer, when present. */
  override: string | null
  /** Tasks-Takeover (the previous holder a claim or takeover took over from), Tasks-Reason, Tasks-Session, Tasks-Prune-Before. */
  takeover?: string | null
  /** Every Tasks-Takeover value (a batch may take over several cards). */
  takeovers?: string[]
  reason?: string | null
  session?: string | null
  pruneBefore?: string | null
}

export interface Refusal {
  rule: string
  message: string
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** Ops whose changes are made by the tool itself on the actor's behalf (doctor's repairs, a restore). */
export const ENGINE_OPS: ReadonlySet<string> = new Set(['doctor', 'sync'])
/** The op of `tasks import`, judged as an administrative write (judgeImport). */
export const IMPORT_OP = 'import'

/**
 * The refusals for one card's change in a one-parent commit: `before`
 * undefined is a creation, `after` undefined a removal (judged elsewhere).
 * `config` is the list's config before the commit.
 */
export function judgeTaskChange(before: TaskMeta | undefined, after: TaskMeta, facts: CommitFacts, config: ListConfig, text: {bodyChanged: boolean} = {bodyChanged: false}): Refusal[] {
  // Issue 33: each custom field the card changed fits its declared type (core/fields.ts, the predicate the ops use); imports too.
  const badFields: Refusal[] = ENGINE_OPS.has(facts.op) ? [] : fieldProblems(before, after, config).map((message) => ({rule: 'bad_field', message}))
  if (facts.op === IMPORT_OP) return [...badFields, ...judgeImportedCard(before, after)]
  const out: Refusal[] = [...badFields]
  // The type is one the list allows (a new card's, or a changed one).
  if ((!before || typeOf(before) !== typeOf(after)) && !allowedTypes(config).includes(typeOf(after)) && !ENGINE_OPS.has(facts.op)) {
    out.push({rule: 'bad_type', message: `the card's type "${typeOf(after)}" is not one the list allows (${allowedTypes(config).join(', ')})`})
  }
  const actor = facts.actor
  const engineWrite = after.updated_by === ENGINE_ACTOR && ENGINE_OPS.has(facts.op)
  if (after.updated_by !== actor && !engineWrite) {
    out.push({rule: 'forged_actor', message: `the card says it was updated by "${after.updated_by}", but the commit was made by "${actor}"`})
  }
  const overrideAllowed = facts.override !== null && mayOverride(actor, config.admins)
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
  // Issue 33: a deferral whose time had come at the commit is judged as the todo card it had become (dates.ts).
  before = wokenMeta(before, facts.time)
  if (after.epoch < before.epoch) out.push({rule: 'epoch_decreased', message: `the epoch went from ${before.epoch} down to ${after.epoch}; it never decreases`})
  if (after.revision <= before.revision) out.push({rule: 'revision', message: `the revision went from ${before.revision} to ${after.revision}; every change raises it`})
  // Where the actor stands, as the ops see it: the recorded override is the --force they were given.
  const standing = standingOf(before, actor, facts.time, config, facts.override !== null)
  const live = standing.live
  // A recorded takeover (`tasks takeover`: Tasks-Takeover names the old owner, Tasks-Reason why, epoch + 1, admins only
  // when the list has them), or a claim of a flagged card (anyone may take it over; the claim records whom from).
  // A batch carries the trailers of all its operations: any Tasks-Takeover of it may name this card's holder.
  const takingOver = after.owner === actor && after.owner !== before.owner && before.owner !== undefined && (facts.takeovers ?? [facts.takeover]).includes(before.owner)
  const epochRaisedByOne = after.epoch === before.epoch + 1
  // A takeover is of a live claim only: a lapsed one is claimed normally (ops/claim.ts, takeoverTask).
  const takeoverOk = takingOver && (facts.op === 'takeover' || facts.op === 'batch') && !!facts.reason && epochRaisedByOne && live && judgeMove(taskMove('takeover', before.status), standing).ok
  const flagOk = takingOver && epochRaisedByOne && standing.flagged && taskMove('claim', before.status)?.flagTakes === true
  if (facts.op === 'takeover' && after.owner !== before.owner && !takeoverOk) {
    out.push({
      rule: 'takeover',
      message: `a takeover is of a live claim (this one ${live ? 'was live' : `had run out at ${before.lease_expires ?? 'none'}: claim it normally`}), records the old owner (Tasks-Takeover: ${before.owner ?? '(none)'}) and a reason (Tasks-Reason), makes the actor the owner with epoch ${before.epoch + 1}${config.admins.length ? `, and is for the admins (${config.admins.join(', ')})` : ''}`,
    })
  }
  // \`release --session S\`: the runner of a session gives back what that session holds (Tasks-Session names it).
  // Only the actor's own claims with that label, unless the commit records an override (judged above).
  const sessionOk = facts.op === 'release' && !!facts.session && before.session === facts.session && after.status === 'todo' && (before.owner === actor || overrideAllowed)
  // The actor took the card in this very commit (a claim of a lapsed or flagged card, a forced claim, a takeover: the
  // owner becomes the actor and the epoch goes up), and then acts on it as its holder (a batch's claim, then done).
  const mayTake = judgeMove(taskMove('claim', before.status), standing).ok || takeoverOk || flagOk
  const tookIt = after.owner === actor && before.owner !== actor && after.epoch > before.epoch && mayTake
  const asHolder = tookIt || sessionOk ? {...standing, owner: actor} : standing
  // The spec (title, type, dependencies, description) of a card someone else holds live is theirs: changing it needs
  // an override, as the ops ask it (the rulebook's revise move).
  const specChanged: string[] = SPEC_FIELDS.filter((k) => !same(before[k], after[k]))
  if (text.bodyChanged) specChanged.push('description')
  if (specChanged.length > 0 && !ENGINE_OPS.has(facts.op)) {
    const refusal = judgeSpecRevision(before, asHolder, `a change to the ${specChanged.join(', ')}`, overrideAllowed)
    if (refusal) out.push(refusal)
  }
  if (after.flag_reason !== undefined && (after.flag_reason !== before.flag_reason || after.flagged_by !== before.flagged_by) && after.flagged_by !== actor) {
    out.push({rule: 'forged_actor', message: `the flag says it was raised by "${after.flagged_by ?? 'nobody'}", but the commit was made by "${actor}"`})
  }
  // A flagged card is unflagged in a commit of its own before it is finished; only a batch (`unflag`, then `done`) does both at once.
  const flag = after.flag_reason ?? (facts.op === 'batch' ? undefined : before.flag_reason)
  if (after.status === 'done' && before.status !== 'done' && flag !== undefined) {
    out.push({rule: 'flagged', message: `the card is flagged ("${flag}"); a flagged card cannot be finished (unflag it first)`})
  }
  // The moves that make this change; a takeover counts only as one (recorded, with a reason, epoch + 1).
  const rows = movesBetween(before.status, after.status).filter((r) => r.move !== 'takeover' || takeoverOk)
  // Someone else's claim goes back to todo on the strength of its lapse only as a fence: the sweep of an expired lease,
  // or a reopen, moves the epoch on by one and clears the owner.
  if (after.status !== before.status && rows.some((r) => r.fences) && asHolder.owner !== actor && !overrideAllowed) {
    if (live || !epochRaisedByOne || after.owner !== undefined) {
      out.push({rule: 'sweep', message: `only a sweep reopens someone else's claim: an in-progress card whose lease had expired (until ${before.lease_expires ?? 'none'}), owner cleared, epoch ${before.epoch} → ${before.epoch + 1}`})
    }
  }
  const holderRefusal = (what: string): Refusal => ({
    rule: 'not_owner',
    message: `${what}: the card is held by "${before.owner ?? 'nobody'}" (lease until ${before.lease_expires ?? 'none'}), the commit was made by "${actor}", and it records no override`,
  })
  if (before.status !== after.status) {
    if (rows.length === 0) {
      out.push({rule: 'illegal_transition', message: `${before.status} → ${after.status} is not a transition of the state machine`})
      return out
    }
    if (rows.some((r) => r.who === 'taker')) {
      if (after.epoch <= before.epoch) out.push({rule: 'epoch_not_raised', message: `taking the card must raise its epoch (the fencing token): it stayed at ${after.epoch}`})
      if (after.owner !== actor && !overrideAllowed) out.push({rule: 'forged_claim', message: `${before.status} → ${after.status} makes "${after.owner ?? 'nobody'}" the owner, but the commit was made by "${actor}"`})
    } else if (!rows.some((r) => judgeMove(r, asHolder).ok)) out.push(holderRefusal(`${before.status} → ${after.status}`))
    if ((after.status === 'in_progress' || after.status === 'blocked') && after.owner !== before.owner && after.owner !== actor && !overrideAllowed) {
      out.push({rule: 'forged_claim', message: `the card is handed to "${after.owner}" by "${actor}"`})
    }
    return out
  }
  if (CLAIM_FIELDS.some((k) => !same(before[k], after[k])) && (after.status === 'in_progress' || after.status === 'blocked')) {
    if (after.owner !== before.owner) {
      // A claim of someone else's card (lapsed, flagged or forced) or a takeover: the new owner is the actor, epoch raised.
      if (after.epoch <= before.epoch) out.push({rule: 'epoch_not_raised', message: `a new claim must raise the epoch (the fencing token): it stayed at ${after.epoch}`})
      if (after.owner !== actor && !overrideAllowed) out.push({rule: 'forged_claim', message: `the claim moves to "${after.owner ?? 'nobody'}", but the commit was made by "${actor}"`})
      else if (!mayTake) out.push(holderRefusal(live ? 'a takeover of a live claim' : `a takeover of a ${before.status} card`))
    } else if (!judgeMove(taskMove('heartbeat', before.status), asHolder).ok) out.push(holderRefusal('a change to the claim'))
  }
  return out
}

/**
 * Spec ownership, as the ops judge it (`assertMayRevise`): may the actor,
 * standing as `s` towards the card as it was, change its spec (title,
 * description, type, dependencies; add or supersede a check)? Null when it
 * may; a `not_owner` refusal when it is someone else's live claim and the
 * commit records no override (a recorded override by a non-admin is refused
 * once for the commit as `not_admin`).
 */
export function judgeSpecRevision(card: TaskMeta, s: Standing, what: string, overrideAllowed: boolean): Refusal | null {
  const verdict = judgeMove(taskMove('revise', card.status), s)
  if (verdict.ok || (verdict.refusal === 'not_admin' && !overrideAllowed)) return null
  return {rule: 'not_owner', message: `${what} of ${card.id}: the card is held by "${card.owner ?? 'nobody'}" (lease until ${card.lease_expires ?? 'none'}), the commit was made by "${s.actor}", and it records no override`}
}

/**
 * `tasks import` (Tasks-Op: import) writes cards, comments and checks as
 * another list (or a backup of this one) recorded them: their authors,
 * holders, states and check stamps are the document's, not the actor's. So
 * an import is judged as an administrative write, as config.yaml is: when
 * the list has admins only they may import (`not_admin`, once for the
 * commit); what it writes must still read back (schema) and keep this
 * list's own counters (the epoch never decreases, an updated card's
 * revision goes up); a comment or an inbox record is still only ever added.
 */
export function judgeImport(facts: CommitFacts, config: ListConfig): Refusal[] {
  if (facts.op !== IMPORT_OP || config.admins.length === 0 || config.admins.includes(facts.actor)) return []
  return [{rule: 'not_admin', message: `an import writes cards as the document recorded them (their authors, holders and checks); only the admins (${config.admins.join(', ')}) may import, and the commit was made by "${facts.actor}"`}]
}

function judgeImportedCard(before: TaskMeta | undefined, after: TaskMeta): Refusal[] {
  if (!before) return []
  const out: Refusal[] = []
  if (after.epoch < before.epoch) out.push({rule: 'epoch_decreased', message: `the epoch went from ${before.epoch} down to ${after.epoch}; an import keeps the list's own epoch`})
  if (after.revision <= before.revision) out.push({rule: 'revision', message: `the revision went from ${before.revision} to ${after.revision}; every change raises it`})
  return out
}

// ------------------------------------------------------------------ checks

/** Fields a check never changes once added. */
const CHECK_FIXED = ['id', 'kind', 'text', 'added_by', 'added_at'] as const
/** Fields that, once written, stay (a later transition may write its own stamp again). */
const CHECK_HISTORY = ['evidence', 'passed_by', 'passed_at', 'failed_by', 'failed_at', 'reset_by', 'reset_at', 'superseded_by', 'superseded_at', 'supersede_reason'] as const

/** The refusals for one check file's change; `after` undefined is a removal, allowed only with its card (`cardRemoved`). */
export function judgeCheckChange(before: Check | undefined, after: Check | undefined, facts: CommitFacts, cardRemoved: boolean): Refusal[] {
  const actor = facts.actor
  if (!after) return cardRemoved || !before ? [] : [{rule: 'check_removed', message: `a check is never removed on its own (supersede it); ${before.id} went while its card stayed`}]
  // An import writes the check as the document recorded it (judgeImport).
  if (facts.op === IMPORT_OP) return []
  const out: Refusal[] = []
  if (after.updated_by !== actor && !(after.updated_by === ENGINE_ACTOR && ENGINE_OPS.has(facts.op))) out.push({rule: 'forged_actor', message: `the check says it was updated by "${after.updated_by}", but the commit was made by "${actor}"`})
  if (before && same(before, after)) return out
  const from = before ? before.status : 'new'
  const row: CheckMove | undefined = checkMoveBetween(from, after.status)
  if (!row) {
    out.push({rule: 'check_transition', message: `${from === 'new' ? 'a new check' : from} → ${after.status} is not a legal check change (${from === 'superseded' ? 'a superseded check is history' : 'a check is added pending'})`})
    return out
  }
  const [byKey, atKey] = row.stamp
  if (after[byKey] !== actor) out.push({rule: 'forged_actor', message: `${from} → ${after.status}: the check says ${String(byKey)} "${String(after[byKey] ?? 'nobody')}", but the commit was made by "${actor}"`})
  if (!after[atKey]) out.push({rule: 'schema', message: `${from} → ${after.status} must record ${String(atKey)}`})
  if (row.evidence && !after.evidence) out.push({rule: 'check_evidence', message: `a check ${after.status} must carry evidence`})
  if (after.status === 'superseded' && !after.supersede_reason) out.push({rule: 'check_evidence', message: 'a superseded check must record supersede_reason'})
  if (before) {
    for (const k of CHECK_FIXED) if (!same(before[k], after[k])) out.push({rule: 'check_rewritten', message: `a check's ${k} never changes once added`})
    const rewritable = new Set<string>([...row.stamp, ...(row.evidence ? ['evidence'] : [])])
    for (const k of CHECK_HISTORY) {
      if (before[k] !== undefined && !rewritable.has(k) && !same(before[k], after[k])) out.push({rule: 'check_history', message: `${from} → ${after.status} dropped or changed ${k}; a check keeps its history`})
    }
  }
  return out
}

/** \`done\` needs every active check of the card passed with evidence in the same tree. */
export function judgeDoneChecks(checks: readonly Check[]): Refusal[] {
  const unmet = unmetChecks(checks)
  if (unmet.length === 0) return []
  return [{rule: 'checks_pending', message: `the card went to done while ${unmet.length} active check${unmet.length === 1 ? '' : 's'} had no pass with evidence: ${unmet.map((c) => `${c.id} (${c.status})`).join(', ')}`}]
}

// ------------------------------------------------------------------ actors, inbox

/**
 * Who may write an actor entry: the actor it names (or a name that is an
 * alias of it), the target of an alias entry when the name was free or
 * already its alias, or an admin. last_seen merges happen in sync's merge,
 * which is replayed (judged there).
 */
export function judgeActorChange(slug: string, before: ActorEntry | undefined, after: ActorEntry | undefined, facts: CommitFacts, canonical: string, config: ListConfig, slugOf: (a: string) => string): Refusal[] {
  const actor = facts.actor
  const entry = after ?? before!
  if (after && slugOf(after.id) !== slug) return [{rule: 'schema', message: `the entry names "${after.id}", which is not the actor its file name stands for`}]
  const own = (e: ActorEntry | undefined) => !!e && (e.id === actor || e.id === canonical)
  const aliasOfMine = (e: ActorEntry | undefined) => !!e && (e.alias_of === actor || e.alias_of === canonical)
  const admin = config.admins.includes(actor)
  if (own(entry) || admin) return []
  if (aliasOfMine(after) && (!before || aliasOfMine(before) || (before.alias_of === undefined && before.last_seen === undefined && !before.mute && !before.watch))) return []
  if (aliasOfMine(before) && after && !after.alias_of) return [] // \`actor alias --remove\` by the target
  return [{rule: 'not_own_actor', message: `the entry of "${entry.id}" may be changed only by that actor${config.admins.length ? ` or an admin (${config.admins.join(', ')})` : ''}; the commit was made by "${actor}"`}]
}

// ------------------------------------------------------------------ the clock

/**
 * The pusher picks a commit's committer time, and a time decides who holds
 * a card (a lease runs out) and what prune may remove. So the guard keeps
 * its own clock: a commit dated later than the server's now + the skew, or
 * earlier than its latest parent by more than the skew, is refused
 * (`clock_skew`). `commitMs` and `parentsMs` are committer times, `nowMs`
 * the server's clock (or `tasks verify --now`); the skew is the list's
 * clock_skew_seconds before the update.
 */
export function judgeCommitClock(commitMs: number, parentsMs: readonly number[], nowMs: number, skewSeconds: number): Refusal[] {
  const skew = skewSeconds * 1000
  const at = new Date(commitMs).toISOString()
  if (commitMs > nowMs + skew) {
    return [{rule: 'clock_skew', message: `the commit is dated ${at}, later than the server's clock (${new Date(nowMs).toISOString()}) + clock_skew_seconds (${skewSeconds}): the guard judges leases and cutoffs at its own time, not the pusher's`}]
  }
  const parent = parentsMs.length > 0 ? Math.max(...parentsMs) : null
  if (parent !== null && commitMs < parent - skew) {
    return [{rule: 'clock_skew', message: `the commit is dated ${at}, earlier than its parent (${new Date(parent).toISOString()}) by more than clock_skew_seconds (${skewSeconds})`}]
  }
  return []
}

/** The time a commit's time rules are judged at: its committer time, but never later than the server's now + the skew. */
export function judgedTime(commitMs: number, nowMs: number, skewSeconds: number): string {
  return new Date(Math.min(commitMs, nowMs + skewSeconds * 1000)).toISOString()
}

// ------------------------------------------------------------------ coordination sessions

const SESSION_SPEC = ['title', 'description', 'strategy'] as const
const SESSION_CLAIM = ['owner', 'epoch', 'claimed_at', 'lease_expires'] as const

/**
 * The refusals for one coordination session's session.md in a one-parent
 * commit (`before` undefined: created; `after` undefined: removed), by the
 * rulebook's SESSION_MOVES: only legal state moves; the owner's writes
 * (heartbeat, checkpoint, revise, release, complete) by its owner unless
 * the commit records an override; a claim by the actor who becomes the
 * owner (epoch + 1), of an open session or one whose lease lapsed; a
 * takeover recorded (Tasks-Takeover, Tasks-Reason, epoch + 1). `addsCheckpoint`:
 * the commit adds a checkpoint of this session, which is the holder's write.
 */
export function judgeSessionChange(before: WorkSession | undefined, after: WorkSession | undefined, facts: CommitFacts, config: ListConfig, addsCheckpoint: boolean): Refusal[] {
  if (!after) return [{rule: 'session_removed', message: 'a coordination session is never removed (cancel it)'}]
  if (facts.op === IMPORT_OP) return []
  const out: Refusal[] = []
  const actor = facts.actor
  const engineWrite = after.updated_by === ENGINE_ACTOR && ENGINE_OPS.has(facts.op)
  if (after.updated_by !== actor && !engineWrite) out.push({rule: 'forged_actor', message: `the session says it was updated by "${after.updated_by}", but the commit was made by "${actor}"`})
  const overrideAllowed = facts.override !== null && mayOverride(actor, config.admins)
  if (facts.override !== null && !overrideAllowed) out.push({rule: 'not_admin', message: `the commit records an override, but only the admins (${config.admins.join(', ')}) may force`})
  if (!before) {
    if (after.created_by !== actor && !engineWrite) out.push({rule: 'forged_creator', message: `the session says it was created by "${after.created_by}", but the commit was made by "${actor}"`})
    if (after.state !== 'open' || after.owner !== undefined || after.epoch !== 0 || after.revision !== 1) out.push({rule: 'illegal_transition', message: 'a new session starts open, unclaimed, at epoch 0 and revision 1'})
    if (addsCheckpoint) out.push({rule: 'not_owner', message: 'a checkpoint is written by the session\'s holder; a new session has none'})
    return out
  }
  if (after.epoch < before.epoch) out.push({rule: 'epoch_decreased', message: `the session's epoch went from ${before.epoch} down to ${after.epoch}; it never decreases`})
  if (after.revision < before.revision) out.push({rule: 'revision', message: `the session's revision went from ${before.revision} down to ${after.revision}`})
  const specChanged = SESSION_SPEC.some((k) => before[k] !== after[k])
  if (specChanged && after.revision !== before.revision + 1) out.push({rule: 'revision', message: `a revision of the session's description or strategy raises its revision by one (${before.revision} → ${before.revision + 1}), not to ${after.revision}`})
  if (after.created_by !== before.created_by || after.created_at !== before.created_at || after.id !== before.id) out.push({rule: 'forged_creator', message: 'a session\'s id and creation stamp never change'})
  const standing = sessionStandingOf(before, actor, facts.time, config, facts.override !== null)
  // Taking the session in this commit: the actor becomes the owner with the epoch raised by one.
  const takes = after.owner === actor && before.owner !== actor && after.epoch === before.epoch + 1
  const takeoverOk = takes && facts.op === 'session_takeover' && !!facts.reason && facts.takeover === before.owner && judgeSessionMove(sessionMove('takeover', before.state), standing).ok
  const claimOk = takes && judgeSessionMove(sessionMove('claim', before.state), standing).ok
  if (after.owner !== before.owner && after.owner !== undefined) {
    if (after.owner !== actor && !overrideAllowed) out.push({rule: 'forged_claim', message: `the session is handed to "${after.owner}" by "${actor}"`})
    else if (after.epoch !== before.epoch + 1) out.push({rule: 'epoch_not_raised', message: `a new claim of the session raises its epoch by one (${before.epoch} → ${before.epoch + 1}), not to ${after.epoch}`})
    else if (!takeoverOk && !claimOk) {
      out.push({rule: before.owner && standing.live ? 'not_owner' : 'takeover', message: `the session is held by "${before.owner ?? 'nobody'}" (lease until ${before.lease_expires ?? 'none'}); taking it needs its lease to have run out, an override, or a recorded takeover (Tasks-Takeover, Tasks-Reason)`})
    }
  }
  const asHolder = takes && (takeoverOk || claimOk) ? {...standing, owner: actor} : standing
  const holderRefusal = (what: string): Refusal => ({
    rule: 'not_owner',
    message: `${what}: the session is held by "${before.owner ?? 'nobody'}" (lease until ${before.lease_expires ?? 'none'}), the commit was made by "${actor}", and it records no override`,
  })
  if (before.state !== after.state) {
    const rows = sessionMovesBetween(before.state, after.state)
    if (rows.length === 0) {
      out.push({rule: 'illegal_transition', message: `${before.state} → ${after.state} is not a move of a coordination session`})
      return out
    }
    if (!rows.some((r) => judgeSessionMove(r, r.who === 'taker' ? standing : asHolder).ok)) out.push(holderRefusal(`${before.state} → ${after.state}`))
    if (after.state === 'completed' && !after.summary) out.push({rule: 'schema', message: 'a completed session records its final summary'})
    if (after.state === 'cancelled' && !after.cancel_reason) out.push({rule: 'schema', message: 'a cancelled session records its cancel_reason'})
  } else {
    const claimFieldsChanged = SESSION_CLAIM.some((k) => before[k] !== after[k])
    const writes = specChanged || addsCheckpoint || (claimFieldsChanged && !takes)
    if (writes) {
      const move = specChanged ? 'revise' : addsCheckpoint ? 'checkpoint' : 'heartbeat'
      const row = sessionMove(move, before.state)
      if (!row) out.push({rule: 'illegal_transition', message: `a ${move} of a ${before.state} session is not a move of a coordination session`})
      else if (!judgeSessionMove(row, asHolder).ok) out.push(holderRefusal(`a ${move}`))
    }
  }
  if (addsCheckpoint && before.state !== after.state && !['open', 'completed'].includes(after.state)) {
    out.push({rule: 'illegal_transition', message: 'a checkpoint goes with a checkpoint, release or complete of the session'})
  }
  return out
}
