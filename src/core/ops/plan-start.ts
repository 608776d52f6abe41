/**
 * `tasks plan start NAME` (issue 34): the plan's first commit, on the list
 * NAME as forked (its ref at the source's tip): the marker plan.yaml and
 * nothing else. Refused when the list is not exactly the fork point (a list
 * or plan of that name was there already): nothing written.
 */
import {ConflictError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {PLAN_PATH, type PlanFile, serialisePlanFile} from '../plan-marker'
import type {Snapshot} from '../snapshot'

export interface StartPlanArgs {
  /** The list forked from and its tip when forked. */
  from: string
  base: string
}

export function startPlan(snap: Snapshot, ctx: OpContext, args: StartPlanArgs): Plan<PlanFile> {
  if (snap.commit !== args.base) {
    throw new ConflictError('plan_exists', `the list "${snap.list}" already exists: pick another name (\`tasks plan list\` shows the plans)`, {plan: snap.list})
  }
  const file: PlanFile = {plan: snap.list, from: args.from, base: args.base, created_by: ctx.actor, created_at: ctx.now}
  return {
    op: 'plan_start',
    summary: `${snap.list} from ${args.from}`,
    changes: [{kind: 'put-file', path: PLAN_PATH, content: serialisePlanFile(file)}],
    trailers: [['Tasks-Plan', snap.list]],
    result: file,
  }
}
