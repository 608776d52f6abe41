/**
 * How a plan's change of a card lands on the live target (issue 34, `tasks
 * plan merge`, docs/history.md "Plans"): a plan drafts what cards say (title,
 * priority, tags, dependencies, description, fields, …) and new cards; it
 * never disturbs a live claim or an epoch on the target. So before the
 * three-way merge, each card the plan changed has its claim unit
 * (task-merge.ts CLAIM_UNIT: status, owner, epoch, lease, notes of the
 * lifecycle) put back as it was at the fork point, unless the plan's
 * lifecycle move is one that touches no claim:
 *
 *  - the target's unit is unchanged since the fork point, and
 *  - the card is not held on the target (not in progress, not blocked by an owner), and
 *  - the plan's new unit holds no claim either (a cancel, a deferral, a block without an owner, a reopen).
 *
 * Then the plan's status and its notes land, with the holder's fields
 * (owner, epoch, claim_epochs, claimed_at, lease_expires, session) as the
 * target has them. In every other case the target's unit stands and a note
 * says which move of the plan was not applied. New cards of the plan land
 * as they are (there is nothing on the target to disturb).
 *
 * Pure: values in, values out.
 */
import type {TaskMeta} from '../core/task'
import {CLAIM_UNIT, claimUnit, describeClaim} from './task-merge'
import {same} from './merge-types'

/** The fields of the claim a holder has: never taken from a plan for a card the target has. */
export const HOLDER_FIELDS = ['owner', 'epoch', 'claim_epochs', 'claimed_at', 'lease_expires', 'session'] as const

/** Fields that say nothing about the card itself: who wrote it last and when. */
const BOOKKEEPING = new Set(['revision', 'updated_at', 'updated_by'])

/** A lifecycle move of the plan that was not applied on the target. */
export interface PlanClaimNote {
  kind: 'plan_claim_kept'
  task: string
  message: string
}

/** A claim someone holds: in progress, or blocked by its owner. */
export function liveHeld(m: TaskMeta): boolean {
  return m.status === 'in_progress' || (m.status === 'blocked' && m.owner !== undefined && m.owner !== null)
}

function withFields(m: TaskMeta, from: TaskMeta, keys: readonly string[]): TaskMeta {
  const out = {...m} as Record<string, unknown>
  const src = from as unknown as Record<string, unknown>
  for (const k of keys) {
    if (src[k] === undefined) delete out[k]
    else out[k] = src[k]
  }
  return out as unknown as TaskMeta
}

/** True when `a` and `b` differ at most in bookkeeping (revision, updated_at, updated_by). */
export function sameCard(a: TaskMeta, b: TaskMeta): boolean {
  const strip = (m: TaskMeta) => Object.fromEntries(Object.entries(m).filter(([k, v]) => !BOOKKEEPING.has(k) && v !== undefined))
  return same(strip(a), strip(b))
}

/**
 * The plan's version of a card the fork point had, as it lands on the
 * target: `meta` is the plan's frontmatter with its claim unit put right
 * (unchanged when the plan's move lands), `note` when a move of the plan was
 * not applied. `target` undefined: the card is gone from the target (the
 * plan's unit is put back to the fork point's, and the merge keeps the card).
 */
export function landPlanCard(base: TaskMeta, plan: TaskMeta, target: TaskMeta | undefined): {meta: TaskMeta; note: PlanClaimNote | null} {
  if (same(claimUnit(base), claimUnit(plan))) return {meta: plan, note: null}
  const targetUnchanged = target !== undefined && same(claimUnit(base), claimUnit(target))
  if (targetUnchanged && !liveHeld(target) && !liveHeld(plan)) {
    // The plan's move lands; the holder's fields stay the target's (= the fork point's).
    return {meta: withFields(plan, base, HOLDER_FIELDS), note: null}
  }
  const why = target === undefined
    ? 'the card is gone from the target'
    : !targetUnchanged
      ? `the target's card moved since the plan started (it is ${describeClaim(target)})`
      : liveHeld(target)
        ? `the target's card is ${describeClaim(target)}`
        : "a plan does not hand out claims"
  return {
    meta: withFields(plan, base, CLAIM_UNIT),
    note: {kind: 'plan_claim_kept', task: plan.id, message: `${plan.id}: the plan's move to ${describeClaim(plan)} was not applied: ${why}; a plan never changes a claim on the list it lands on`},
  }
}
