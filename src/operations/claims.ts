/**
 * The operations of claimed work: claim, next, heartbeat, checkpoint, done,
 * block, reopen, release, cancel, takeover and sweep.
 */
import {p} from '../core/params'
import {UsageError} from '../core/errors'
import {operation} from './spec'
import {checkpointSession, epoch, idOf, ifRevision, lease, nextStep, summary, taskId, taskIds} from './common'

export const claim = operation({
  name: 'claim',
  toolset: 'core',
  summary: 'Claim a task: it becomes in_progress, owned by you, with a lease.',
  description: 'Atomic: when several agents claim the same item at once exactly one wins; the others exit 4 naming the holder. An expired lease may be claimed again (epoch + 1).',
  params: {id: taskId, lease},
  writes: true,
  override: true,
  agentSession: true,
  result: 'claim',
  examples: ['<%= config.bin %> claim tsk-k3v9 --json', '<%= config.bin %> claim tsk-k3v9 --lease 30m'],
  batch: {claims: true, plan: (ops, snap, ctx, a) => idOf(ops.claimWithoutSweep(snap, ctx, {id: a.id, leaseSeconds: a.lease}))},
  run: (e, s, a) => e.claims.claim(s, a),
})

export const next = operation({
  name: 'next',
  toolset: 'core',
  summary: 'Claim the next ready task, or resume the one you hold.',
  description:
    'Safe to retry: when you already hold an in-progress item, next hands it back (lease renewed, "resumed": true) instead of taking another; --another takes one more. Otherwise it claims the first ready item: reserved for you first, then by priority, then oldest. Ready means todo, nothing to wait on (its own dependencies and its parent\'s), not reserved for someone else, and no open sub-items; an in-progress item whose lease expired counts too. --json includes the description and the newest comments. Exits 3 when nothing is ready.',
  params: {
    tags: p.strings('Only items with this tag (repeatable).', {char: 't', aliases: ['tag']}),
    another: p.boolean('Take one more item even if you already hold one (do not resume).'),
    lease,
  },
  writes: true,
  agentSession: true,
  result: 'next',
  compact: (e, r) => e.compact.compactNext(r),
  examples: ['<%= config.bin %> next --json', '<%= config.bin %> next --tags backend', '<%= config.bin %> next --another'],
  batch: {claims: true, plan: (ops, snap, ctx, a) => idOf(ops.nextWithoutSweep(snap, ctx, {tags: a.tags, leaseSeconds: a.lease, another: a.another ?? false}))},
  run: (e, s, a) => e.claims.next(s, a),
})

export const heartbeat = operation({
  name: 'heartbeat',
  toolset: 'core',
  summary: 'Extend the lease on a task you hold.',
  params: {id: taskId, epoch, lease},
  writes: true,
  result: 'heartbeat',
  examples: ['<%= config.bin %> heartbeat tsk-k3v9 --lease 30m', '<%= config.bin %> heartbeat tsk-k3v9 --epoch 2 --json'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.heartbeat(snap, ctx, {id: a.id, epoch: a.epoch, leaseSeconds: a.lease}))},
  run: (e, s, a) => e.claims.beat(s, a),
})

export const checkpoint = operation({
  name: 'checkpoint',
  toolset: 'core',
  summary: 'Record progress on a task you hold (what is done, the next step) and renew the lease.',
  description:
    'The checkpoint is a typed comment on the card. `show` and `next --json` return the newest one first, so whoever picks the item up next (after a release, a lost context, an expired lease or a takeover) starts where you stopped.',
  params: {id: taskId, summary: summary.need(), next: nextStep.need(), session: checkpointSession, epoch, lease},
  writes: true,
  // --session names the checkpoint's session and, as for every command, the session acting.
  agentSession: true,
  result: 'checkpoint',
  examples: [
    '<%= config.bin %> checkpoint tsk-k3v9 --summary "CAS loop done, tests green" --next "wire the online path in transaction.ts"',
    '<%= config.bin %> checkpoint tsk-k3v9 --summary "…" --next "…" --session s-42 --json',
  ],
  run: (e, s, a) => e.claims.checkpoint(s, {...a, session: a.session ?? s.sessionName()}),
})

export const done = operation({
  name: 'done',
  toolset: 'core',
  summary: 'Finish tasks you hold (a ready todo item is claimed and finished in one step).',
  description:
    'Refused while a dependency or a sub-item is unfinished, a check is pending, the item is flagged, or someone else holds it. Several ids are one commit, all or nothing: if one is refused, nothing is written and the error names it. --summary records a last checkpoint in the same commit.',
  params: {id: taskIds, epoch, summary: summary.onlyOn(['cli', 'mcp']), session: checkpointSession.onlyOn(['cli', 'mcp'])},
  writes: true,
  override: true,
  agentSession: true,
  result: 'done',
  examples: ['<%= config.bin %> done tsk-k3v9', '<%= config.bin %> done tsk-k3v9 --epoch 2 --json', '<%= config.bin %> done tsk-k3v9 tsk-8d2q tsk-p0ab'],
  batch: {readsChecks: true, plan: (ops, snap, ctx, a) => idOf(ops.finishTask(snap, ctx, {id: a.id[0]!, epoch: a.epoch}))},
  run: (e, s, a) => e.claims.finish(s, {ids: a.id, epoch: a.epoch, checkpoint: a.summary !== undefined ? {summary: a.summary, session: a.session ?? s.sessionName()} : undefined}),
})

export const block = operation({
  name: 'block',
  toolset: 'core',
  summary: 'Mark a task you hold as blocked, with a note saying on what (--on: on whom).',
  description: 'A blocked item can be finished directly once the blocker clears, resumed with claim, or reopened. With --on ACTOR the card is parked on that person (`blocked_on`): `stale` and `remind` leave it alone, and `list --blocked-on ACTOR` is their decision queue; a block without --on is not parked. Claiming, finishing, reopening or cancelling the card clears it.',
  params: {
    id: taskId,
    reason: p.string('what it is waiting on', {positional: true, aliases: ['note']}).need(),
    on: p.string('Who it waits on (an actor; @me: you): the card is parked on them.'),
    epoch,
    ifRevision,
  },
  writes: true,
  override: true,
  result: 'block',
  examples: ['<%= config.bin %> block tsk-k3v9 "waiting on API review"', '<%= config.bin %> block tsk-k3v9 "which schema version?" --on carol'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.blockTask(snap, ctx, {id: a.id, note: a.reason, epoch: a.epoch, on: a.on}))},
  run: (e, s, a) => e.claims.block(s, a),
})

export const reopen = operation({
  name: 'reopen',
  toolset: 'planning',
  summary: 'Put tasks back to todo and clear their owners.',
  description: 'Several ids are one commit, all or nothing: if one is refused, nothing is written and the error names it.',
  params: {id: taskIds, epoch},
  writes: true,
  override: true,
  result: 'reopen',
  examples: ['<%= config.bin %> reopen tsk-k3v9', '<%= config.bin %> reopen tsk-k3v9 tsk-8d2q'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.reopenTask(snap, ctx, {id: a.id[0]!, epoch: a.epoch}))},
  run: (e, s, a) => e.claims.reopen(s, {ids: a.id, epoch: a.epoch}),
})

export const release = operation({
  name: 'release',
  toolset: 'core',
  summary: 'Give claims back (the tasks return to todo), or --all of yours.',
  description:
    'Run `tasks release --all` when an agent session stops so its claims do not wait for their leases to run out. Several ids are one commit, all or nothing. --session releases every item that agent session holds (alone). --summary and --next record a checkpoint in the same commit.',
  params: {
    id: p.ids('task ids or unique prefixes (one or more)', {positional: true}),
    all: p.boolean('Release every item you hold, in one commit.', {only: ['cli', 'mcp']}),
    session: p.string('Release every item you hold under this agent-run label (the --session/TASKS_SESSION a claim recorded), in one commit: what a runner calls when its agent stops. With --force (admins, when the list names them): whoever holds them.', {only: ['cli', 'mcp']}),
    epoch,
    summary: summary.onlyOn(['cli', 'mcp']),
    next: nextStep.onlyOn(['cli', 'mcp']),
  },
  writes: true,
  override: true,
  result: 'release',
  examples: [
    '<%= config.bin %> release tsk-k3v9',
    '<%= config.bin %> release tsk-k3v9 tsk-8d2q',
    '<%= config.bin %> release --all',
    '<%= config.bin %> release --session agent-7-run-42',
    '<%= config.bin %> release tsk-k3v9 --summary "parser done" --next "hook it into sync"',
  ],
  check: (a) => {
    if (a.session !== undefined) {
      if (a.all || a.id !== undefined || a.summary !== undefined || a.next !== undefined) throw new UsageError('pass --session S alone: not with IDs, --all, --summary or --next')
    } else if ((a.summary === undefined) !== (a.next === undefined)) {
      throw new UsageError('release records a checkpoint with both --summary (what is done) and --next (the next step)')
    }
  },
  batch: {
    plan: (ops, snap, ctx, a) => {
      // In a batch an item names its task (no --all, no --session).
      if (a.id === undefined) throw new UsageError('release in a batch needs "id"', {field: 'id'})
      const plan = ops.releaseTask(snap, ctx, {id: a.id[0]!, epoch: a.epoch})
      return {plan, id: plan.result.tasks[0]?.id ?? null}
    },
  },
  run: (e, s, a) => {
    if (a.session !== undefined) return e.coordination.releaseBySession(s, {session: a.session})
    // The checkpoint names the session acting (TASKS_SESSION): --session here means "release that session's items".
    const checkpoint = a.summary !== undefined ? {summary: a.summary, next: a.next, session: s.sessionName()} : undefined
    return e.claims.release(s, {ids: a.id ?? [], all: Boolean(a.all), epoch: a.epoch, checkpoint})
  },
})

export const cancel = operation({
  name: 'cancel',
  toolset: 'planning',
  summary: 'Cancel tasks (final), with a reason; their open sub-items are cancelled too.',
  description: 'Several ids are one commit, all or nothing: if one is refused, nothing is written and the error names it.',
  params: {
    id: taskIds,
    // Also the override's reason when --force acts on an item someone else holds.
    reason: p.string('Why it is cancelled.', {char: 'r'}).need(),
    epoch,
  },
  writes: true,
  override: true,
  result: 'cancel',
  examples: ['<%= config.bin %> cancel tsk-k3v9 --reason "superseded by tsk-8d2q"', '<%= config.bin %> cancel tsk-k3v9 tsk-p0ab -r "out of scope"'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.cancelTask(snap, ctx, {id: a.id[0]!, reason: a.reason, epoch: a.epoch}))},
  run: (e, s, a) => e.claims.cancel(s, {ids: a.id, reason: a.reason, epoch: a.epoch}),
})

// Issue 33: deferred and failed (core/ops/states.ts; docs/model.md, "Deferred and failed").
export const defer = operation({
  name: 'defer',
  toolset: 'planning',
  summary: 'Defer a task: not handed out by next, not stale, back to todo after --until (or on reopen).',
  description:
    "Anyone may defer an open item nobody holds live (a lapsed claim is fenced out, epoch + 1); the holder may defer their own. Deferring a deferred item again changes its date and reason. Without --until it stays deferred until `tasks reopen`. The deferral runs out by itself: nothing has to run.",
  params: {
    id: taskId,
    until: p.string('Bring it back as todo from this date: YYYY-MM-DD (from the start of that day, UTC), a timestamp with a zone, today, tomorrow or +N[hdwmy] (+3d).'),
    reason: p.string('Why it is deferred.', {char: 'r'}).need(),
    epoch,
    ifRevision,
  },
  writes: true,
  override: true,
  result: 'defer',
  examples: ['<%= config.bin %> defer tsk-k3v9 --until 2027-01-04 --reason "after the freeze"', '<%= config.bin %> defer tsk-k3v9 --until +2w -r "waiting for the next quarter"', '<%= config.bin %> defer tsk-k3v9 -r "someday"'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.deferTask(snap, ctx, {id: a.id, reason: a.reason, until: a.until, epoch: a.epoch, ifRevision: a.ifRevision}))},
  run: (e, s, a) => e.claims.defer(s, a),
})

export const fail = operation({
  name: 'fail',
  toolset: 'planning',
  summary: 'Record that a task failed (terminal, unlike cancel it can be reopened), with a reason.',
  description: 'Its open sub-items are cancelled with it. Dependents keep waiting on a failed item, as on a cancelled one: reopen it, or change their dependencies. A parent counts it as finished.',
  params: {
    id: taskId,
    reason: p.string('Why it failed.', {char: 'r'}).need(),
    epoch,
  },
  writes: true,
  override: true,
  result: 'fail',
  examples: ['<%= config.bin %> fail tsk-k3v9 --reason "the vendor API was shut down"'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.failTask(snap, ctx, {id: a.id, reason: a.reason, epoch: a.epoch}))},
  run: (e, s, a) => e.claims.fail(s, a),
})

export const takeover = operation({
  name: 'takeover',
  toolset: 'coordination',
  summary: "Take over someone else's live claim whose owner will not come back (epoch + 1, recorded).",
  description:
    "For a live claim whose process or host is gone for good; an expired claim is claimed normally (exit 4 otherwise). --confirm repeats the card's id exactly (on a terminal without it, tasks asks for it; a wrong one exits 2, nothing written). --if-revision refuses a card changed since you read it; --lease sets your new lease. Refused for your own claim and when you are at max_claims_per_actor. The old owner's inbox record says the live claim was taken over, and why; its `done --epoch N` (and block, release, heartbeat) is then refused. Only admins when config.yaml lists them.",
  params: {
    id: taskId,
    reason: p.string('Why (recorded in the history and told to the old owner).').need(),
    confirm: p.string("The card's id again, exactly: the takeover is confirmed (on a terminal, asked for when left out)."),
    ifRevision,
    lease,
  },
  writes: true,
  agentSession: true,
  result: 'claim',
  examples: ['<%= config.bin %> takeover tsk-k3v9 --reason "agent-3 crashed and its host is gone" --confirm tsk-k3v9', '<%= config.bin %> takeover tsk-k3v9 --reason "…" --confirm tsk-k3v9 --if-revision 7 --lease 2h --json'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.takeoverTask(snap, ctx, {id: a.id, reason: a.reason, confirm: a.confirm, ifRevision: a.ifRevision, leaseSeconds: a.lease}))},
  run: (e, s, a) => e.coordination.takeover(s, a),
})

export const sweep = operation({
  name: 'sweep',
  toolset: 'coordination',
  summary: 'Reopen in-progress items whose lease expired (owner cleared, assignment kept), in one commit.',
  description:
    "`claim` and `next` do the same in the commit of their claim; run this to do it on its own (from a timer, say). The epoch moves on, so the old owner's --epoch is refused. Blocked items are left alone.",
  params: {},
  writes: true,
  result: 'sweep',
  examples: ['<%= config.bin %> sweep', '<%= config.bin %> sweep --json'],
  batch: {plan: (ops, snap, ctx) => ({plan: ops.sweepExpired(snap, ctx), id: null})},
  run: (e, s) => e.coordination.sweep(s),
})
