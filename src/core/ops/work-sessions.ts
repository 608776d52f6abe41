/**
 * The ops of coordination sessions (docs/model.md, "Coordination sessions"):
 * create, claim, heartbeat, checkpoint, revise, release, complete, cancel
 * and takeover. Pure: `(snapshot with .sessions, ctx, args) → Plan`. Every
 * move asks the rulebook (SESSION_MOVES, judgeSessionMove in
 * core/state-machine.ts), the same predicates the guard uses.
 */
import {createHash} from 'node:crypto'
import {ConflictError, InvalidError, NotFoundError, NotPermittedError, UsageError} from '../errors'
import {recordPath, serialiseRecord} from '../inbox'
import {recordStem} from '../notify'
import type {Change, OpContext, Plan} from '../plan'
import type {Snapshot} from '../snapshot'
import {type SessionMoveName, judgeSessionMove, sessionMove, sessionStandingOf} from '../state-machine'
import {FINISHED, type TaskMeta} from '../task'
import {longerLease} from './lease'
import {checkBody, checkNote, checkText, checkTitle} from '../validation'
import {
  SESSION_TERMINAL,
  type SessionCheckpoint,
  type SessionCheckpointKind,
  type WorkSession,
  isSessionId,
  matchSessionId,
  newSessionId,
  sessionCheckpointPath,
  sessionClaimLive,
  sessionFilePath,
  serialiseSession,
  serialiseSessionCheckpoint,
} from '../work-session'
import {compactTimestamp} from './comment'
import {leaseUntil} from './revision'

export interface SessionChange {
  session: WorkSession
  /** The checkpoint the change wrote (checkpoint, release, complete), else null. */
  checkpoint: SessionCheckpoint | null
  /** claim: the actor already held it (lease renewed). */
  already_owned?: boolean
  /** claim/takeover: the owner it was taken from. */
  took_over_from?: string | null
}

/** The sessions the layer below read; an op that needs them and was handed none is a bug. */
function sessionsOf(snap: Snapshot): ReadonlyMap<string, WorkSession> {
  if (!snap.sessions) throw new Error('internal: the coordination sessions were not read for this command')
  return snap.sessions
}

/** The session `input` names (its id or a unique prefix): exit 3 when none, 2 when ambiguous. */
export function findSession(snap: Snapshot, input: string): WorkSession {
  const sessions = sessionsOf(snap)
  const m = matchSessionId(input, sessions.keys())
  if ('id' in m) return sessions.get(m.id)!
  if ('ambiguous' in m) throw new UsageError(`"${input}" is ambiguous: it matches ${m.ambiguous.slice(0, 5).join(', ')}`, {input, candidates: m.ambiguous.slice(0, 20)}, 'ambiguous_id')
  throw new NotFoundError('session_not_found', `no coordination session matches "${input}" (\`tasks session list\` shows them)`, {input})
}

/** The tasks that belong to session `id`, in id order. */
export function tasksOfSession(snap: Snapshot, id: string): TaskMeta[] {
  const out: TaskMeta[] = []
  for (const e of snap.tasks.values()) if (e.meta?.work_session === id) out.push(e.meta)
  return out.sort((a, b) => (a.id < b.id ? -1 : 1))
}

function touch(s: WorkSession, ctx: OpContext, changes: Partial<WorkSession>): WorkSession {
  return {...s, ...changes, updated_at: ctx.now, updated_by: ctx.actor}
}

function sessionPlan(op: string, s: WorkSession, changes: Change[], trailers: Array<[string, string]>, result: SessionChange): Plan<SessionChange> {
  return {op, subject: {id: s.id, title: s.title}, changes, trailers: [['Session', s.id], ...trailers], result}
}

function putSession(s: WorkSession): Change {
  return {kind: 'put-file', path: sessionFilePath(s.id), content: serialiseSession(s)}
}

/** Refused unless the fencing token matches the session's claim. */
function assertSessionEpoch(s: WorkSession, epoch: number | undefined): void {
  if (epoch === undefined || epoch === s.epoch) return
  throw new NotPermittedError('stale_epoch', `your claim on ${s.id} is stale: it is at epoch ${s.epoch} (${s.owner ? `held by ${s.owner}` : 'not claimed'}), you hold epoch ${epoch}`, {
    id: s.id,
    epoch: s.epoch,
    your_epoch: epoch,
    owner: s.owner ?? null,
  })
}

/**
 * The move `move` of session `s` by the actor through the rulebook: a move
 * the state does not allow is exit 4 (session_finished, session_not_claimed),
 * someone else's session without an override exit 6 (not_owner).
 * Returns whether it was an override.
 */
function assertSessionMove(snap: Snapshot, s: WorkSession, ctx: OpContext, move: SessionMoveName, action: string, epoch?: number): {overridden: boolean} {
  if (SESSION_TERMINAL.has(s.state)) {
    throw new ConflictError('session_finished', `session ${s.id} is ${s.state}; a finished session takes no more changes`, {id: s.id, state: s.state})
  }
  const row = sessionMove(move, s.state)
  if (!row) {
    throw new ConflictError('session_not_claimed', `session ${s.id} is ${s.state}: nobody holds it; claim it first (\`tasks session claim ${s.id}\`) to ${action} it`, {id: s.id, state: s.state})
  }
  assertSessionEpoch(s, epoch)
  const verdict = judgeSessionMove(row, sessionStandingOf(s, ctx.actor, ctx.now, snap.config, ctx.force !== undefined))
  if (verdict.ok) return {overridden: verdict.overridden && s.owner !== ctx.actor}
  if (verdict.refusal === 'not_admin') {
    throw new NotPermittedError('not_admin', `only the admins listed in config.yaml may ${action} session ${s.id}${move === 'takeover' ? '' : ' with --force'}`, {id: s.id, admins: snap.config.admins})
  }
  const live = sessionClaimLive(s, ctx.now, snap.config)
  throw new NotPermittedError('not_owner', `session ${s.id} is held by ${s.owner ?? 'nobody'}${live ? '' : ' (lease expired)'}; only its owner may ${action} it. Claim it (once its lease ran out), take it over (\`tasks session takeover\`), or use --force --reason "…"`, {
    id: s.id,
    owner: s.owner ?? null,
    epoch: s.epoch,
    lease_expires: s.lease_expires ?? null,
  })
}

function overrideTrailers(ctx: OpContext, overridden: boolean): Array<[string, string]> {
  return overridden && ctx.force ? [['Tasks-Override', ctx.force.reason]] : []
}

function newCheckpoint(s: WorkSession, ctx: OpContext, kind: SessionCheckpointKind, summary: string, next: string | undefined): SessionCheckpoint {
  const hash = createHash('sha256').update(`${s.id}\0${ctx.actor}\0${ctx.now}\0${kind}\0${summary}\0${ctx.entropy}`).digest('hex').slice(0, 8)
  return {id: `${compactTimestamp(ctx.now)}-${hash}`, session: s.id, kind, author: ctx.actor, created_at: ctx.now, epoch: s.epoch, summary, ...(next !== undefined ? {next} : {})}
}

function putCheckpoint(c: SessionCheckpoint): Change {
  return {kind: 'put-file', path: sessionCheckpointPath(c.session, c.id), content: serialiseSessionCheckpoint(c)}
}

/** An inbox record for `to` about session `s` (the card rules' records, for a session: takeover, cancel). */
function inboxRecord(s: WorkSession, ctx: OpContext, event: string, to: string, body: string): Change {
  const stem = recordStem(ctx.now, to, event, ctx.entropy)
  return {kind: 'put-file', path: recordPath(to, stem), content: serialiseRecord({id: stem, event, task: s.id, tasks: [s.id], actor: ctx.actor, to, created_at: ctx.now, roles: ['owner'], body})}
}

function checkSummary(snap: Snapshot, text: string): string {
  return checkText('summary', text.replace(/\s+$/, ''), snap.config.max_comment_bytes, true)
}

function checkNext(snap: Snapshot, text: string): string {
  return checkText('next', text.replace(/\s+$/, ''), snap.config.max_comment_bytes, true)
}

// ------------------------------------------------------------------ the ops

export function createSession(snap: Snapshot, ctx: OpContext, args: {title: string; description: string; strategy: string}): Plan<SessionChange> {
  const sessions = sessionsOf(snap)
  const title = checkTitle(args.title, snap.config)
  const description = checkBody(args.description.replace(/\s+$/, ''), snap.config)
  const strategy = checkBody(args.strategy.replace(/\s+$/, ''), snap.config)
  if (!description.trim()) throw new InvalidError('empty_body', 'a session needs a description (--description): the user\'s demand, in full', {field: 'description'})
  if (!strategy.trim()) throw new InvalidError('empty_body', 'a session needs a strategy (--strategy): the approach taken', {field: 'strategy'})
  const id = newSessionId(ctx.entropy, (c) => sessions.has(c))
  const s: WorkSession = {
    id,
    title,
    state: 'open',
    strategy,
    epoch: 0,
    revision: 1,
    created_at: ctx.now,
    created_by: ctx.actor,
    updated_at: ctx.now,
    updated_by: ctx.actor,
    description,
  }
  return sessionPlan('session_create', s, [putSession(s)], [], {session: s, checkpoint: null})
}

export function claimSession(snap: Snapshot, ctx: OpContext, args: {id: string; leaseSeconds?: number}): Plan<SessionChange> {
  const s = findSession(snap, args.id)
  const lease = leaseUntil(ctx.now, args.leaseSeconds ?? snap.config.lease_seconds)
  if (SESSION_TERMINAL.has(s.state)) throw new ConflictError('session_finished', `session ${s.id} is ${s.state}; a finished session cannot be claimed`, {id: s.id, state: s.state})
  if (s.state === 'in_progress' && s.owner === ctx.actor) {
    // Claiming what you hold renews the lease (never shortens a longer one).
    const next = touch(s, ctx, {lease_expires: longerLease(s.lease_expires, lease)})
    return sessionPlan('session_claim', s, [putSession(next)], [['Tasks-Epoch', String(next.epoch)], ['Tasks-Renewed', 'yes']], {session: next, checkpoint: null, already_owned: true, took_over_from: null})
  }
  const live = s.state === 'in_progress' && sessionClaimLive(s, ctx.now, snap.config)
  if (live && !ctx.force) {
    throw new ConflictError('session_claimed', `session ${s.id} is already claimed by ${s.owner} (epoch ${s.epoch}, lease until ${s.lease_expires ?? 'never'}); wait for a release, or \`tasks session takeover\` it with a reason`, {
      id: s.id,
      owner: s.owner ?? null,
      epoch: s.epoch,
      lease_expires: s.lease_expires ?? null,
    })
  }
  const {overridden} = assertSessionMove(snap, s, ctx, 'claim', 'claim')
  const from = s.state === 'in_progress' ? (s.owner ?? null) : null
  const next = touch(s, ctx, {state: 'in_progress', owner: ctx.actor, epoch: s.epoch + 1, claimed_at: ctx.now, lease_expires: lease})
  const trailers: Array<[string, string]> = [['Tasks-Epoch', String(next.epoch)], ...overrideTrailers(ctx, overridden)]
  if (from) trailers.push(['Tasks-Takeover', from])
  return sessionPlan('session_claim', s, [putSession(next)], trailers, {session: next, checkpoint: null, already_owned: false, took_over_from: from})
}

export function heartbeatSession(snap: Snapshot, ctx: OpContext, args: {id: string; epoch?: number; leaseSeconds?: number}): Plan<SessionChange> {
  const s = findSession(snap, args.id)
  assertSessionMove(snap, s, ctx, 'heartbeat', 'renew the lease of', args.epoch)
  const lease = leaseUntil(ctx.now, args.leaseSeconds ?? snap.config.lease_seconds)
  const next = touch(s, ctx, {lease_expires: longerLease(s.lease_expires, lease)})
  return sessionPlan('session_heartbeat', s, [putSession(next)], [['Tasks-Epoch', String(s.epoch)]], {session: next, checkpoint: null})
}

export function checkpointSession(snap: Snapshot, ctx: OpContext, args: {id: string; summary: string; next: string; epoch?: number; leaseSeconds?: number}): Plan<SessionChange> {
  const s = findSession(snap, args.id)
  const {overridden} = assertSessionMove(snap, s, ctx, 'checkpoint', 'checkpoint', args.epoch)
  const c = newCheckpoint(s, ctx, 'checkpoint', checkSummary(snap, args.summary), checkNext(snap, args.next))
  // A checkpoint by the holder renews the lease (never shortens a longer one).
  const lease = overridden ? s.lease_expires : leaseUntil(ctx.now, args.leaseSeconds ?? snap.config.lease_seconds)
  const next = touch(s, ctx, {lease_expires: lease ? longerLease(s.lease_expires, lease) : s.lease_expires})
  return sessionPlan('session_checkpoint', s, [putSession(next), putCheckpoint(c)], [['Tasks-Epoch', String(s.epoch)], ...overrideTrailers(ctx, overridden)], {session: next, checkpoint: c})
}

export function reviseSession(snap: Snapshot, ctx: OpContext, args: {id: string; description?: string; strategy?: string; ifRevision?: number; reason: string; epoch?: number}): Plan<SessionChange> {
  const s = findSession(snap, args.id)
  if (args.description === undefined && args.strategy === undefined) throw new UsageError('say what to revise: --description and/or --strategy')
  const reason = checkNote('reason', args.reason, snap.config)
  const {overridden} = assertSessionMove(snap, s, ctx, 'revise', 'revise', args.epoch)
  if (args.ifRevision !== undefined && args.ifRevision !== s.revision) {
    throw new ConflictError(
      'revision_mismatch',
      `session ${s.id} is at revision ${s.revision}, not ${args.ifRevision} (last revised by ${s.revised_by ?? s.created_by} at ${s.revised_at ?? s.created_at}). Nothing was written; read it again (\`tasks session show ${s.id}\`) and retry with --if-revision ${s.revision}`,
      {id: s.id, revision: s.revision, expected: args.ifRevision, updated_by: s.updated_by, updated_at: s.updated_at},
    )
  }
  const description = args.description === undefined ? s.description : checkBody(args.description.replace(/\s+$/, ''), snap.config)
  const strategy = args.strategy === undefined ? s.strategy : checkBody(args.strategy.replace(/\s+$/, ''), snap.config)
  if (!description.trim()) throw new InvalidError('empty_body', 'the description cannot be empty', {field: 'description'})
  if (!strategy.trim()) throw new InvalidError('empty_body', 'the strategy cannot be empty', {field: 'strategy'})
  if (description === s.description && strategy === s.strategy) return sessionPlan('session_revise', s, [], [], {session: s, checkpoint: null})
  const next = touch(s, ctx, {description, strategy, revision: s.revision + 1, revised_at: ctx.now, revised_by: ctx.actor, revise_reason: reason})
  return sessionPlan('session_revise', s, [putSession(next)], [['Tasks-Reason', reason], ['Tasks-Revision', String(next.revision)], ...overrideTrailers(ctx, overridden)], {session: next, checkpoint: null})
}

export function releaseSession(snap: Snapshot, ctx: OpContext, args: {id: string; summary: string; next: string; epoch?: number}): Plan<SessionChange> {
  const s = findSession(snap, args.id)
  const {overridden} = assertSessionMove(snap, s, ctx, 'release', 'release', args.epoch)
  const c = newCheckpoint(s, ctx, 'release', checkSummary(snap, args.summary), checkNext(snap, args.next))
  const next = touch(s, ctx, {state: 'open', owner: undefined, claimed_at: undefined, lease_expires: undefined})
  return sessionPlan('session_release', s, [putSession(next), putCheckpoint(c)], [['Tasks-Epoch', String(s.epoch)], ...overrideTrailers(ctx, overridden)], {session: next, checkpoint: c})
}

/** The tasks of session `id` that are not finished (done or cancelled). */
export function openTasksOfSession(snap: Snapshot, id: string): TaskMeta[] {
  return tasksOfSession(snap, id).filter((t) => !FINISHED.has(t.status))
}

export function completeSession(snap: Snapshot, ctx: OpContext, args: {id: string; summary: string; epoch?: number}): Plan<SessionChange> {
  const s = findSession(snap, args.id)
  const {overridden} = assertSessionMove(snap, s, ctx, 'complete', 'complete', args.epoch)
  const summary = checkSummary(snap, args.summary)
  const open = openTasksOfSession(snap, s.id)
  if (open.length > 0) {
    throw new ConflictError('session_tasks_open', `session ${s.id} still has ${open.length} unfinished task${open.length === 1 ? '' : 's'}: ${open.slice(0, 10).map((t) => `${t.id} (${t.status})`).join(', ')}${open.length > 10 ? ', …' : ''}; finish or cancel them first`, {
      id: s.id,
      tasks: open.map((t) => ({id: t.id, status: t.status})),
    })
  }
  const c = newCheckpoint(s, ctx, 'complete', summary, undefined)
  const next = touch(s, ctx, {state: 'completed', summary, closed_at: ctx.now, lease_expires: undefined})
  return sessionPlan('session_complete', s, [putSession(next), putCheckpoint(c)], [['Tasks-Epoch', String(s.epoch)], ...overrideTrailers(ctx, overridden)], {session: next, checkpoint: c})
}

export function cancelSession(snap: Snapshot, ctx: OpContext, args: {id: string; reason: string}): Plan<SessionChange> {
  const s = findSession(snap, args.id)
  const reason = checkNote('reason', args.reason, snap.config)
  const {overridden} = assertSessionMove(snap, s, ctx, 'cancel', 'cancel')
  const next = touch(s, ctx, {state: 'cancelled', cancel_reason: reason, closed_at: ctx.now, lease_expires: undefined})
  const changes: Change[] = [putSession(next)]
  if (s.owner && s.owner !== ctx.actor) changes.push(inboxRecord(s, ctx, 'session_cancel', s.owner, `${ctx.actor} cancelled session ${s.id} "${s.title}" that you held\n\n> ${reason}`))
  return sessionPlan('session_cancel', s, changes, [['Tasks-Reason', reason], ...overrideTrailers(ctx, overridden)], {session: next, checkpoint: null})
}

export function takeoverSession(snap: Snapshot, ctx: OpContext, args: {id: string; reason: string; leaseSeconds?: number}): Plan<SessionChange> {
  const s = findSession(snap, args.id)
  const reason = checkNote('reason', args.reason, snap.config)
  if (s.state === 'in_progress' && s.owner === ctx.actor) throw new ConflictError('already_owned', `you already hold session ${s.id}`, {id: s.id})
  assertSessionMove(snap, s, ctx, 'takeover', 'take over')
  const from = s.owner!
  const live = sessionClaimLive(s, ctx.now, snap.config)
  const next = touch(s, ctx, {owner: ctx.actor, epoch: s.epoch + 1, claimed_at: ctx.now, lease_expires: leaseUntil(ctx.now, args.leaseSeconds ?? snap.config.lease_seconds)})
  const changes: Change[] = [putSession(next)]
  if (from !== ctx.actor) {
    changes.push(inboxRecord(s, ctx, 'session_takeover', from, `${ctx.actor} took over session ${s.id} "${s.title}" from you (your claim was ${live ? 'live' : 'expired'}; epoch ${s.epoch} → ${next.epoch})\n\n> ${reason}`))
  }
  return sessionPlan('session_takeover', s, changes, [['Tasks-Epoch', String(next.epoch)], ['Tasks-Takeover', from], ['Tasks-Reason', reason]], {session: next, checkpoint: null, took_over_from: from})
}

// ------------------------------------------------------------------ tasks joining a session

/**
 * The session a new task joins: `explicit` (--session: an id or prefix that
 * must name a session, else exit 3), else the parent's (sub-items inherit
 * it; an explicit other one is refused), else `fromEnv` (TASKS_SESSION) when
 * it is the full id of an existing session (any other value is an agent-run
 * label and is ignored). A finished session takes no new tasks (exit 4).
 */
export function sessionForNewTask(snap: Snapshot, args: {explicit?: string; fromEnv?: string; parent?: TaskMeta}): string | undefined {
  const inherited = args.parent?.work_session
  let chosen: WorkSession | undefined
  if (args.explicit !== undefined) chosen = findSession(snap, args.explicit)
  else if (inherited === undefined && args.fromEnv !== undefined && isSessionId(args.fromEnv.trim())) chosen = snap.sessions?.get(args.fromEnv.trim())
  if (chosen && inherited !== undefined && chosen.id !== inherited) {
    throw new ConflictError('session_mismatch', `a sub-item belongs to its parent's session: ${args.parent!.id} is in ${inherited}, not ${chosen.id}`, {parent: args.parent!.id, session: inherited, asked: chosen.id})
  }
  if (chosen && SESSION_TERMINAL.has(chosen.state)) {
    throw new ConflictError('session_finished', `session ${chosen.id} is ${chosen.state}; it takes no new tasks`, {id: chosen.id, state: chosen.state})
  }
  return chosen?.id ?? inherited
}
