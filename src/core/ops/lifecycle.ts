/**
 * Status changes after a claim: `done`, `block`, `reopen` and `cancel`.
 *
 *   todo ──claim──▶ in_progress ──done──▶ done
 *                    │      ▲               │
 *                  block  claim (owner)   reopen ──▶ todo
 *                    ▼      │
 *                   blocked ──done──▶ done
 *   todo | in_progress | blocked ──cancel──▶ cancelled (terminal)
 *   deferred and failed (issue 33): ops/states.ts
 *
 * `done` and `block` on a todo item claim it for the actor in the same
 * commit (with the same checks as `claim`), so a person can close an item in
 * one step; the history still shows who did it. Which move each status
 * allows, and to whom, is the rulebook's (core/state-machine.ts); the ops
 * ask it and turn its refusals into their own words.
 */
import {ConflictError} from '../errors'
import {ME} from '../flag-values'
import type {OpContext, Plan} from '../plan'
import {waitReasons} from '../readiness'
import {type Snapshot, checksOf, lookup} from '../snapshot'
import {unmetChecks} from '../check'
import type {TaskMeta} from '../task'
import {wokenMeta} from '../dates'
import {instanceBody, nextInstance} from './states'
import {checkActor, checkNote} from '../validation'
import {assertClaimLimit, assertClaimable, assertEpoch, assertMove, describeWaits, openSubItemsError, overrideTrailers} from './permission'
import {missingCheckKinds, takesSubItems, taskMove} from '../state-machine'
import {NO_CLAIM, leaseUntil, revise} from './revision'
import {type CloseArgs, closeTask} from './finish-subtree'
import {assertRevision} from '../revision-guard'
import {type CheckpointText, checkpointChange, checkpointComment} from './checkpoint'

export interface FinishArgs {
  id: string
  epoch?: number
  /** `done --summary`: a closing checkpoint recorded in the same commit. */
  checkpoint?: CheckpointText
}

export function finishTask(snap: Snapshot, ctx: OpContext, args: FinishArgs): Plan<{task: TaskMeta; changed: boolean; next_instance?: TaskMeta}> {
  // Issue 33: a deferral whose time has come is todo (dates.ts).
  const meta = wokenMeta(lookup(snap, args.id), ctx.now)
  const subject = {id: meta.id, title: meta.title}
  if (meta.status === 'done') {
    if (meta.owner === ctx.actor) {
      // Already done by the actor: nothing changes, but a --summary typed with the repeat is still recorded, never dropped.
      if (!args.checkpoint) return {op: 'done', subject, changes: [], trailers: [], result: {task: meta, changed: false}}
      const cp = checkpointChange(checkpointComment(meta, ctx, snap.config, args.checkpoint, meta.epoch))
      return {op: 'checkpoint', subject, changes: [cp.change], trailers: [cp.trailer], result: {task: meta, changed: false}}
    }
    throw new ConflictError('already_done', `${meta.id} is already done${meta.owner ? ` (by ${meta.owner})` : ''}`, {id: meta.id, owner: meta.owner ?? null})
  }
  const row = taskMove('done', meta.status)
  if (!row) {
    if (meta.status === 'cancelled') throw new ConflictError('cancelled', `${meta.id} is cancelled: ${meta.cancel_reason ?? ''}`.trimEnd(), {id: meta.id})
    // Issue 33: deferred (its time not come) or failed: reopen it first.
    const why = meta.status === 'failed' ? meta.fail_reason : meta.defer_reason
    throw new ConflictError('not_open', `${meta.id} is ${meta.status}${why ? ` (${why})` : ''}${meta.status === 'deferred' && meta.defer_until ? ` until ${meta.defer_until}` : ''}; \`tasks reopen ${meta.id}\` first`, {id: meta.id, status: meta.status})
  }
  let epoch = meta.epoch
  let forced = false
  if (row.who === 'taker') {
    assertEpoch(meta, args.epoch)
    assertClaimable(snap, meta, ctx, 'finish')
    epoch += 1
  } else {
    forced = assertMove(snap, meta, ctx, 'done', 'finish', args.epoch).overridden
    if (!ctx.force) {
      const waiting = waitReasons(snap, meta)
      if (waiting.length > 0) {
        throw new ConflictError('waiting', `${meta.id} cannot be done while it waits on ${describeWaits(waiting)}`, {
          id: meta.id,
          blocked_by: waiting,
        })
      }
    }
  }
  const open = openSubItemsError(snap, meta, 'finish')
  if (open) throw open
  if (meta.flag_reason !== undefined) {
    throw new ConflictError('flagged', `${meta.id} is flagged by ${meta.flagged_by ?? 'someone'}: ${meta.flag_reason}; \`tasks unflag ${meta.id}\` once it is dealt with`, {
      id: meta.id,
      flag_reason: meta.flag_reason,
      flagged_by: meta.flagged_by ?? null,
    })
  }
  const checks = checksOf(snap, meta.id)
  // The creation gate (require_checks) holds to the end: a card finishes with an active acceptance and test check.
  const missing = missingCheckKinds(snap.config, checks)
  if (missing.length > 0) {
    throw new ConflictError('checks_required', `${meta.id} has no active ${missing.join(' or ')} check, and this list requires one of each (require_checks); add ${missing.length === 1 ? 'it' : 'them'} with \`tasks check add ${meta.id} --${missing[0]} TEXT\`, pass ${missing.length === 1 ? 'it' : 'them'}, then finish`, {
      id: meta.id,
      missing,
    })
  }
  const unmet = unmetChecks(checks)
  if (unmet.length > 0) {
    throw new ConflictError('checks_pending', `${meta.id} has checks that have not passed with evidence: ${unmet.map((c) => `${c.id} (${c.status}: ${c.text.length > 60 ? `${c.text.slice(0, 59)}…` : c.text})`).join(', ')}; pass them with \`tasks check pass ${meta.id} CHECK --evidence "…"\` or supersede them`, {
      id: meta.id,
      checks: unmet.map((c) => ({id: c.id, kind: c.kind, status: c.status, text: c.text})),
    })
  }
  const next = revise(meta, ctx, {
    ...NO_CLAIM,
    status: 'done',
    owner: row.who === 'taker' ? ctx.actor : meta.owner,
    epoch,
    closed_at: ctx.now,
  })
  const cp = args.checkpoint ? checkpointChange(checkpointComment(meta, ctx, snap.config, args.checkpoint, epoch)) : null
  // Issue 33: a repeating item's next instance, in the same commit (ops/states.ts).
  const instance = nextInstance(snap, ctx, meta)
  return {
    op: 'done',
    subject,
    changes: [{kind: 'put-task', meta: next}, ...(cp ? [cp.change] : []), ...(instance ? [{kind: 'put-task' as const, meta: instance, body: instanceBody(meta)}] : [])],
    trailers: [['Tasks-Epoch', String(epoch)], ...(cp ? [cp.trailer] : []), ...(instance ? [['Tasks-Repeat', instance.id] as [string, string]] : []), ...(forced || row.who === 'taker' ? overrideTrailers(ctx) : [])],
    result: {task: next, changed: true, ...(instance ? {next_instance: instance} : {})},
  }
}

export interface BlockArgs {
  id: string
  note: string
  epoch?: number
  /** Apply only while the card is at this revision (`--if-revision`). */
  ifRevision?: number
  /** `--on ACTOR` (`@me`: the actor): who the card waits on; the card is parked on them (`blocked_on`). Absent: not parked. */
  on?: string
}

/** The actor a `--on` names (`@me`: the acting one), checked; undefined when none was given. */
function blockerOf(on: string | undefined, ctx: OpContext): string | undefined {
  if (on === undefined) return undefined
  return on.trim() === ME ? ctx.actor : checkActor(on, 'blocker (--on)')
}

export function blockTask(snap: Snapshot, ctx: OpContext, args: BlockArgs): Plan<{task: TaskMeta}> {
  const meta = wokenMeta(lookup(snap, args.id), ctx.now)
  assertRevision(meta, args.ifRevision)
  const note = checkNote('note', args.note, snap.config)
  const on = blockerOf(args.on, ctx)
  const row = taskMove('block', meta.status)
  if (!row) {
    throw new ConflictError('not_open', `${meta.id} is ${meta.status}; only open items can be blocked`, {id: meta.id, status: meta.status})
  }
  let changes: Partial<TaskMeta>
  let forced = false
  if (row.who === 'taker') {
    assertEpoch(meta, args.epoch)
    assertClaimable(snap, meta, ctx, 'block')
    assertClaimLimit(snap, ctx, meta.id, `block ${meta.id}`)
    changes = {status: 'blocked', block_note: note, blocked_on: on, owner: ctx.actor, epoch: meta.epoch + 1, claimed_at: ctx.now, lease_expires: leaseUntil(ctx.now, snap.config.lease_seconds)}
  } else {
    forced = assertMove(snap, meta, ctx, 'block', 'block', args.epoch).overridden
    changes = {status: 'blocked', block_note: note, blocked_on: on}
  }
  const next = revise(meta, ctx, changes)
  return {
    op: 'block',
    subject: {id: meta.id, title: meta.title},
    changes: [{kind: 'put-task', meta: next}],
    // Taking a todo card with --force (past its readiness) records the override, as claim and done do.
    trailers: [['Tasks-Epoch', String(next.epoch)], ['Tasks-Note', note], ...(on !== undefined ? [['Tasks-Blocked-On', on] as [string, string]] : []), ...(forced || row.who === 'taker' ? overrideTrailers(ctx) : [])],
    result: {task: next},
  }
}

export function reopenTask(snap: Snapshot, ctx: OpContext, args: {id: string; epoch?: number}): Plan<{task: TaskMeta}> {
  const meta = wokenMeta(lookup(snap, args.id), ctx.now)
  if (meta.status === 'todo') throw new ConflictError('already_open', `${meta.id} is already todo`, {id: meta.id})
  if (meta.status === 'cancelled') {
    throw new ConflictError('terminal', `${meta.id} is cancelled, which is final; add a new task instead`, {id: meta.id})
  }
  // A finished parent takes no open sub-item, a reopened one included: reopen the parent first.
  const parent = meta.parent !== undefined ? snap.tasks.get(meta.parent)?.meta : undefined
  if (parent && !takesSubItems(parent.status)) {
    throw new ConflictError('parent_finished', `${meta.id} is a sub-item of ${parent.id}, which is ${parent.status}; reopen ${parent.id} first`, {id: meta.id, parent: parent.id, status: parent.status})
  }
  const verdict = assertMove(snap, meta, ctx, 'reopen', 'reopen', args.epoch)
  // Someone else's lapsed claim reopened: its former holder is fenced out, as by the sweep.
  const fenced = verdict.lapsed && taskMove('reopen', meta.status)!.fences === true
  // Issue 33: reopening a failed or deferred item clears why it was so.
  const next = revise(meta, ctx, {...NO_CLAIM, status: 'todo', closed_at: undefined, fail_reason: undefined, defer_reason: undefined, defer_until: undefined, ...(fenced ? {epoch: meta.epoch + 1} : {})})
  return {
    op: 'reopen',
    subject: {id: meta.id, title: meta.title},
    changes: [{kind: 'put-task', meta: next}],
    trailers: verdict.overridden ? overrideTrailers(ctx) : [],
    result: {task: next},
  }
}

export type CancelArgs = CloseArgs

/** Cancel an item (terminal); its unfinished sub-items (and theirs) are cancelled with it (ops/finish-subtree.ts, closeTask). */
export function cancelTask(snap: Snapshot, ctx: OpContext, args: CancelArgs): Plan<{task: TaskMeta; subitems: TaskMeta[]}> {
  return closeTask(snap, ctx, 'cancel', args)
}
