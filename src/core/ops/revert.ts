/**
 * `revert --actor A`: take back, in one commit, what one actor wrote in a
 * window of the list's history, and keep everyone else's work. Pure: the
 * app layer reads the history (every commit since the window's start that
 * changed a card A changed in it, each card's version before and after)
 * and passes it in as values; the current snapshot decides what may change.
 *
 * Field by field (core/field-changes.ts `cardChanges`): for each field A
 * changed in the window, walk that field's changes back from its current
 * value. While the newest change is A's (inside the window) and the value
 * is the one it left, step back to the value before it. Where the walk
 * stopped having stepped back at least once is the value restored; where
 * it could not step at all, someone changed the field since (or a merge
 * chose another value): it is kept and listed with who changed it. So A's
 * several changes of one field fall back to the value before the first of
 * them, and a change someone else made between two of A's is kept (the
 * walk stops at it). A change of A's after the window is not A's in the
 * window: it stops the walk too.
 *
 * Every restoration is a write the rulebook allows the reverting actor
 * (core/state-machine.ts, what the server guard judges): the status goes
 * back only by a row of the rulebook's TASK_MOVES from the status now to
 * the one restored, and only a release, reopen, defer or fail, judged by
 * `judgeMove` as the ops are; never to a claim of someone else's, to done
 * or out of cancelled; a claim's own fields (owner, lease, epoch, notes, closing
 * reasons) follow the status and are never restored by value; the spec
 * (title, type, dependencies, description) of a card someone holds live is
 * theirs (needs --force); a value that would break a rule (a dependency on
 * a card that is gone or making a cycle, a parent that is gone or
 * finished, a custom field of another type, a done dependent the
 * reconciler would reopen) is left and listed under `skipped` with why.
 * Cards A created in the window are cancelled (with `remove`: removed),
 * unless someone else's open sub-items or live claim say otherwise.
 * Comments and check results are never rewritten (the guard forbids it):
 * A's are listed.
 */
import {canon} from '../canon'
import {externalDependents, findPathTo} from '../dependency-graph'
import type {CardVersion, FieldChange} from '../field-changes'
import {cardChanges, cardFields, fieldOrder} from '../field-changes'
import {fieldValueProblem} from '../fields'
import {descendantIds, nestingError, openDescendants} from '../nesting'
import type {Change, OpContext, Plan} from '../plan'
import {shortIdOf} from '../ids'
import {type Snapshot, childIds, dependentsOf, tablesOf} from '../snapshot'
import {TASK_MOVES, type TaskMoveName, judgeMove, movesBetween, takesSubItems, taskMove} from '../state-machine'
import {FINISHED, type Status, type TaskMeta} from '../task'
import {wokenMeta} from '../dates'
import {checkNote} from '../validation'
import {standing, overrideTrailers} from './permission'
import {NO_CLAIM, revise} from './revision'
import {FINISH_CLEARS} from './finish-subtree'

/** One commit that changed a card's task.md, with the card before and after it (null: absent). */
export interface CardStep {
  commit: string
  actor: string
  date: string
  /** A commit of the reverted actor inside the window. */
  mine: boolean
  before: CardVersion | null
  after: CardVersion | null
  /** A version of the card at this commit could not be read: the step is a wall nothing is walked past. */
  unreadable?: boolean
}

/** A card A changed in the window: every commit of the range that changed it, oldest first. */
export interface RevertCard {
  id: string
  steps: CardStep[]
}

/** A comment A added in the window (never rewritten; listed). */
export interface RevertComment {
  id: string
  comment: string
  kind: string | null
  created_at: string | null
  commit: string
}

/** A check A added or judged in the window (a check's record is never rewritten; listed). */
export interface RevertCheck {
  id: string
  check: string
  /** Its status after A's commit (pending: added). */
  status: string | null
  commit: string
}

export interface RevertArgs {
  actor: string
  /** The window's bounds as resolved (null: from the list's start, to its tip). */
  since: string | null
  until: string | null
  /** A's commits in the window. */
  commits: number
  cards: RevertCard[]
  comments: RevertComment[]
  checks: RevertCheck[]
  /** Why (Tasks-Reason; the reason of the cancellations). */
  reason?: string
  /** Remove the cards A created instead of cancelling them. */
  remove?: boolean
}

export interface RevertItem {
  id: string
  title: string
}

export interface RevertResult {
  actor: string
  since: string | null
  until: string | null
  commits: number
  /** Values put back: `from` the value A left, `to` the value before A's change. */
  restored: Array<RevertItem & {field: string; from: unknown; to: unknown}>
  /** Claims of A's that the revert gave back (their status is in `restored`). */
  released: Array<RevertItem & {owner: string}>
  cancelled: RevertItem[]
  removed: RevertItem[]
  /** Values A set that someone changed since: left as they are. */
  kept: Array<RevertItem & {field: string; value: unknown; set: unknown; by: string[]}>
  /** What A did that the revert leaves, and why (a rule, a live claim, a card gone). */
  skipped: Array<RevertItem & {field: string | null; reason: string}>
  comments: RevertComment[]
  checks: RevertCheck[]
  /** Consequences worth knowing (a claimed dependent of a card that is open again). */
  notes: string[]
  /** The shortest unique prefix of every card id above, on the list the revert read (a person's handle for it). */
  short_ids: Record<string, string>
}

/** Fields that are a claim's or a card's identity: they follow the status (or never change), never restored by value. */
const FOLLOW_STATUS: ReadonlySet<string> = new Set([
  'owner',
  'epoch',
  'claim_epochs',
  'claimed_at',
  'lease_expires',
  'session',
  'block_note',
  'blocked_on',
  'cancel_reason',
  'defer_reason',
  'defer_until',
  'fail_reason',
  'closed_at',
  'flagged_by',
  'flagged_at',
  'created_at',
  'created_by',
  'key',
  'work_session',
  'previous',
])

/** The spec: the holder's while the claim is live (the rulebook's `revise`). */
const SPEC: ReadonlySet<string> = new Set(['title', 'type', 'depends_on', 'description'])

const ARRAYS: ReadonlySet<string> = new Set(['tags', 'depends_on'])

const OPEN_STATUSES: ReadonlySet<Status> = new Set(['todo', 'in_progress', 'blocked', 'deferred'])

interface Walk {
  /** Steps back taken over A's changes. */
  consumed: number
  /** The value the walk reached (restore to it when consumed > 0). */
  value: unknown
  /** The version of the card before the earliest change walked over. */
  before: CardVersion | null
  /** What A last set the field to in the window. */
  set: unknown
  /** Who changed the field after A's last change of it. */
  by: string[]
}

/** Walk a field's changes back from its current value (see the head of this file). */
export function walkField(steps: readonly CardStep[], changes: ReadonlyArray<ReadonlyMap<string, FieldChange>>, field: string, current: unknown): Walk {
  let value = current
  let consumed = 0
  let before: CardVersion | null = null
  let lastMine = -1
  for (let i = steps.length - 1; i >= 0; i--) {
    if (steps[i]!.mine && changes[i]!.has(field)) {
      lastMine = i
      break
    }
  }
  for (let i = steps.length - 1; i >= 0; i--) {
    if (steps[i]!.unreadable) break
    const c = changes[i]!.get(field)
    if (!c) continue
    if (canon(c.after) !== canon(value) || !steps[i]!.mine) break
    value = c.before
    before = steps[i]!.before
    consumed++
  }
  const by = new Set<string>()
  for (let i = lastMine + 1; i < steps.length; i++) if (changes[i]!.has(field) && !steps[i]!.mine) by.add(steps[i]!.actor)
  return {consumed, value, before, set: lastMine >= 0 ? changes[lastMine]!.get(field)!.after : undefined, by: [...by]}
}

/** A status move the revert makes, or why it cannot. */
type StatusMove = {ok: true; changes: Partial<TaskMeta>; overridden: boolean; released?: string} | {ok: false; reason: string}

/**
 * The rulebook's moves a revert makes to put a status back, in the order it
 * prefers them. Never a claim, a block or a takeover (a claim is its
 * taker's), never done (`tasks done` judges checks and sub-items), never a
 * cancellation.
 */
const REVERT_MOVES: ReadonlySet<TaskMoveName> = new Set(['release', 'reopen', 'defer', 'fail'])

const CLAIMED: ReadonlySet<Status> = new Set(['in_progress', 'blocked'])

/** Put the status back to `target` by a move of the rulebook (core/state-machine.ts) the reverting actor may make. */
function statusMove(snap: Snapshot, ctx: OpContext, meta: TaskMeta, target: Status, before: TaskMeta | null): StatusMove {
  const cur = meta.status
  const rows = movesBetween(cur, target).filter((r) => REVERT_MOVES.has(r.move))
  if (rows.length === 0) {
    if (target === 'in_progress' || target === 'blocked') return {ok: false, reason: `the claim it had was ${before?.owner ?? 'someone'}'s: only its taker makes a claim (they can claim it again)`}
    if (target === 'done') return {ok: false, reason: 'a revert does not finish a card: `tasks done` judges its checks and sub-items'}
    if (!TASK_MOVES.some((m) => m.from === cur && m.to !== null && m.to !== cur)) return {ok: false, reason: `${cur} is final: no move of the rulebook leaves it`}
    return {ok: false, reason: `no move of the rulebook takes ${cur} to ${target}`}
  }
  // A move the actor may make as it stands (its own claim, a lapsed one, anyone's move) before one only --force allows.
  const s = standing(snap, meta, ctx)
  const judged = rows.map((row) => ({row, verdict: judgeMove(row, s)}))
  const pick = judged.find((j) => j.verdict.ok && !j.verdict.overridden) ?? judged.find((j) => j.verdict.ok)
  if (!pick?.verdict.ok) {
    const refused = judged[0]!.verdict
    return refused.ok === false && refused.refusal === 'not_admin'
      ? {ok: false, reason: `held live by ${meta.owner}; only the admins listed in config.yaml may release it with --force`}
      : {ok: false, reason: `held live by ${meta.owner}; pass --force --reason "…" to release the claim`}
  }
  const {row, verdict} = pick
  if (row.move === 'fail' && openDescendants(snap, meta.id).length > 0) return {ok: false, reason: 'it has open sub-items now (failing it would cancel them)'}
  // The claim ends with the move; someone else's lapsed claim is fenced out (epoch + 1), as the sweep and reopen do.
  const claimed = CLAIMED.has(cur)
  const endClaim: Partial<TaskMeta> = claimed ? {...NO_CLAIM, ...(verdict.lapsed && row.fences ? {epoch: meta.epoch + 1} : {})} : {}
  const moved: Partial<TaskMeta> =
    row.move === 'release'
      ? {...NO_CLAIM, status: 'todo'}
      : row.move === 'reopen'
        ? {...NO_CLAIM, ...endClaim, status: 'todo', closed_at: undefined, fail_reason: undefined, defer_reason: undefined, defer_until: undefined}
        : row.move === 'defer'
          ? {...endClaim, status: 'deferred', defer_reason: before?.defer_reason, defer_until: before?.defer_until}
          : {...endClaim, ...(claimed ? FINISH_CLEARS : {}), status: 'failed', fail_reason: before?.fail_reason ?? 'reverted', closed_at: ctx.now, defer_reason: undefined, defer_until: undefined}
  return {ok: true, changes: moved, overridden: verdict.overridden, ...(claimed && meta.owner ? {released: meta.owner} : {})}
}

function setField(meta: TaskMeta, field: string, value: unknown): void {
  if (field.startsWith('fields.')) {
    const fields = {...(meta.fields ?? {})}
    const key = field.slice('fields.'.length)
    if (value === undefined) delete fields[key]
    else fields[key] = value as string | number | boolean
    meta.fields = Object.keys(fields).length > 0 ? fields : undefined
    return
  }
  ;(meta as unknown as Record<string, unknown>)[field] = value === undefined && ARRAYS.has(field) ? [] : value
}

interface CardPlan {
  id: string
  meta: TaskMeta
  next: TaskMeta
  body?: string
  /** Status leaves done for an open one. */
  reopens: boolean
  status?: {from: Status; to: Status; released?: string; changed: ReadonlyArray<keyof TaskMeta>}
  fields: Array<{field: string; from: unknown; to: unknown}>
}

export function revertActor(snap: Snapshot, ctx: OpContext, args: RevertArgs): Plan<RevertResult> {
  const reason = args.reason === undefined || args.reason.trim() === '' ? undefined : checkNote('reason', args.reason, snap.config)
  const result: RevertResult = {
    actor: args.actor,
    since: args.since,
    until: args.until,
    commits: args.commits,
    restored: [],
    released: [],
    cancelled: [],
    removed: [],
    kept: [],
    skipped: [],
    comments: args.comments,
    checks: args.checks,
    notes: [],
    short_ids: {},
  }
  let overridden = false
  const titleOf = (id: string, card?: RevertCard) => snap.tasks.get(id)?.meta?.title ?? card?.steps.at(-1)?.before?.meta.title ?? card?.steps.find((s) => s.after)?.after?.meta.title ?? id
  const skip = (id: string, field: string | null, why: string, card?: RevertCard) => result.skipped.push({id, title: titleOf(id, card), field, reason: why})

  const created = new Set<string>()
  for (const card of args.cards) if (card.steps.some((s) => s.mine && !s.unreadable && s.before === null && s.after !== null)) created.add(card.id)

  // ---- field by field, on the cards A changed and did not create
  const plans: CardPlan[] = []
  const depsOverride = new Map<string, readonly string[]>()
  for (const card of args.cards) {
    if (created.has(card.id)) continue
    const entry = snap.tasks.get(card.id)
    const lastMine = [...card.steps].reverse().find((s) => s.mine)
    if (!entry?.meta) {
      if (lastMine && lastMine.after === null) skip(card.id, null, `removed by ${args.actor} in ${lastMine.commit.slice(0, 10)}: \`tasks restore ${card.id}\` brings it back`, card)
      else skip(card.id, null, 'not in the list any more (removed since)', card)
      continue
    }
    const meta = wokenMeta(entry.meta, ctx.now)
    const tip = card.steps.at(-1)?.after
    const current: CardVersion = {meta, body: tip?.body ?? ''}
    const now = cardFields(current)
    const changes = card.steps.map((s) => new Map(s.unreadable ? [] : cardChanges(s.before, s.after).map((c) => [c.field, c])))
    const touched = new Set<string>()
    card.steps.forEach((s, i) => {
      if (s.mine) for (const f of changes[i]!.keys()) touched.add(f)
    })
    const plan: CardPlan = {id: card.id, meta, next: {...meta}, reopens: false, fields: []}
    const held = () => judgeMove(taskMove('revise', meta.status), standing(snap, meta, ctx))
    for (const field of fieldOrder([...touched])) {
      if (FOLLOW_STATUS.has(field)) continue
      const walk = walkField(card.steps, changes, field, now.get(field))
      if (walk.consumed === 0) {
        result.kept.push({id: card.id, title: meta.title, field, value: now.get(field) ?? null, set: walk.set ?? null, by: walk.by})
        continue
      }
      const to = walk.value
      const from = now.get(field)
      if (canon(to) === canon(from)) continue
      const no = (why: string) => skip(card.id, field, why)
      if (field === 'status') {
        const move = statusMove(snap, ctx, meta, to as Status, walk.before?.meta ?? null)
        if (!move.ok) {
          no(`${meta.status} → ${String(to)}: ${move.reason}`)
          continue
        }
        Object.assign(plan.next, move.changes)
        if (move.overridden) overridden = true
        plan.status = {from: meta.status, to: to as Status, changed: Object.keys(move.changes) as Array<keyof TaskMeta>, ...(move.released ? {released: move.released} : {})}
        plan.reopens = FINISHED.has(meta.status) && OPEN_STATUSES.has(to as Status)
        plan.fields.push({field, from, to})
        continue
      }
      if (field === 'flag_reason') {
        if (to !== undefined) {
          no(`a flag is raised in its flagger's own name: \`tasks flag ${card.id}\` raises it again`)
          continue
        }
        Object.assign(plan.next, {flag_reason: undefined, flagged_by: undefined, flagged_at: undefined})
        plan.fields.push({field, from, to: null})
        continue
      }
      if (SPEC.has(field)) {
        const verdict = held()
        if (!verdict.ok) {
          no(verdict.refusal === 'not_admin' ? `held live by ${meta.owner}: its spec is theirs, and only the admins may --force` : `held live by ${meta.owner}: its spec is theirs (pass --force --reason "…")`)
          continue
        }
        if (verdict.overridden) overridden = true
      }
      if (field === 'depends_on') {
        const deps = (to as string[] | undefined) ?? []
        const gone = deps.filter((d) => !snap.tasks.has(d))
        if (gone.length > 0) {
          no(`it depended on ${gone.join(', ')}, which ${gone.length === 1 ? 'is' : 'are'} no longer in the list`)
          continue
        }
        if (findPathTo(snap, deps, card.id, depsOverride)) {
          no('those dependencies would make a cycle now')
          continue
        }
        depsOverride.set(card.id, deps)
      }
      if (field === 'parent' && typeof to === 'string') {
        const parent = snap.tasks.get(to)?.meta
        if (!parent) {
          no(`its parent ${to} is no longer in the list`)
          continue
        }
        if (to === card.id || descendantIds(snap, card.id).includes(to)) {
          no(`${to} is one of its sub-items now`)
          continue
        }
        if (!FINISHED.has(plan.next.status) && !takesSubItems(parent.status)) {
          no(`its parent ${to} is ${parent.status}: a finished parent takes no open sub-item`)
          continue
        }
        const nesting = nestingError(snap, to, snap.config)
        if (nesting) {
          no(nesting.message)
          continue
        }
      }
      if (field === 'type' && typeof to === 'string' && snap.config.types.length > 0 && !snap.config.types.includes(to)) {
        no(`the list no longer allows the type ${to}`)
        continue
      }
      if (field.startsWith('fields.') && to !== undefined) {
        const problem = fieldValueProblem(to, snap.config.fields[field.slice('fields.'.length)])
        if (problem) {
          no(`${to as string}: ${problem} (the list's declaration of this field changed)`)
          continue
        }
      }
      if (field === 'description') plan.body = (to as string | undefined) ?? ''
      else setField(plan.next, field, to)
      plan.fields.push({field, from, to})
    }
    if (plan.fields.length > 0) plans.push(plan)
  }

  // ---- what the reconciler would undo: a card open again under a finished parent, or beneath a done dependent
  const opening = (id: string) => plans.some((p) => p.id === id && p.status && OPEN_STATUSES.has(p.status.to))
  for (let changed = true; changed; ) {
    changed = false
    for (const p of plans) {
      if (!p.status || !FINISHED.has(p.status.from) || !OPEN_STATUSES.has(p.status.to)) continue
      const parent = p.meta.parent !== undefined ? snap.tasks.get(p.meta.parent)?.meta : undefined
      const doneDependent = dependentsOf(snap, p.id).find((d) => d.status === 'done' && !opening(d.id))
      const why = parent && !takesSubItems(parent.status) && !opening(parent.id) ? `its parent ${parent.id} is ${parent.status}: a finished parent takes no open sub-item` : doneDependent ? `${doneDependent.id}, which depends on it, is done (by ${doneDependent.owner ?? doneDependent.updated_by}): the reconciler would reopen it` : null
      if (!why) continue
      skip(p.id, 'status', `${p.status.from} → ${p.status.to}: ${why}`)
      // Put the status (and the claim fields that follow it) back as they are.
      for (const k of p.status.changed) setField(p.next, k, p.meta[k])
      p.fields = p.fields.filter((f) => f.field !== 'status')
      p.status = undefined
      p.reopens = false
      changed = true
    }
  }

  const changes: Change[] = []
  for (const p of plans) {
    if (p.fields.length === 0) continue
    const next = revise(p.next, ctx, {})
    changes.push(p.body === undefined ? {kind: 'put-task', meta: next} : {kind: 'put-task', meta: next, body: p.body})
    for (const f of p.fields) result.restored.push({id: p.id, title: next.title, field: f.field, from: f.from ?? null, to: f.to ?? null})
    if (p.status?.released) result.released.push({id: p.id, title: next.title, owner: p.status.released})
    if (p.reopens) {
      for (const d of dependentsOf(snap, p.id)) {
        if (d.status === 'in_progress' || d.status === 'blocked') result.notes.push(`${d.id} (${d.status}, held by ${d.owner ?? 'nobody'}) depends on ${p.id}, which is ${next.status} again: its claim is left as it is`)
      }
    }
  }

  // ---- the cards A created in the window
  const mine = args.cards.filter((c) => created.has(c.id))
  const present = mine.filter((c) => snap.tasks.get(c.id)?.meta)
  for (const c of mine) if (!snap.tasks.get(c.id)?.meta) skip(c.id, null, 'created in the window, and removed since', c)
  const why = `revert of ${args.actor}'s writes${reason ? `: ${reason}` : ''}`
  const liveOther = (m: TaskMeta, move: TaskMoveName): string | null => {
    const verdict = judgeMove(taskMove(move, m.status), standing(snap, m, ctx))
    if (verdict.ok) {
      if (verdict.overridden) overridden = true
      return null
    }
    return verdict.refusal === 'not_admin' ? `held live by ${m.owner}; only the admins listed in config.yaml may --force` : `held live by ${m.owner}; pass --force --reason "…"`
  }
  if (args.remove) {
    const removing = new Set<string>()
    for (const c of present) {
      const m = snap.tasks.get(c.id)!.meta!
      const held = liveOther(m, 'remove')
      if (held) skip(c.id, null, `not removed: ${held}`)
      else removing.add(c.id)
    }
    for (let changed = true; changed; ) {
      changed = false
      for (const id of [...removing]) {
        const child = childIds(snap, id).find((k) => !removing.has(k))
        const dependent = child ? undefined : externalDependents(snap, removing, [id])[0]
        const no = child ? `its sub-item ${child} stays` : dependent ? `${dependent.id} depends on it` : null
        if (!no) continue
        removing.delete(id)
        skip(id, null, `not removed: ${no} (without --remove it is cancelled)`)
        changed = true
      }
    }
    for (const c of present) {
      if (!removing.has(c.id)) continue
      changes.push({kind: 'delete-task', id: c.id})
      result.removed.push({id: c.id, title: snap.tasks.get(c.id)!.meta!.title})
    }
  } else {
    for (const c of present) {
      const m = wokenMeta(snap.tasks.get(c.id)!.meta!, ctx.now)
      if (m.status === 'cancelled' || m.status === 'failed') {
        skip(c.id, null, `already ${m.status}`)
        continue
      }
      if (m.status === 'done') {
        skip(c.id, null, `done (by ${m.owner ?? m.updated_by}): a finished card is not cancelled (--remove removes it)`)
        continue
      }
      const others = openDescendants(snap, c.id).filter((d) => !created.has(d.id))
      if (others.length > 0) {
        skip(c.id, null, `not cancelled: open sub-items by others: ${others.map((d) => d.id).join(', ')}`)
        continue
      }
      const held = liveOther(m, 'cancel')
      if (held) {
        skip(c.id, null, `not cancelled: ${held}`)
        continue
      }
      changes.push({kind: 'put-task', meta: revise(m, ctx, {status: 'cancelled', cancel_reason: why, ...FINISH_CLEARS, closed_at: ctx.now})})
      result.cancelled.push({id: c.id, title: m.title})
    }
  }
  const trailers: Array<[string, string]> = [['Reverts-Actor', args.actor]]
  if (args.since) trailers.push(['Reverts-Since', args.since])
  if (args.until) trailers.push(['Reverts-Until', args.until])
  if (reason) trailers.push(['Tasks-Reason', reason])
  if (overridden) trailers.push(...overrideTrailers(ctx))
  const count = new Set(changes.map((c) => (c.kind === 'put-task' ? c.meta.id : c.kind === 'delete-task' ? c.id : ''))).size
  const tables = tablesOf(snap)
  const named = [...result.restored, ...result.released, ...result.cancelled, ...result.removed, ...result.kept, ...result.skipped, ...result.comments, ...result.checks].map((x) => x.id)
  for (const id of new Set(named)) if (snap.tasks.has(id)) result.short_ids[id] = shortIdOf(tables, id)
  return {
    op: 'revert',
    summary: `${args.actor}'s writes (${count} card${count === 1 ? '' : 's'})`,
    changes,
    trailers,
    result,
  }
}
