/**
 * The operations of checks and flags: check add, pass, fail, supersede and
 * list; flag and unflag; and prune, which retires finished work.
 */
import {p} from '../core/params'
import {UsageError} from '../core/errors'
import type {Plan} from '../core/plan'
import type {BatchStepOutcome} from '../core/ops/batch-file'
import {operation} from './spec'
import {epoch, idOf, ifRevision, taskId} from './common'

const checkId = p.string('check id (chk-…) or a unique prefix', {positional: true, batchRef: true}).need()

/** A check op's batch outcome: the task and the check. */
function checkOutcome(plan: Plan<{task: {id: string}; check: {id: string}}>): BatchStepOutcome {
  return {plan, id: plan.result.task.id, check: plan.result.check.id}
}

export const checkAdd = operation({
  name: 'check add',
  toolset: 'planning',
  summary: 'Add an acceptance criterion or a test to a task; it starts pending.',
  description:
    'The task cannot be done while an active check has not passed with evidence. Give exactly one of --acceptance or --test (`add` takes several of each). Checks are part of the spec: on an item someone else holds (a live claim) adding one needs --force --reason.',
  params: {
    id: taskId,
    acceptance: p.string('An acceptance criterion (what must be true).'),
    test: p.string('A test to run (what must pass).'),
    reason: p.string('Why (recorded in the commit; `show --revisions` shows it). With --force: the override\'s reason.'),
    ifRevision,
    epoch,
  },
  writes: true,
  override: true,
  result: 'check',
  examples: ['<%= config.bin %> check add tsk-k3v9 --acceptance "login works with SSO"', '<%= config.bin %> check add tsk-k3v9 --test "npm test -- auth" --json'],
  check: (a) => {
    if ((a.acceptance === undefined) === (a.test === undefined)) throw new UsageError('give exactly one of --acceptance TEXT or --test TEXT')
  },
  batch: {
    named: true,
    readsChecks: true,
    plan: (ops, snap, ctx, a) => checkOutcome(ops.addCheck(snap, ctx, {id: a.id, kind: a.acceptance !== undefined ? 'acceptance' : 'test', text: (a.acceptance ?? a.test)!, reason: a.reason, epoch: a.epoch})),
  },
  run: (e, s, a) => e.coordination.checkAdd(s, {id: a.id, kind: a.acceptance !== undefined ? 'acceptance' : 'test', text: (a.acceptance ?? a.test)!, reason: a.reason, ifRevision: a.ifRevision, epoch: a.epoch}),
})

export const checkPass = operation({
  name: 'check pass',
  toolset: 'core',
  summary: 'Record that a check passed, with the evidence.',
  params: {id: taskId, check: checkId, evidence: p.string('What shows it passed (a test run, a commit, a URL).').need(), ifRevision, epoch},
  writes: true,
  result: 'check',
  examples: ['<%= config.bin %> check pass tsk-k3v9 chk-4f2a --evidence "CI run 1234 green"'],
  batch: {readsChecks: true, plan: (ops, snap, ctx, a) => checkOutcome(ops.recordCheck(snap, ctx, {id: a.id, check: a.check, outcome: 'passed', evidence: a.evidence, epoch: a.epoch}))},
  run: (e, s, a) => e.coordination.checkRecord(s, {...a, outcome: 'passed'}),
})

export const checkFail = operation({
  name: 'check fail',
  toolset: 'planning',
  summary: 'Record that a check failed, with the evidence (kept on the check).',
  params: {id: taskId, check: checkId, evidence: p.string('What shows it failed.').need(), ifRevision, epoch},
  writes: true,
  result: 'check',
  examples: ['<%= config.bin %> check fail tsk-k3v9 chk-4f2a --evidence "timeout in test_login"'],
  batch: {readsChecks: true, plan: (ops, snap, ctx, a) => checkOutcome(ops.recordCheck(snap, ctx, {id: a.id, check: a.check, outcome: 'failed', evidence: a.evidence, epoch: a.epoch}))},
  run: (e, s, a) => e.coordination.checkRecord(s, {...a, outcome: 'failed'}),
})

export const checkSupersede = operation({
  name: 'check supersede',
  toolset: 'planning',
  summary: 'Take a check out of the active set (it keeps its evidence and history).',
  description: 'On an item someone else holds (a live claim) it needs --force (the --reason is also the override\'s).',
  params: {id: taskId, check: checkId, reason: p.string('Why the check no longer applies.').need(), ifRevision, epoch},
  writes: true,
  override: true,
  result: 'check',
  examples: ['<%= config.bin %> check supersede tsk-k3v9 chk-4f2a --reason "replaced by chk-9x0b"'],
  batch: {readsChecks: true, plan: (ops, snap, ctx, a) => checkOutcome(ops.supersedeCheck(snap, ctx, {id: a.id, check: a.check, reason: a.reason, epoch: a.epoch}))},
  run: (e, s, a) => e.coordination.checkSupersede(s, a),
})

export const checkList = operation({
  name: 'check list',
  toolset: 'planning',
  summary: "List a task's checks and what still stands in the way of done.",
  params: {id: taskId},
  writes: false,
  result: 'check-list',
  examples: ['<%= config.bin %> check list tsk-k3v9', '<%= config.bin %> check list tsk-k3v9 --json'],
  run: (e, s, a) => e.coordination.checkList(s, a),
})

export const flag = operation({
  name: 'flag',
  toolset: 'planning',
  summary: 'Flag a task: it cannot be finished, and anyone may take it over from its owner.',
  description: 'Taking the item over (`claim`, `next`, `takeover`) clears the flag and records it; `tasks unflag` clears it by hand.',
  params: {id: taskId, reason: p.string('what is wrong', {positional: true}).need(), ifRevision},
  writes: true,
  result: 'flag',
  examples: ['<%= config.bin %> flag tsk-k3v9 "the agent is looping on the same test"'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.flagTask(snap, ctx, {id: a.id, reason: a.reason}))},
  run: (e, s, a) => e.coordination.flag(s, a),
})

export const unflag = operation({
  name: 'unflag',
  toolset: 'planning',
  summary: "Clear a task's flag.",
  params: {id: taskId, ifRevision},
  writes: true,
  result: 'flag',
  examples: ['<%= config.bin %> unflag tsk-k3v9'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.unflagTask(snap, ctx, {id: a.id}))},
  run: (e, s, a) => e.coordination.unflag(s, a),
})

export const prune = operation({
  name: 'prune',
  toolset: 'admin',
  summary: 'Remove finished items closed longer ago than the retention, in one commit (history keeps them).',
  description:
    'The retention is retention_seconds in config.yaml (7 days) unless --older-than is given. Items a staying item depends on, and parents of staying sub-items, are kept. `tasks restore ID` brings one back.',
  params: {olderThan: p.duration('Age of a finished item to remove: 90s, 30m, 12h, 7d, 2w.')},
  writes: true,
  result: 'prune',
  examples: ['<%= config.bin %> prune', '<%= config.bin %> prune --older-than 30d --json'],
  run: (e, s, a) => e.coordination.prune(s, a),
})
