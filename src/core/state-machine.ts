/**
 * The rulebook: the state machines of cards and checks as data, and the
 * pure predicates that judge a move by them. The ops (src/core/ops) ask it
 * before they write and the server guard (src/hooks/rules.ts) asks it of
 * every pushed change, so the writer and the guard cannot drift apart.
 * docs/model.md tells the rules in words, and what adding a move or a
 * status takes ("The rulebook": who may make a move, or a move from one
 * more status, is one row in TASK_MOVES or CHECK_MOVES; a new move also
 * needs its op, and a new status the places that list the statuses).
 */
import type {CheckStatus} from './check'
import {claimIsLive} from './readiness'
import {FINISHED, type ListConfig, type Status, type TaskMeta} from './task'
import {type SessionState, type WorkSession, sessionClaimLive} from './work-session'

// ------------------------------------------------------------------ cards

/** What a person or an agent does to a card. */
export type TaskMoveName = 'claim' | 'heartbeat' | 'done' | 'block' | 'release' | 'reopen' | 'cancel' | 'takeover' | 'sweep' | 'remove' | 'revise' | 'defer' | 'fail'

/**
 * Who may make a move without an override:
 * - `anyone`;
 * - `taker`: anyone, who becomes the card's holder (owner = actor, epoch + 1);
 * - `holder`: the card's owner only;
 * - `lapsed`: the owner, or anyone once the owner's claim is no longer live
 *   (`claimIsLive`, clock skew included);
 * - `admin`: anyone when the list names no admins, else only its admins; an
 *   override by nature, made without --force (`takeover`).
 * Everyone else needs an override (--force with a reason, recorded as
 * Tasks-Override), and an override counts only for the admins when
 * config.yaml lists them (`mayOverride`).
 */
export type Authority = 'anyone' | 'taker' | 'holder' | 'lapsed' | 'admin'

export interface TaskMove {
  move: TaskMoveName
  from: Status
  /** The status after the move; null: the card is removed. */
  to: Status | null
  who: Authority
  /** A flagged card may be taken from its holder by anyone, without an override. */
  flagTakes?: boolean
  /**
   * Made by someone else on the strength of a lapsed claim, the move fences
   * the former holder out: owner cleared and the epoch moved on by one, so
   * that holder's `--epoch` is refused from then on.
   */
  fences?: boolean
}

/**
 * The moves that close an open card for a reason, and the terminal status
 * each leaves it in; the ops make them with one op (ops/finish-subtree.ts,
 * `closeTask`), which cancels the card's open sub-items with it.
 */
export const CLOSING_MOVES = {cancel: 'cancelled', fail: 'failed'} as const

export type ClosingMove = keyof typeof CLOSING_MOVES

/**
 * Who may close a card from each open status, alike for every closing move:
 * anyone an unheld one (todo, deferred), the holder a held one, anyone once
 * its claim lapsed.
 */
const CLOSING_FROM: ReadonlyArray<readonly [Status, Authority]> = [
  ['todo', 'anyone'],
  ['in_progress', 'lapsed'],
  ['blocked', 'lapsed'],
  ['deferred', 'anyone'],
]

/** The rows of the closing moves: each move from each open status of CLOSING_FROM. */
function closingRows(): TaskMove[] {
  return (Object.keys(CLOSING_MOVES) as ClosingMove[]).flatMap((move) => CLOSING_FROM.map(([from, who]) => ({move, from, to: CLOSING_MOVES[move], who})))
}

/** Every legal move, one row per (move, from status). A move not listed is refused. */
export const TASK_MOVES: readonly TaskMove[] = [
  {move: 'claim', from: 'todo', to: 'in_progress', who: 'taker'},
  // The holder renews the lease; anyone else takes over a claim that is no longer live (epoch + 1).
  {move: 'claim', from: 'in_progress', to: 'in_progress', who: 'lapsed', flagTakes: true},
  // The holder resumes; a blocked card waits on what its note names, so its lapsed lease gives it to nobody.
  {move: 'claim', from: 'blocked', to: 'in_progress', who: 'holder', flagTakes: true},
  // The holder extends the lease (heartbeat, checkpoint); nobody else speaks for the claim, not even with --force.
  {move: 'heartbeat', from: 'in_progress', to: 'in_progress', who: 'holder'},
  {move: 'heartbeat', from: 'blocked', to: 'blocked', who: 'holder'},
  {move: 'done', from: 'todo', to: 'done', who: 'taker'},
  {move: 'done', from: 'in_progress', to: 'done', who: 'holder'},
  {move: 'done', from: 'blocked', to: 'done', who: 'holder'},
  {move: 'block', from: 'todo', to: 'blocked', who: 'taker'},
  {move: 'block', from: 'in_progress', to: 'blocked', who: 'holder'},
  {move: 'block', from: 'blocked', to: 'blocked', who: 'holder'},
  {move: 'release', from: 'in_progress', to: 'todo', who: 'holder'},
  {move: 'release', from: 'blocked', to: 'todo', who: 'holder'},
  {move: 'reopen', from: 'in_progress', to: 'todo', who: 'lapsed', fences: true},
  {move: 'reopen', from: 'blocked', to: 'todo', who: 'lapsed', fences: true},
  {move: 'reopen', from: 'done', to: 'todo', who: 'anyone'},
  // cancel and fail, each to its own terminal status, from every open status (CLOSING_MOVES, CLOSING_FROM).
  ...closingRows(),
  {move: 'takeover', from: 'in_progress', to: 'in_progress', who: 'admin'},
  {move: 'takeover', from: 'blocked', to: 'in_progress', who: 'admin'},
  // The sweep of an expired lease: blocked cards are not swept.
  {move: 'sweep', from: 'in_progress', to: 'todo', who: 'lapsed', fences: true},
  {move: 'remove', from: 'todo', to: null, who: 'anyone'},
  {move: 'remove', from: 'in_progress', to: null, who: 'lapsed'},
  {move: 'remove', from: 'blocked', to: null, who: 'lapsed'},
  {move: 'remove', from: 'done', to: null, who: 'anyone'},
  {move: 'remove', from: 'cancelled', to: null, who: 'anyone'},
  // Changing the spec (title, description, type, dependencies; adding or superseding a check): the holder of a live
  // claim, else anyone; someone else's live claim needs an override (docs/model.md, "Spec ownership").
  {move: 'revise', from: 'todo', to: 'todo', who: 'anyone'},
  {move: 'revise', from: 'in_progress', to: 'in_progress', who: 'lapsed'},
  {move: 'revise', from: 'blocked', to: 'blocked', who: 'lapsed'},
  {move: 'revise', from: 'done', to: 'done', who: 'anyone'},
  {move: 'revise', from: 'cancelled', to: 'cancelled', who: 'anyone'},
  // Issue 33: deferred and failed (docs/model.md, "Deferred and failed"). A deferred card is parked: anyone defers
  // an open card nobody holds live (someone else's lapsed claim is fenced out, as by a reopen) or changes a
  // deferral; it comes back by `reopen`, or by itself once its --until has come (dates.ts `wokenStatus`: the ops and
  // the guard judge a woken card as todo). `failed` is terminal like cancelled, but reopen brings it back; a deferred
  // card is cancelled or failed as a todo one is (CLOSING_FROM).
  {move: 'defer', from: 'todo', to: 'deferred', who: 'anyone'},
  {move: 'defer', from: 'in_progress', to: 'deferred', who: 'lapsed', fences: true},
  {move: 'defer', from: 'blocked', to: 'deferred', who: 'lapsed', fences: true},
  {move: 'defer', from: 'deferred', to: 'deferred', who: 'anyone'},
  {move: 'reopen', from: 'deferred', to: 'todo', who: 'anyone'},
  {move: 'reopen', from: 'failed', to: 'todo', who: 'anyone'},
  {move: 'remove', from: 'deferred', to: null, who: 'anyone'},
  {move: 'remove', from: 'failed', to: null, who: 'anyone'},
  {move: 'revise', from: 'deferred', to: 'deferred', who: 'anyone'},
  {move: 'revise', from: 'failed', to: 'failed', who: 'anyone'},
]

/** The frontmatter fields that make up an item's spec, with its description (the body) and its checks. */
export const SPEC_FIELDS = ['title', 'type', 'depends_on'] as const

/** The row of `move` from `from`, or undefined when the move is not one the status allows. */
export function taskMove(move: TaskMoveName, from: Status): TaskMove | undefined {
  return TASK_MOVES.find((m) => m.move === move && m.from === from)
}

/** The rows that change a card's status from `from` to `to` (`to` null: a removal). */
export function movesBetween(from: Status, to: Status | null): TaskMove[] {
  return TASK_MOVES.filter((m) => m.from === from && m.to === to)
}

/** True when `actor` may use an override (--force, a takeover) on a list whose config names `admins`. */
export function mayOverride(actor: string, admins: readonly string[]): boolean {
  return admins.length === 0 || admins.includes(actor)
}

/** Where the actor stands towards a card, as the ops and the guard see it. */
export interface Standing {
  actor: string
  /** The card's holder (its owner), if any. */
  owner: string | undefined
  /** Whether the holder's claim is live (`claimIsLive` at the acting time). */
  live: boolean
  /** Whether the card is flagged. */
  flagged: boolean
  /** An override is asked for (--force) or recorded (Tasks-Override). */
  override: boolean
  /** The admins config.yaml lists (none: anyone may override). */
  admins: readonly string[]
}

/** The standing of `actor` towards `card` at `now` (ISO-8601), with an override asked for or recorded or not. */
export function standingOf(card: TaskMeta, actor: string, now: string, config: ListConfig, override: boolean): Standing {
  return {actor, owner: card.owner, live: claimIsLive(card, now, config), flagged: card.flag_reason !== undefined, override, admins: config.admins}
}

export type Verdict =
  /** Allowed; `overridden`: only by the override; `lapsed`: by someone else on a claim no longer live. */
  | {ok: true; overridden: boolean; lapsed: boolean}
  /**
   * Refused: `illegal` (not a move from this status), `not_owner` (someone
   * else's card: it needs an override), `not_admin` (an override by someone
   * who is not one of the admins).
   */
  | {ok: false; refusal: 'illegal' | 'not_owner' | 'not_admin'}

/**
 * May the actor, standing as `s`, make the move of `row`? The one answer
 * to "may actor X, with or without --force, move this card from S to T".
 */
export function judgeMove(row: TaskMove | undefined, s: Standing): Verdict {
  if (!row) return {ok: false, refusal: 'illegal'}
  // A held card with no owner recorded is nobody's to act on freely.
  const someoneElses = s.owner !== s.actor
  if (row.who === 'admin') return mayOverride(s.actor, s.admins) ? {ok: true, overridden: true, lapsed: false} : {ok: false, refusal: 'not_admin'}
  if (row.who === 'anyone' || row.who === 'taker' || !someoneElses) return {ok: true, overridden: false, lapsed: false}
  if (row.flagTakes && s.flagged) return {ok: true, overridden: false, lapsed: false}
  if (row.who === 'lapsed' && !s.live) return {ok: true, overridden: false, lapsed: true}
  if (!s.override) return {ok: false, refusal: 'not_owner'}
  return mayOverride(s.actor, s.admins) ? {ok: true, overridden: true, lapsed: false} : {ok: false, refusal: 'not_admin'}
}

// ------------------------------------------------------------------ claims per actor

/**
 * One more live claim for an actor who already holds `held` other live
 * claims (`liveClaimsOf` in readiness.ts): allowed while the list's
 * `max_claims_per_actor` is 0 (no limit) or `held` is below it. The ops ask
 * it before a claim, `next --another`, a takeover, a batch item or a block
 * takes a card (ops/permission.ts, `assertClaimLimit`); the guard asks it of
 * every card a pushed commit hands to its actor (src/hooks/judges.ts).
 */
export function claimLimitAllows(held: number, config: Pick<ListConfig, 'max_claims_per_actor'>): boolean {
  return config.max_claims_per_actor === 0 || held < config.max_claims_per_actor
}

// ------------------------------------------------------------------ checks

export type CheckMoveName = 'add' | 'pass' | 'fail' | 'reset' | 'supersede'

/** The stamp a check move writes: who (always the actor) and when. */
export type CheckStamp = readonly ['added_by' | 'passed_by' | 'failed_by' | 'reset_by' | 'superseded_by', 'added_at' | 'passed_at' | 'failed_at' | 'reset_at' | 'superseded_at']

export interface CheckMove {
  move: CheckMoveName
  from: CheckStatus | 'new'
  to: CheckStatus
  stamp: CheckStamp
  /** The new state must carry evidence (a pass or a fail). */
  evidence: boolean
}

/** A check that still counts for `done`; superseded is history. */
const ACTIVE: readonly CheckStatus[] = ['pending', 'passed', 'failed']

/**
 * Every legal check move (docs/model.md, "Checks with evidence"). Anyone
 * may make any of them; the stamp names who did. A check is added pending,
 * a new spec revision resets a passed or failed one, and superseded is final.
 */
export const CHECK_MOVES: readonly CheckMove[] = [
  {move: 'add', from: 'new', to: 'pending', stamp: ['added_by', 'added_at'], evidence: false},
  ...ACTIVE.map((from) => ({move: 'pass' as const, from, to: 'passed' as const, stamp: ['passed_by', 'passed_at'] as const, evidence: true})),
  ...ACTIVE.map((from) => ({move: 'fail' as const, from, to: 'failed' as const, stamp: ['failed_by', 'failed_at'] as const, evidence: true})),
  ...(['passed', 'failed'] as const).map((from) => ({move: 'reset' as const, from, to: 'pending' as const, stamp: ['reset_by', 'reset_at'] as const, evidence: false})),
  ...ACTIVE.map((from) => ({move: 'supersede' as const, from, to: 'superseded' as const, stamp: ['superseded_by', 'superseded_at'] as const, evidence: false})),
]

/** The row of a check move from `from`, or undefined when the check's state does not allow it. */
export function checkMove(move: CheckMoveName, from: CheckStatus | 'new'): CheckMove | undefined {
  return CHECK_MOVES.find((m) => m.move === move && m.from === from)
}

/** The row that takes a check from `from` to `to`, or undefined for a change no move makes. */
export function checkMoveBetween(from: CheckStatus | 'new', to: CheckStatus): CheckMove | undefined {
  return CHECK_MOVES.find((m) => m.from === from && m.to === to)
}

// ------------------------------------------------------------------ coordination sessions

/** What is done to a coordination session (docs/model.md, "Coordination sessions"). */
export type SessionMoveName = 'create' | 'claim' | 'heartbeat' | 'checkpoint' | 'revise' | 'release' | 'complete' | 'cancel' | 'takeover'

export interface SessionMove {
  move: SessionMoveName
  from: SessionState | 'new'
  to: SessionState
  /** Who may make it without an override, as for cards (Authority). */
  who: Authority
}

/**
 * Every legal move of a session, one row per (move, from state). A session
 * has its own claim (owner, epoch, lease), independent of task claims: the
 * owner writes it (checkpoint, revise, heartbeat, release, complete); anyone
 * claims an open one or one whose claim lapsed; anyone else needs --force,
 * or `session takeover` (admins when config.yaml names them).
 */
export const SESSION_MOVES: readonly SessionMove[] = [
  {move: 'create', from: 'new', to: 'open', who: 'anyone'},
  {move: 'claim', from: 'open', to: 'in_progress', who: 'taker'},
  {move: 'claim', from: 'in_progress', to: 'in_progress', who: 'lapsed'},
  {move: 'heartbeat', from: 'in_progress', to: 'in_progress', who: 'holder'},
  {move: 'checkpoint', from: 'in_progress', to: 'in_progress', who: 'holder'},
  {move: 'revise', from: 'in_progress', to: 'in_progress', who: 'holder'},
  {move: 'release', from: 'in_progress', to: 'open', who: 'holder'},
  {move: 'complete', from: 'in_progress', to: 'completed', who: 'holder'},
  {move: 'cancel', from: 'open', to: 'cancelled', who: 'anyone'},
  {move: 'cancel', from: 'in_progress', to: 'cancelled', who: 'lapsed'},
  {move: 'takeover', from: 'in_progress', to: 'in_progress', who: 'admin'},
]

/** The row of a session move from `from`, or undefined when the state does not allow it. */
export function sessionMove(move: SessionMoveName, from: SessionState | 'new'): SessionMove | undefined {
  return SESSION_MOVES.find((m) => m.move === move && m.from === from)
}

/** The rows that take a session from `from` to `to`. */
export function sessionMovesBetween(from: SessionState | 'new', to: SessionState): SessionMove[] {
  return SESSION_MOVES.filter((m) => m.from === from && m.to === to)
}

/** Where `actor` stands towards a session at `now`: the same Standing the card rules use. */
export function sessionStandingOf(s: WorkSession, actor: string, now: string, config: ListConfig, override: boolean): Standing {
  return {actor, owner: s.owner, live: sessionClaimLive(s, now, config), flagged: false, override, admins: config.admins}
}

/** May the actor, standing as `s`, make the session move `row`? The card rule (judgeMove) over the session's rows. */
export function judgeSessionMove(row: SessionMove | undefined, s: Standing): Verdict {
  if (!row) return {ok: false, refusal: 'illegal'}
  return judgeMove({move: 'claim', from: 'todo', to: 'in_progress', who: row.who}, s)
}

// ------------------------------------------------------------------ creation gates and finished parents

/**
 * The check kinds a list with `require_checks` wants on every card: at least
 * one active check of each (docs/model.md, "Creation gates").
 */
export const REQUIRED_CHECK_KINDS = ['acceptance', 'test'] as const

/**
 * The required kinds (REQUIRED_CHECK_KINDS) that have no active check among
 * `checks`; none when the list does not set `require_checks`. The one answer
 * to "may this card be created, keep this check superseded, be done" under
 * the creation gates, for the ops and the guard alike.
 */
export function missingCheckKinds(config: Pick<ListConfig, 'require_checks'>, checks: ReadonlyArray<{kind: string; status: CheckStatus}>): string[] {
  if (!config.require_checks) return []
  return REQUIRED_CHECK_KINDS.filter((k) => !checks.some((c) => c.kind === k && (ACTIVE as readonly string[]).includes(c.status)))
}

/**
 * Would superseding `check` leave the card without an active check of its
 * kind, on a list with `require_checks`? `checks`: the card's checks before.
 */
export function supersedeLeavesKindEmpty(config: Pick<ListConfig, 'require_checks'>, checks: ReadonlyArray<{id: string; kind: string; status: CheckStatus}>, check: {id: string; kind: string}): boolean {
  if (!config.require_checks || !(REQUIRED_CHECK_KINDS as readonly string[]).includes(check.kind)) return false
  return !checks.some((c) => c.id !== check.id && c.kind === check.kind && (ACTIVE as readonly string[]).includes(c.status))
}

/** A parent takes new open sub-items (added, restored, reopened under it) only while it is not finished (done or cancelled). */
export function takesSubItems(parentStatus: Status): boolean {
  return !FINISHED.has(parentStatus)
}
