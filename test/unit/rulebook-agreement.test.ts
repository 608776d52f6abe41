/**
 * The writer and the guard agree: every (state, move, role) is run through
 * the real pure op (src/core/ops) on an in-memory snapshot and through the
 * guard's pure judges (src/hooks/judges.ts, rules.ts) on the card before
 * and after and the commit's facts, and both must allow or both refuse.
 *
 * When the op allows, the guard judges the plan the op wrote. When the op
 * refuses, the guard judges the commit the actor would have had to push to
 * make the move anyway: the op's plan in a standing that allows it (the
 * actor with --force on a list without admins, else the holder's own plan
 * restamped with the actor), keeping the override only if the role asked
 * for one; a move no standing allows is a bare status change.
 */
import {describe, expect, it} from 'vitest'
import type {Check} from '../../src/core/check'
import {ConflictError, NotPermittedError} from '../../src/core/errors'
import type {OpContext, Plan} from '../../src/core/plan'
import type {Snapshot} from '../../src/core/snapshot'
import {TASK_MOVES, type TaskMoveName, movesBetween} from '../../src/core/state-machine'
import {DEFAULT_CONFIG, STATUSES, type ListConfig, type Status, type TaskMeta} from '../../src/core/task'
import {taskFilePath} from '../../src/core/store-layout'
import {claimTask, heartbeat, releaseTask, takeoverTask} from '../../src/core/ops/claim'
import {blockTask, cancelTask, finishTask, reopenTask} from '../../src/core/ops/lifecycle'
import {deferTask, failTask} from '../../src/core/ops/states'
import {removeTask} from '../../src/core/ops/remove'
import {editTask} from '../../src/core/ops/edit'
import {addCheck, recordCheck, supersedeCheck} from '../../src/core/ops/checks'
import {checkPath, serialiseCheck} from '../../src/core/check'
import {NO_CLAIM} from '../../src/core/ops/revision'
import {type CommitView, judgeCheckFile, judgeTaskFile} from '../../src/hooks/judges'
import {type CommitFacts} from '../../src/hooks/rules'
import {T0, after, snapshot, task} from '../helpers/snapshot'

const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString()
const MINUTE = 60_000
/** While the claim is live, and a day after its lease ran out. */
const LIVE = T0
const LAPSED = at(24 * 60 * MINUTE)

interface Role {
  name: string
  actor: string
  now: string
  force: boolean
  admins: string[]
  flagged?: boolean
}

const ROLES: Role[] = [
  {name: 'holder', actor: 'hal', now: LIVE, force: false, admins: []},
  {name: 'other', actor: 'olga', now: LIVE, force: false, admins: []},
  {name: 'other with --force', actor: 'olga', now: LIVE, force: true, admins: []},
  {name: 'other after the lease lapsed', actor: 'olga', now: LAPSED, force: false, admins: []},
  {name: 'admin with --force', actor: 'ada', now: LIVE, force: true, admins: ['ada']},
  {name: 'other with --force, not an admin', actor: 'olga', now: LIVE, force: true, admins: ['ada']},
  {name: 'other on a flagged card', actor: 'olga', now: LIVE, force: false, admins: [], flagged: true},
]

/** A card in `status`, held by hal (claimed ten minutes before T0, lease for an hour) where the status holds a claim. */
function card(status: Status, flagged: boolean): TaskMeta {
  const base = task({id: `tsk-000000000${STATUSES.indexOf(status)}`, status, epoch: 1, revision: 3})
  const claim = {owner: 'hal', claimed_at: at(-10 * MINUTE), lease_expires: at(50 * MINUTE)}
  const flag = flagged ? {flag_reason: 'spec is wrong', flagged_by: 'carol', flagged_at: at(-5 * MINUTE)} : {}
  switch (status) {
    case 'todo':
      return {...base, ...flag}
    case 'in_progress':
      return {...base, ...claim, ...flag}
    case 'blocked':
      return {...base, ...claim, block_note: 'waiting on the vendor', ...flag}
    case 'done':
      return {...base, owner: 'hal', closed_at: at(-MINUTE)}
    // Issue 33: deferred (its date still to come) and failed.
    case 'deferred':
      return {...base, defer_reason: 'after the freeze', defer_until: at(24 * 60 * MINUTE), ...flag}
    case 'failed':
      return {...base, fail_reason: 'vendor gone', closed_at: at(-MINUTE)}
    default:
      return {...base, cancel_reason: 'not needed', closed_at: at(-MINUTE)}
  }
}

type TaskMoveRun = (snap: Snapshot, ctx: OpContext, id: string) => Plan<unknown>
/** Each move the agreement covers, as the real op, and the status it leads to. */
const TASK_OPS: Array<{move: TaskMoveName; to: Status | null; run: TaskMoveRun}> = [
  {move: 'claim', to: 'in_progress', run: (s, c, id) => claimTask(s, c, {id})},
  {move: 'heartbeat', to: null, run: (s, c, id) => heartbeat(s, c, {id})},
  {move: 'done', to: 'done', run: (s, c, id) => finishTask(s, c, {id})},
  {move: 'block', to: 'blocked', run: (s, c, id) => blockTask(s, c, {id, note: 'stuck on review'})},
  {move: 'release', to: 'todo', run: (s, c, id) => releaseTask(s, c, {id})},
  {move: 'reopen', to: 'todo', run: (s, c, id) => reopenTask(s, c, {id})},
  {move: 'cancel', to: 'cancelled', run: (s, c, id) => cancelTask(s, c, {id, reason: 'dropped'})},
  // Issue 33.
  {move: 'defer', to: 'deferred', run: (s, c, id) => deferTask(s, c, {id, reason: 'later', until: '2099-01-01'})},
  {move: 'fail', to: 'failed', run: (s, c, id) => failTask(s, c, {id, reason: 'it broke'})},
  {move: 'takeover', to: 'in_progress', run: (s, c, id) => takeoverTask(s, c, {id, reason: 'hal is away', confirm: id})},
  {move: 'remove', to: null, run: (s, c, id) => removeTask(s, c, {id})},
  // Spec ownership: a new title, a new type (the holder's while the claim is live).
  {move: 'revise', to: null, run: (s, c, id) => editTask(s, c, {id, title: 'A sharper title'})},
  {move: 'revise', to: null, run: (s, c, id) => editTask(s, c, {id, type: 'bug', reason: 'it is a defect'})},
]

const configOf = (admins: string[]): ListConfig => ({...DEFAULT_CONFIG, admins})
const snapOf = (meta: TaskMeta, admins: string[], checks?: Check[]): Snapshot => ({...snapshot([meta]), config: configOf(admins), ...(checks ? {checks: new Map([[meta.id, checks]])} : {})})
const ctxOf = (actor: string, now: string, force: boolean): OpContext => ({actor, now, entropy: `${actor}-${now}`, ...(force ? {force: {reason: 'on call'}} : {})})

/** The op's plan, or null when it refuses the move (a conflict or not permitted; anything else fails the test). */
function attempt(run: () => Plan<unknown>): Plan<unknown> | null {
  try {
    return run()
  } catch (e) {
    if (e instanceof ConflictError || e instanceof NotPermittedError) return null
    throw e
  }
}

/** The commit's facts as the guard reads them from the trailers the plan carries. */
function factsOf(plan: Plan<unknown>, actor: string, now: string, keepOverride: boolean): CommitFacts {
  const values = (k: string) => plan.trailers.filter(([key]) => key === k).map(([, v]) => v)
  return {
    actor,
    op: plan.op,
    time: now,
    override: keepOverride ? (values('Tasks-Override')[0] ?? null) : null,
    takeover: values('Tasks-Takeover')[0] ?? null,
    takeovers: values('Tasks-Takeover'),
    reason: values('Tasks-Reason')[0] ?? null,
    session: values('Tasks-Session')[0] ?? null,
  }
}

/** The guard's refusals of the card's change in a one-parent commit (judgeTaskFile: a change or a removal). */
function guardRefusals(before: Snapshot, afterSnap: Snapshot, id: string, facts: CommitFacts): string[] {
  const view: CommitView = {facts, before, after: afterSnap, canonical: facts.actor, removed: new Set(), undoBase: null, undoes: null, finishing: new Map([[id, []]])}
  return judgeTaskFile({path: taskFilePath(id), before: '', after: afterSnap.tasks.has(id) ? '' : null, commit: view}).map((r) => r.rule)
}

/** A plan's put-task changes restamped as made by `actor` (the holder's own change, pushed by someone else). */
function restamped(plan: Plan<unknown>, actor: string, holder: string): Plan<unknown> {
  return {
    ...plan,
    changes: plan.changes.map((c) => (c.kind === 'put-task' ? {...c, meta: {...c.meta, updated_by: actor, ...(c.meta.owner === holder ? {owner: actor} : {})}} : c)),
  }
}

interface Outcome {
  op: 'allow' | 'refuse'
  guard: 'allow' | 'refuse' | 'nothing to judge'
  why: string
}

function judgeTaskTriple(status: Status, entry: (typeof TASK_OPS)[number], role: Role): Outcome {
  const meta = card(status, role.flagged === true)
  const snap = snapOf(meta, role.admins)
  const plan = attempt(() => entry.run(snap, ctxOf(role.actor, role.now, role.force), meta.id))
  if (plan) {
    if (plan.changes.length === 0) return {op: 'allow', guard: 'nothing to judge', why: 'no change'}
    const refusals = guardRefusals(snap, after(snap, plan), meta.id, factsOf(plan, role.actor, role.now, true))
    return {op: 'allow', guard: refusals.length ? 'refuse' : 'allow', why: refusals.join(', ')}
  }
  // What the actor would have had to push: the op's plan where --force on a list without admins allows it...
  const permissive = snapOf(meta, [])
  let wouldBe = attempt(() => entry.run(permissive, ctxOf(role.actor, role.now, true), meta.id))
  // ... else the holder's own plan, restamped with the actor.
  if (!wouldBe && meta.owner && meta.owner !== role.actor) {
    const own = attempt(() => entry.run(permissive, ctxOf(meta.owner!, role.now, false), meta.id))
    if (own) wouldBe = restamped(own, role.actor, meta.owner)
  }
  let afterSnap: Snapshot
  let facts: CommitFacts
  if (wouldBe && wouldBe.changes.length > 0) {
    afterSnap = after(snap, wouldBe)
    facts = factsOf(wouldBe, role.actor, role.now, role.force)
  } else {
    // No standing makes this move. Its bare status change is judged when no other move makes that change either
    // (else the commit is that other move's, judged in its own triple).
    if (entry.to === null || entry.to === status || movesBetween(status, entry.to).length > 0) return {op: 'refuse', guard: 'nothing to judge', why: 'no standing allows it'}
    const forged: TaskMeta = {...meta, ...NO_CLAIM, status: entry.to, revision: meta.revision + 1, updated_by: role.actor, updated_at: role.now}
    afterSnap = after(snap, {op: entry.move, changes: [{kind: 'put-task', meta: forged}], trailers: [], result: null})
    facts = {actor: role.actor, op: entry.move, time: role.now, override: role.force ? 'on call' : null}
  }
  const refusals = guardRefusals(snap, afterSnap, meta.id, facts)
  return {op: 'refuse', guard: refusals.length ? 'refuse' : 'allow', why: refusals.join(', ') || 'accepted'}
}

describe('the ops and the guard judge every card move alike', () => {
  const allowed = new Set<string>()
  for (const status of STATUSES) {
    for (const entry of TASK_OPS) {
      for (const role of ROLES) {
        it(`${status} / ${entry.move} / ${role.name}`, () => {
          const out = judgeTaskTriple(status, entry, role)
          if (out.op === 'allow') allowed.add(`${entry.move}:${status}`)
          // Nothing reaches the guard: the op wrote nothing, or no standing makes the move.
          if (out.guard === 'nothing to judge') return
          expect(out.guard, `op ${out.op}s; guard: ${out.why}`).toBe(out.op)
        })
      }
    }
  }

  it('every row of the rulebook is a move some role makes', () => {
    const walked = new Set(TASK_OPS.map((e) => e.move))
    for (const row of TASK_MOVES) if (walked.has(row.move)) expect(allowed, `${row.move} from ${row.from}`).toContain(`${row.move}:${row.from}`)
  })

  it('where they used to disagree: the lapse of a claim lets anyone reopen, cancel or take it, but not finish, block or release it', () => {
    const lapsed = ROLES.find((r) => r.name === 'other after the lease lapsed')!
    const by = (status: Status, move: TaskMoveName) => judgeTaskTriple(status, TASK_OPS.find((e) => e.move === move)!, lapsed)
    for (const move of ['done', 'block', 'release'] as const) expect(by('in_progress', move)).toMatchObject({op: 'refuse', guard: 'refuse'})
    expect(by('blocked', 'claim')).toMatchObject({op: 'refuse', guard: 'refuse'})
    for (const move of ['claim', 'reopen', 'cancel', 'remove'] as const) expect(by('in_progress', move)).toMatchObject({op: 'allow', guard: 'allow'})
    for (const move of ['reopen', 'cancel'] as const) expect(by('blocked', move)).toMatchObject({op: 'allow', guard: 'allow'})
    // Reopening the lapsed claim fences its holder out, as the sweep does.
    const meta = card('in_progress', false)
    const plan = reopenTask(snapOf(meta, []), ctxOf('olga', LAPSED, false), {id: meta.id})
    expect(plan.result.task).toMatchObject({status: 'todo', epoch: meta.epoch + 1})
    expect(plan.result.task.owner).toBeUndefined()
  })
})

// ------------------------------------------------------------------ checks

const CHECK_T = at(-MINUTE)
function checkIn(status: Check['status'], task: string): Check {
  const c: Check = {id: 'chk-abcdefgh', task, kind: 'test', text: 'npm test', status, spec_revision: 1, added_by: 'carol', added_at: CHECK_T, updated_by: 'carol', updated_at: CHECK_T}
  if (status === 'passed') return {...c, evidence: 'CI 1', passed_by: 'carol', passed_at: CHECK_T}
  if (status === 'failed') return {...c, evidence: 'CI 1 red', failed_by: 'carol', failed_at: CHECK_T}
  if (status === 'superseded') return {...c, superseded_by: 'carol', superseded_at: CHECK_T, supersede_reason: 'moot'}
  return c
}

type CheckRun = (snap: Snapshot, ctx: OpContext, id: string) => Plan<unknown>
const CHECK_OPS: Array<{move: 'pass' | 'fail' | 'supersede'; run: CheckRun; forge: (c: Check, actor: string, now: string) => Check}> = [
  {move: 'pass', run: (s, c, id) => recordCheck(s, c, {id, check: 'chk-abcdefgh', outcome: 'passed', evidence: 'CI 2'}), forge: (c, a, t) => ({...c, status: 'passed', evidence: 'CI 2', passed_by: a, passed_at: t, updated_by: a, updated_at: t})},
  {move: 'fail', run: (s, c, id) => recordCheck(s, c, {id, check: 'chk-abcdefgh', outcome: 'failed', evidence: 'CI 2 red'}), forge: (c, a, t) => ({...c, status: 'failed', evidence: 'CI 2 red', failed_by: a, failed_at: t, updated_by: a, updated_at: t})},
  {move: 'supersede', run: (s, c, id) => supersedeCheck(s, c, {id, check: 'chk-abcdefgh', reason: 'replaced'}), forge: (c, a, t) => ({...c, status: 'superseded', superseded_by: a, superseded_at: t, supersede_reason: 'replaced', updated_by: a, updated_at: t})},
]

/** The guard's refusals of one check file's change (judgeCheckFile: the check's own move, and spec ownership of its card). */
function checkRefusals(snap: Snapshot, plan: Plan<unknown> | null, before: Check | undefined, afterCheck: Check, facts: CommitFacts): string[] {
  const afterSnap = plan ? after(snap, plan) : snap
  const view: CommitView = {facts, before: snap, after: afterSnap, canonical: facts.actor, removed: new Set(), undoBase: null, undoes: null, finishing: new Map()}
  return judgeCheckFile({path: checkPath(afterCheck.task, afterCheck.id), before: before ? serialiseCheck(before) : null, after: serialiseCheck(afterCheck), commit: view}).map((r) => r.rule)
}

/** The facts of the check's commit: the override the op recorded, or (refused) the one the role would have pushed. */
function checkFacts(plan: Plan<unknown> | null, role: Role): CommitFacts {
  const override = plan ? (plan.trailers.find(([k]) => k === 'Tasks-Override')?.[1] ?? null) : role.force ? 'on call' : null
  return {actor: role.actor, op: 'check', time: role.now, override}
}

describe('the ops and the guard judge every check move alike', () => {
  for (const status of ['pending', 'passed', 'failed', 'superseded'] as const) {
    for (const entry of CHECK_OPS) {
      for (const role of ROLES) {
        it(`${status} / ${entry.move} / ${role.name}`, () => {
          const meta = card('in_progress', role.flagged === true)
          const check = checkIn(status, meta.id)
          const snap = snapOf(meta, role.admins, [check])
          const plan = attempt(() => entry.run(snap, ctxOf(role.actor, role.now, role.force), meta.id))
          const facts = checkFacts(plan, role)
          const written = plan?.changes.find((c) => c.kind === 'put-check')
          if (plan && !written) return // already as asked: nothing written, nothing to judge
          const afterCheck = written && written.kind === 'put-check' ? written.check : entry.forge(check, role.actor, role.now)
          const refusals = checkRefusals(snap, plan, check, afterCheck, facts)
          expect(refusals.length === 0 ? 'allow' : 'refuse', `op ${plan ? 'allows' : 'refuses'}; guard: ${refusals.join(', ')}`).toBe(plan ? 'allow' : 'refuse')
        })
      }
    }
  }
  // Adding a check is a spec change: the holder's while the claim is live.
  for (const status of ['todo', 'in_progress', 'blocked'] as const) {
    for (const role of ROLES) {
      it(`${status} / check add / ${role.name}`, () => {
        const meta = card(status, role.flagged === true)
        const snap = snapOf(meta, role.admins, [])
        const plan = attempt(() => addCheck(snap, ctxOf(role.actor, role.now, role.force), {id: meta.id, kind: 'test', text: 'npm test'}))
        const facts = checkFacts(plan, role)
        const written = plan?.changes.find((c) => c.kind === 'put-check')
        const forged: Check = {id: 'chk-zzzzzzzz', task: meta.id, kind: 'test', text: 'npm test', status: 'pending', spec_revision: meta.revision, added_by: role.actor, added_at: role.now, updated_by: role.actor, updated_at: role.now}
        const afterCheck = written && written.kind === 'put-check' ? written.check : forged
        const refusals = checkRefusals(snap, plan, undefined, afterCheck, facts)
        expect(refusals.length === 0 ? 'allow' : 'refuse', `op ${plan ? 'allows' : 'refuses'}; guard: ${refusals.join(', ')}`).toBe(plan ? 'allow' : 'refuse')
      })
    }
  }
})
