/**
 * 3-way merge of one check (tasks/<xx>/<id>/checks/<check>.md) changed on
 * both sides. Checks changed on one side only, or added on one side, never
 * get here (the per-path rules take that side). The rule is deterministic
 * and symmetric (it never asks which side is "ours") and never drops
 * evidence text:
 *
 *  - status: the more cautious one wins: superseded > failed > pending >
 *    passed (a supersede is deliberate; a failure or a reset by a new spec
 *    revision must not be hidden by a concurrent pass). Equal statuses: the
 *    later `updated_at`, then the greater serialised text.
 *  - evidence: the winner's, with the other side's appended (marked with
 *    who recorded it and when) when it differs and is not already in it.
 *  - who/when of each transition (passed, failed, reset, superseded): the
 *    later of the two sides'; `spec_revision`: the higher.
 *  - unknown keys: union, the winner's value where both have one.
 */
import {type Check, type CheckStatus, serialiseCheck} from '../core/check'
import {cmp} from '../core/order'

const RANK: Record<CheckStatus, number> = {passed: 0, pending: 1, failed: 2, superseded: 3}

function later(a: string | undefined, b: string | undefined): 'a' | 'b' {
  if (a === undefined) return 'b'
  if (b === undefined) return 'a'
  return Date.parse(a) >= Date.parse(b) ? 'a' : 'b'
}

/** Which of two versions of a check wins its status. */
function winnerOf(a: Check, b: Check): [Check, Check] {
  const byRank = RANK[a.status] - RANK[b.status]
  if (byRank !== 0) return byRank > 0 ? [a, b] : [b, a]
  const t = Date.parse(a.updated_at) - Date.parse(b.updated_at)
  if (t !== 0) return t > 0 ? [a, b] : [b, a]
  return cmp(serialiseCheck(a), serialiseCheck(b)) >= 0 ? [a, b] : [b, a]
}

const PAIRS = [
  ['passed_by', 'passed_at'],
  ['failed_by', 'failed_at'],
  ['reset_by', 'reset_at'],
] as const

export interface CheckMergeResult {
  check: Check
  /** True when the losing side's evidence was appended to the winner's. */
  evidenceJoined: boolean
  loser: Check
}

export function mergeCheck(ours: Check, theirs: Check): CheckMergeResult {
  const [win, lose] = winnerOf(ours, theirs)
  const out: Check = {...win}
  for (const [by, at] of PAIRS) {
    const pick = later(ours[at], theirs[at]) === 'a' ? ours : theirs
    if (pick[at] !== undefined) {
      out[by] = pick[by]
      out[at] = pick[at]
    }
  }
  if (win.status !== 'superseded' && lose.status === 'superseded') {
    // Cannot happen with the ranks above; kept for clarity: a supersede is never undone by a merge.
    out.status = 'superseded'
  }
  out.spec_revision = Math.max(ours.spec_revision, theirs.spec_revision)
  const laterUpdate = later(ours.updated_at, theirs.updated_at) === 'a' ? ours : theirs
  out.updated_at = laterUpdate.updated_at
  out.updated_by = laterUpdate.updated_by
  let evidenceJoined = false
  if (lose.evidence && lose.evidence !== win.evidence && !(win.evidence ?? '').includes(lose.evidence)) {
    const who = lose.status === 'failed' ? `${lose.failed_by ?? lose.updated_by} at ${lose.failed_at ?? lose.updated_at}` : lose.status === 'passed' ? `${lose.passed_by ?? lose.updated_by} at ${lose.passed_at ?? lose.updated_at}` : `${lose.updated_by} at ${lose.updated_at}`
    const note = `[merged: ${lose.status} by ${who}] ${lose.evidence}`
    out.evidence = win.evidence ? `${win.evidence}\n\n${note}` : lose.evidence
    evidenceJoined = true
  }
  if (ours.extra || theirs.extra) out.extra = {...lose.extra, ...win.extra}
  return {check: out, evidenceJoined, loser: lose}
}
