/**
 * `add` with acceptance criteria and tests: the task and its checks in one
 * plan (one commit), each check added on the list as the task's creation
 * left it. An idempotent retry (the key matched) adds nothing: the checks
 * were written with the task the first time.
 */
import {withChanges} from '../apply'
import type {Check} from '../check'
import {ConflictError} from '../errors'
import {missingCheckKinds} from '../state-machine'
import type {OpContext, Plan} from '../plan'
import type {Snapshot} from '../snapshot'
import {type AddArgs, type AddResult, addTask} from './add'
import {addCheck} from './checks'
import {withInverseEdges} from './blocks'

export interface AddWithChecksArgs extends AddArgs {
  /** Acceptance criteria, each a pending check. */
  acceptance?: readonly string[]
  /** Tests, each a pending check. */
  test?: readonly string[]
  /** `--blocks`: items that get the new task as a dependency (ops/blocks.ts), in the same commit. */
  blocks?: readonly string[]
}

export function addTaskWithChecks(snap: Snapshot, ctx: OpContext, args: AddWithChecksArgs): Plan<AddResult & {checks: Check[]}> {
  const plan = addChecks(snap, ctx, args)
  // The inverse edges last, on the list as the task and its checks left it (an idempotent retry adds none: they were written the first time).
  if (!plan.result.created || !args.blocks?.length) return plan
  return withInverseEdges(snap, ctx, plan, {id: plan.result.task.id, blocks: args.blocks})
}

function addChecks(snap: Snapshot, ctx: OpContext, args: AddWithChecksArgs): Plan<AddResult & {checks: Check[]}> {
  const plan = addTask(snap, ctx, args)
  const wanted = [...(args.acceptance ?? []).map((text) => ({kind: 'acceptance', text})), ...(args.test ?? []).map((text) => ({kind: 'test', text}))]
  if (!plan.result.created) return {...plan, result: {...plan.result, checks: []}}
  // The creation gate (require_checks): the task is created with an acceptance check and a test check, or not at all.
  const missing = missingCheckKinds(snap.config, wanted.map((w) => ({kind: w.kind, status: 'pending' as const})))
  if (missing.length > 0) {
    throw new ConflictError(
      'checks_required',
      `this list requires every task to be created with at least one acceptance check and one test check (require_checks); missing: ${missing.join(', ')}. Add ${missing.map((k) => `--${k} TEXT`).join(' and ')}`,
      {missing},
    )
  }
  if (wanted.length === 0) return {...plan, result: {...plan.result, checks: []}}
  const changes = [...plan.changes]
  const trailers = [...plan.trailers]
  const checks: Check[] = []
  let view = withChanges(snap, changes)
  wanted.forEach((w, i) => {
    const added = addCheck(view, {...ctx, entropy: `${ctx.entropy}-check-${i}`}, {id: plan.result.task.id, kind: w.kind, text: w.text})
    changes.push(...added.changes)
    trailers.push(...added.trailers)
    checks.push(added.result.check)
    view = withChanges(view, added.changes)
  })
  return {...plan, changes, trailers, result: {...plan.result, checks}}
}
