/**
 * `tasks check add|pass|fail|supersede`: acceptance criteria and tests of
 * an item, each its own file (core/check.ts). Anyone may pass or fail a
 * check; adding or superseding one changes the spec, which is the holder's
 * while the claim is live (`assertMayRevise`). By the holder of a live
 * claim, adding, passing or failing a check renews its lease (ops/lease.ts). Passing and failing need
 * evidence, which the file keeps. Which move a check's state allows is the
 * rulebook's (CHECK_MOVES in core/state-machine.ts). The ops read the
 * item's checks from `snap.checks` (read by the layer below before the op
 * runs).
 */
import {type Check, type CheckKind, CHECK_KINDS, findCheck, newCheckId, sortChecks} from '../check'
import {ConflictError, UsageError} from '../errors'
import type {Change, OpContext, Plan} from '../plan'
import {type Snapshot, checksOf, lookup} from '../snapshot'
import {FINISHED, type TaskMeta} from '../task'
import {checkText} from '../validation'
import {checkMove, supersedeLeavesKindEmpty} from '../state-machine'
import {assertFence, assertMayRevise, reasonTrailers} from './permission'
import {activityRenewal} from './lease'

export interface CheckResult {
  task: TaskMeta
  check: Check
  /** False when the check already stood as asked (nothing written). */
  changed: boolean
}

function openItem(snap: Snapshot, input: string, action: string): TaskMeta {
  const meta = lookup(snap, input)
  if (FINISHED.has(meta.status)) {
    throw new ConflictError('not_open', `${meta.id} is ${meta.status}; reopen it to ${action} its checks`, {id: meta.id, status: meta.status})
  }
  return meta
}

function plan(snap: Snapshot, ctx: OpContext, meta: TaskMeta, check: Check, what: string, changed = true, more: Array<[string, string]> = []): Plan<CheckResult> {
  // A check update by the holder of a live claim renews its lease (ops/lease.ts), in the same commit.
  const renewal = changed ? activityRenewal(meta, ctx, snap.config) : null
  return {
    op: 'check',
    subject: {id: meta.id, title: meta.title},
    changes: changed ? [{kind: 'put-check', check}, ...(renewal ? [renewal.change] : [])] : [],
    trailers: [['Tasks-Check', `${check.id} ${what}`], ...(changed ? more : [])],
    result: {task: renewal?.task ?? meta, check, changed},
  }
}

export function addCheck(snap: Snapshot, ctx: OpContext, args: {id: string; kind: string; text: string; reason?: string; epoch?: number}): Plan<CheckResult> {
  const meta = openItem(snap, args.id, 'add to')
  assertFence(snap, meta, ctx, args.epoch, 'add a check to')
  if (!(CHECK_KINDS as readonly string[]).includes(args.kind)) {
    throw new UsageError(`"${args.kind}" is not a check kind: use ${CHECK_KINDS.join(' or ')}`, {kind: args.kind}, 'bad_check_kind')
  }
  const text = checkText('check', args.text, snap.config.max_comment_bytes, true).trim()
  const reason = args.reason?.trim() ? checkText('reason', args.reason, snap.config.max_comment_bytes, true).trim() : undefined
  // A check is part of the spec: adding one to an item someone else holds live needs --force --reason.
  const forced = assertMayRevise(snap, meta, ctx, 'add a check to')
  const existing = checksOf(snap, meta.id)
  const id = newCheckId(meta.id, ctx.actor, ctx.now, text, ctx.entropy, (c) => existing.some((e) => e.id === c))
  const check: Check = {
    id,
    task: meta.id,
    kind: args.kind as CheckKind,
    text,
    status: 'pending',
    spec_revision: meta.revision,
    added_by: ctx.actor,
    added_at: ctx.now,
    updated_by: ctx.actor,
    updated_at: ctx.now,
  }
  return plan(snap, ctx, meta, check, `added (${check.kind})`, true, reasonTrailers(ctx, reason, forced))
}

/** Pass or fail a check, with evidence. Passing a passed check again with the same evidence changes nothing. */
export function recordCheck(snap: Snapshot, ctx: OpContext, args: {id: string; check: string; outcome: 'passed' | 'failed'; evidence: string; epoch?: number}): Plan<CheckResult> {
  const meta = openItem(snap, args.id, args.outcome === 'passed' ? 'pass' : 'fail')
  assertFence(snap, meta, ctx, args.epoch, args.outcome === 'passed' ? 'pass a check of' : 'fail a check of')
  const evidence = checkText('evidence', args.evidence ?? '', snap.config.max_comment_bytes, true).trim()
  const check = findCheck(checksOf(snap, meta.id), meta.id, args.check)
  if (!checkMove(args.outcome === 'passed' ? 'pass' : 'fail', check.status)) {
    throw new ConflictError('check_superseded', `check ${check.id} of ${meta.id} was superseded${check.supersede_reason ? `: ${check.supersede_reason}` : ''}; add a new check instead`, {id: meta.id, check: check.id})
  }
  if (check.status === args.outcome && check.evidence === evidence) return plan(snap, ctx, meta, check, args.outcome, false)
  const next: Check = {
    ...check,
    status: args.outcome,
    evidence,
    ...(args.outcome === 'passed' ? {passed_by: ctx.actor, passed_at: ctx.now} : {failed_by: ctx.actor, failed_at: ctx.now}),
    updated_by: ctx.actor,
    updated_at: ctx.now,
  }
  return plan(snap, ctx, meta, next, args.outcome)
}

/** Take a check out of the active set; it keeps its evidence and history. */
export function supersedeCheck(snap: Snapshot, ctx: OpContext, args: {id: string; check: string; reason: string; epoch?: number}): Plan<CheckResult> {
  const meta = openItem(snap, args.id, 'supersede')
  assertFence(snap, meta, ctx, args.epoch, 'supersede a check of')
  const reason = checkText('reason', args.reason ?? '', snap.config.max_comment_bytes, true).trim()
  const all = checksOf(snap, meta.id)
  const check = findCheck(all, meta.id, args.check)
  // Already superseded: nothing to do (superseded is final, so there is no move from it).
  if (!checkMove('supersede', check.status)) return plan(snap, ctx, meta, check, 'superseded', false)
  // Taking a check out of the spec is the holder's too: someone else's live claim needs --force.
  const forced = assertMayRevise(snap, meta, ctx, 'supersede a check of')
  // The creation gate (require_checks): the last active check of a required kind stays; add its replacement first.
  if (supersedeLeavesKindEmpty(snap.config, all, check)) {
    throw new ConflictError(
      'checks_required',
      `check ${check.id} is the last active ${check.kind} check of ${meta.id}, and this list requires one (require_checks); add its replacement first (\`tasks check add ${meta.id} --${check.kind} TEXT\`), then supersede it`,
      {id: meta.id, check: check.id, kind: check.kind},
    )
  }
  const next: Check = {...check, status: 'superseded', superseded_by: ctx.actor, superseded_at: ctx.now, supersede_reason: reason, updated_by: ctx.actor, updated_at: ctx.now}
  return plan(snap, ctx, meta, next, 'superseded', true, reasonTrailers(ctx, reason, forced))
}

/**
 * A new spec revision (title or description changed): every active check
 * that passed or failed goes back to pending, keeping its evidence. Returns
 * the changes and the ids reset, for the edit's own plan.
 */
export function resetChecks(snap: Snapshot, ctx: OpContext, task: TaskMeta): {changes: Change[]; reset: string[]} {
  const changes: Change[] = []
  const reset: string[] = []
  for (const c of sortChecks(checksOf(snap, task.id))) {
    if (!checkMove('reset', c.status)) continue
    changes.push({kind: 'put-check', check: {...c, status: 'pending', spec_revision: task.revision, reset_by: ctx.actor, reset_at: ctx.now, updated_by: ctx.actor, updated_at: ctx.now}})
    reset.push(c.id)
  }
  return {changes, reset}
}
