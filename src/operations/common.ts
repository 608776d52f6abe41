/**
 * Parameters many operations share, declared once: the fencing token, the
 * optimistic-edit revision, a lease, the ids of a multi-item command.
 */
import {p} from '../core/params'
import type {Plan} from '../core/plan'
import type {BatchStepOutcome} from '../core/ops/batch-file'
import {MAX_LEASE_SECONDS} from '../core/task'

export const epoch = p.integer('Fencing token from your claim: refused if the item was claimed again since.')

export const ifRevision = p.integer('Apply only if the card is still at this revision (from show/list --json); else exit 4 revision_mismatch, nothing written.', {min: 0})

export const lease = p.duration(`Lease length: 90s, 30m, 1h, 1h30m, or plain seconds, at most ${MAX_LEASE_SECONDS / 86400} days (default: lease_seconds in config.yaml, 3600).`, {max: MAX_LEASE_SECONDS})

/** The task a single-item operation acts on: the command's first argument. */
export const taskId = p.id('task id or unique prefix', {positional: true}).need()

/** The tasks of a multi-item operation: the command's arguments; several are one commit, all or nothing. */
export const taskIds = p.ids('task ids or unique prefixes (one or more)', {positional: true}).need()

/** A checkpoint's text (`checkpoint`, `release`, `done`; docs/model.md, "Checkpoints"). */
export const summary = p.string('What is done so far (recorded as a checkpoint on the card).')
export const nextStep = p.string('The next step, for whoever picks the item up.')
export const checkpointSession = p.string('The agent session writing the checkpoint (default $TASKS_SESSION).', {env: 'TASKS_SESSION'})

/** A batch item's outcome from a plan whose result names its task. */
export function idOf(plan: Plan<{task: {id: string}}>): BatchStepOutcome {
  return {plan, id: plan.result.task.id}
}

/** `--at WHEN` of the read operations: declared once in core/params.ts (`at`). */
export {at} from '../core/params'
