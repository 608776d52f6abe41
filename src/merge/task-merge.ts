/**
 * Field-level 3-way merge of one task (frontmatter and description), with
 * one documented rule per field (docs/merge.md):
 *
 *  - claim/lifecycle unit (status, owner, epoch, claim_epochs, claimed_at, lease_expires,
 *    block_note, blocked_on, cancel_reason, closed_at) moves as one: one side changed →
 *    that side; both changed differently → the published side, and the
 *    losing claim is reported (note + comment). The epoch never goes back,
 *    and a superseded claim's token is never accepted again: when it was not
 *    below the winner's, the epoch moves past both and the winner's owner
 *    keeps its old number through `claim_epochs`.
 *  - scalars (title, type, priority, parent, assignee, key) and unknown keys: 3-way
 *    per field; both changed → the later side (updated_at, revision,
 *    updated_by, then the values themselves), never the position.
 *  - sets (tags, depends_on): base ∪ added − removed, sorted.
 *  - custom fields (issue 33): 3-way per key, like scalars; a losing value is kept as a comment.
 *  - body: 3-way text merge; a conflict keeps the winning side and files the
 *    other text as a comment.
 *
 * Wherever typed text could not be merged (body, title, unknown keys, the
 * block note or cancel reason of a superseded claim) the result also carries
 * `conflict`: the body's regions and the frontmatter as each side would have
 * it, so the git merge driver can write conflict markers instead of comments.
 *
 * This module owns those rules. It must never drop text someone typed, never
 * depend on which side is called "ours" except through `published`, and
 * never read a clock or the disk: values in, values out.
 */
import {cmp} from '../core/order'
import type {Comment, TaskMeta} from '../core/task'
import {type ClaimState, MERGE_ACTOR, type MergeContext, type MergeNote, type Side, canon, cmpTime, engineComment, same, otherSide} from './merge-types'
import {type MergeRegion, mergeText} from './text-merge'

/** One side's version of a task: its frontmatter and description. */
export interface TaskVersion {
  meta: TaskMeta
  body: string
}

/** The merged task, plus comments to add to its card and notes for the caller. */
export interface TaskMergeResult {
  meta: TaskMeta
  body: string
  /** New comment files for this task (ids derived from content and `now`). */
  comments: Comment[]
  notes: MergeNote[]
  /**
   * Set when typed text could not be merged (the comments above keep it, for
   * `tasks sync`). `body`: the description's regions, when it conflicted.
   * `ours`/`theirs`: the merged frontmatter with each conflicting text field
   * (title, unknown keys, a superseded claim that carried a block note or
   * cancel reason: the whole claim) taken from that side instead.
   */
  conflict?: {body?: MergeRegion[]; ours: TaskMeta; theirs: TaskMeta}
}

/** Fields that change together when an item is claimed, blocked, finished, released or cancelled. */
// Issue 33: a deferral's date and reason and a failure's reason move with the status (they say why it is so).
export const CLAIM_UNIT = ['status', 'owner', 'epoch', 'claim_epochs', 'claimed_at', 'lease_expires', 'session', 'block_note', 'blocked_on', 'cancel_reason', 'closed_at', 'defer_reason', 'defer_until', 'fail_reason'] as const
/** A flag's reason, author and time move together. */
const FLAG_UNIT = ['flag_reason', 'flagged_by', 'flagged_at'] as const
/** Scalars merged field by field. */
// Issue 33: dates, the repeat interval and the instance followed are scalars like the others.
const SCALAR_FIELDS = ['title', 'type', 'priority', 'parent', 'work_session', 'assignee', 'key', 'due', 'scheduled', 'every', 'previous'] as const
/** Sets merged by adds and removes. */
const SET_FIELDS = ['tags', 'depends_on'] as const
/** Optional sets (roles and per-card notify rules): merged like the sets, absent when empty. */
const OPTIONAL_SET_FIELDS = ['collaborators', 'subscribers', 'notify_roles', 'notify_mute'] as const

type ClaimKey = (typeof CLAIM_UNIT)[number]
type ScalarKey = (typeof SCALAR_FIELDS)[number]

/**
 * Which side's edit is the later one: positive when `ours` is, negative when
 * `theirs` is, 0 when they cannot be told apart. Later `updated_at` (by
 * instant), then higher `revision`, then the greater `updated_by` (string
 * compare). Depends only on the values, never on the position.
 */
export function compareSides(ours: TaskMeta, theirs: TaskMeta): number {
  return cmpTime(ours.updated_at, theirs.updated_at) || ours.revision - theirs.revision || cmp(ours.updated_by, theirs.updated_by)
}

/**
 * The side that wins a field both sides changed to different values:
 * compareSides, then the greater canonical value (so that the result is the
 * same whichever side is passed first).
 */
function winnerOf(ours: TaskMeta, theirs: TaskMeta, oursValue: unknown, theirsValue: unknown): Side {
  const c = compareSides(ours, theirs)
  if (c !== 0) return c > 0 ? 'ours' : 'theirs'
  return cmp(canon(oursValue), canon(theirsValue)) >= 0 ? 'ours' : 'theirs'
}

/** 3-way pick: equal sides, or the side that changed; `conflict` when both changed differently. */
function pick3<T>(base: T, ours: T, theirs: T): {value: T; conflict: false} | {conflict: true} {
  if (same(ours, theirs) || same(theirs, base)) return {value: ours, conflict: false}
  if (same(ours, base)) return {value: theirs, conflict: false}
  return {conflict: true}
}

/** Set merge: an element is in the result if every side has it, or if it is new on a side that has it. */
export function mergeSet(base: readonly string[], ours: readonly string[], theirs: readonly string[]): string[] {
  const b = new Set(base)
  const o = new Set(ours)
  const t = new Set(theirs)
  const out = new Set<string>()
  for (const x of [...o, ...t]) {
    if (b.has(x) ? o.has(x) && t.has(x) : true) out.add(x)
  }
  return [...out].sort(cmp)
}

function sameVersion(a: TaskVersion, b: TaskVersion): boolean {
  return a.body === b.body && same(a.meta, b.meta)
}

/** The claim unit (CLAIM_UNIT) of a card's frontmatter: the fields that move together on a claim. */
export function claimUnit(meta: TaskMeta | undefined): Record<ClaimKey, unknown> | undefined {
  if (!meta) return undefined
  const unit = {} as Record<ClaimKey, unknown>
  for (const k of CLAIM_UNIT) unit[k] = meta[k]
  return unit
}

function claimState(meta: TaskMeta): ClaimState {
  return {status: meta.status, owner: meta.owner ?? null, epoch: meta.epoch, actor: meta.updated_by}
}

/** A claim as people read it: `in_progress held by alice (epoch 3)`. */
export function describeClaim(meta: TaskMeta): string {
  return `${meta.status}${meta.owner ? ` held by ${meta.owner}` : ''} (epoch ${meta.epoch})`
}

const quote = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : v === undefined ? '(unset)' : canon(v))

/**
 * Merge three versions of one task. `base` is null when both sides created
 * the task (the same idempotency key on two clones): every field then counts
 * as changed on both sides, sets are the union, and the body merges against
 * an empty text. Returns the merged frontmatter and body, comments to add to
 * the card (superseded claim, losing title, losing description) and notes.
 *
 * If one side is unchanged from base, or both sides are equal, that version
 * is returned as it is (no revision bump, no comments). Otherwise revision is
 * max(ours, theirs) + 1, and updated_at/updated_by are the later side's
 * (the merge is not an edit: a later merge still compares real edit times) ("git-tasks" is not an actor and never appears
 * there); created_at/created_by come from base, or from the earlier creation.
 *
 * Symmetric: swapping ours and theirs together with ctx.published gives the
 * same result.
 */
export function mergeTask(base: TaskVersion | null, ours: TaskVersion, theirs: TaskVersion, ctx: MergeContext): TaskMergeResult {
  const id = ours.meta.id
  if (theirs.meta.id !== id || (base && base.meta.id !== id)) {
    throw new Error(`internal: mergeTask of different ids ${base?.meta.id ?? '-'} / ${id} / ${theirs.meta.id}`)
  }
  if (sameVersion(ours, theirs) || (base && sameVersion(theirs, base))) return {meta: ours.meta, body: ours.body, comments: [], notes: []}
  if (base && sameVersion(ours, base)) return {meta: theirs.meta, body: theirs.body, comments: [], notes: []}

  const o = ours.meta
  const t = theirs.meta
  const b = base?.meta
  const side = (s: Side): TaskMeta => (s === 'ours' ? o : t)
  const comments: Comment[] = []
  const notes: MergeNote[] = []
  const out = {} as Record<string, unknown>
  // Text fields both sides changed differently: each side's value (for the driver's markers).
  const textFields: Record<Side, Record<string, unknown>> = {ours: {}, theirs: {}}
  const extraFields: Record<Side, Record<string, unknown>> = {ours: {}, theirs: {}}

  // Claim/lifecycle unit: one side changed → that side; both → the published side.
  const claim = pick3(claimUnit(b), claimUnit(o), claimUnit(t))
  let unitFrom: TaskMeta
  // The epoch is a fencing token: a number once handed out is never handed out again.
  let epoch = Math.max(o.epoch, t.epoch, b?.epoch ?? 0)
  // Both claims of a claim conflict, when the loser carried text (for the driver's markers).
  let claimVariants: Record<Side, Record<string, unknown>> | undefined
  if (!claim.conflict) unitFrom = same(claim.value, claimUnit(o)) ? o : t
  else {
    const winner = side(ctx.published)
    const loser = side(otherSide(ctx.published))
    unitFrom = winner
    const carriedText = lostClaim(id, winner, loser, ctx, comments, notes)
    // A superseded claim whose token is not below the winner's would still pass `--epoch`
    // (two offline claims both get epoch n + 1): move the epoch past both. The winning owner
    // keeps its own number through claim_epochs (permission.ts accepts it from the owner only).
    if (supersedes(winner, loser)) {
      epoch += 1
      const note = notes[notes.length - 1]
      if (note?.kind === 'lost_claim') {
        note.message += `; the epoch moves to ${epoch}, so ${loser.owner}'s epoch ${loser.epoch} is refused${winner.owner ? ` (${winner.owner} may still use ${winner.epoch})` : ''}`
      }
    }
    if (carriedText) claimVariants = {ours: fencedUnit(o, epoch), theirs: fencedUnit(t, epoch)}
  }
  Object.assign(out, fencedUnit(unitFrom, epoch))

  // Scalars: 3-way per field; both changed → the later side.
  for (const k of SCALAR_FIELDS) {
    const r = pick3<unknown>(b?.[k], o[k], t[k])
    if (!r.conflict) {
      out[k] = r.value
      continue
    }
    const w = winnerOf(o, t, o[k], t[k])
    const winner = side(w)
    const loser = side(w === 'ours' ? 'theirs' : 'ours')
    out[k] = winner[k]
    if (k === 'title') {
      textFields.ours[k] = o[k]
      textFields.theirs[k] = t[k]
    }
    scalarConflict(id, k, winner, loser, winner[k], loser[k], ctx, comments, notes)
  }

  // Flag: one side changed it → that side; both differently → the later side, the other reason kept as a comment.
  const flagOf = (m: TaskMeta | undefined) => (m ? Object.fromEntries(FLAG_UNIT.map((k) => [k, m[k]])) : undefined)
  const flag = pick3(flagOf(b), flagOf(o), flagOf(t))
  if (!flag.conflict) Object.assign(out, flag.value ?? {})
  else {
    const w = winnerOf(o, t, o.flag_reason, t.flag_reason)
    const winner = side(w)
    const loser = side(otherSide(w))
    Object.assign(out, flagOf(winner))
    notes.push({kind: 'field_conflict', task: id, field: 'flag_reason', kept: winner.flag_reason ?? null, dropped: loser.flag_reason ?? null, message: `${id}: both sides changed the flag; kept ${quote(winner.flag_reason)} (${winner.updated_by}), dropped ${quote(loser.flag_reason)} (${loser.updated_by})`})
    if (loser.flag_reason !== undefined) comments.push(engineComment(id, 'note', loser.flagged_by ?? loser.updated_by, `Concurrent flag not kept on merge: ${JSON.stringify(loser.flag_reason)}.`, ctx.now))
  }

  // Sets: base ∪ added − removed.
  for (const k of SET_FIELDS) out[k] = mergeSet(b?.[k] ?? [], o[k], t[k])
  const optionalSets: Partial<Record<(typeof OPTIONAL_SET_FIELDS)[number], string[]>> = {}
  for (const k of OPTIONAL_SET_FIELDS) {
    const merged = mergeSet(b?.[k] ?? [], o[k] ?? [], t[k] ?? [])
    if (merged.length > 0) optionalSets[k] = merged
  }

  // Unknown frontmatter keys: 3-way per key like scalars.
  const extraKeys = [...new Set([...Object.keys(b?.extra ?? {}), ...Object.keys(o.extra ?? {}), ...Object.keys(t.extra ?? {})])].sort(cmp)
  const extra: Record<string, unknown> = {}
  for (const k of extraKeys) {
    const bv = b?.extra?.[k]
    const ov = o.extra?.[k]
    const tv = t.extra?.[k]
    const r = pick3(bv, ov, tv)
    let value: unknown
    if (!r.conflict) value = r.value
    else {
      const w = winnerOf(o, t, ov, tv)
      value = w === 'ours' ? ov : tv
      const dropped = w === 'ours' ? tv : ov
      extraFields.ours[k] = ov
      extraFields.theirs[k] = tv
      notes.push({kind: 'field_conflict', task: id, field: k, kept: value ?? null, dropped: dropped ?? null, message: `${id}: both sides changed ${k}; kept ${quote(value)}, dropped ${quote(dropped)}`})
    }
    if (value !== undefined) extra[k] = value
  }

  // Issue 33: custom fields, 3-way per key like scalars; both changed → the later side, the other value kept as a comment.
  const customKeys = [...new Set([...Object.keys(b?.fields ?? {}), ...Object.keys(o.fields ?? {}), ...Object.keys(t.fields ?? {})])].sort(cmp)
  const customFields: Record<string, string | number | boolean> = {}
  const customVariants: Record<Side, Record<string, unknown>> = {ours: {}, theirs: {}}
  for (const k of customKeys) {
    const bv = b?.fields?.[k]
    const ov = o.fields?.[k]
    const tv = t.fields?.[k]
    const r = pick3(bv, ov, tv)
    let value: string | number | boolean | undefined
    if (!r.conflict) value = r.value
    else {
      const w = winnerOf(o, t, ov, tv)
      const winner = side(w)
      const loser = side(otherSide(w))
      value = w === 'ours' ? ov : tv
      const dropped = w === 'ours' ? tv : ov
      customVariants.ours[k] = ov
      customVariants.theirs[k] = tv
      notes.push({kind: 'field_conflict', task: id, field: `fields.${k}`, kept: value ?? null, dropped: dropped ?? null, message: `${id}: both sides changed field ${k}; kept ${quote(value)} (${winner.updated_by}), dropped ${quote(dropped)} (${loser.updated_by})`})
      const said = dropped === undefined ? 'removed it' : `set it to ${JSON.stringify(dropped)}`
      comments.push(engineComment(id, 'note', loser.updated_by, `Concurrent change of field ${k} not kept on merge: ${loser.updated_by} ${said} (${value === undefined ? 'its removal' : JSON.stringify(value)} by ${winner.updated_by} was kept).`, ctx.now))
    }
    if (value !== undefined) customFields[k] = value
  }

  // Body: 3-way text merge; a conflict keeps the later side and files the other.
  let body: string
  let bodyRegions: MergeRegion[] | undefined
  const text = mergeText(base?.body ?? '', ours.body, theirs.body)
  if (text.clean) body = text.text
  else {
    bodyRegions = text.regions
    const w = winnerOf(o, t, ours.body, theirs.body)
    const winner = side(w)
    const loser = side(w === 'ours' ? 'theirs' : 'ours')
    body = w === 'ours' ? ours.body : theirs.body
    const lost = w === 'ours' ? theirs.body : ours.body
    const c = engineComment(
      id,
      'note',
      loser.updated_by,
      `Concurrent edit of the description that could not be merged with another edit made at the same time (the version by ${winner.updated_by} was kept). The full text of this edit:\n\n${lost}`,
      ctx.now,
    )
    comments.push(c)
    notes.push({kind: 'body_conflict', task: id, comment: c.id, message: `${id}: the description was edited on both sides and could not be merged; kept ${winner.updated_by}'s text, filed ${loser.updated_by}'s as comment ${c.id}`})
  }

  // Bookkeeping.
  const created = b ?? earlierCreation(o, t)
  const later = compareSides(o, t) >= 0 ? o : t
  const meta = {
    id,
    title: out.title,
    status: out.status,
    type: out.type,
    priority: out.priority,
    tags: out.tags,
    parent: out.parent,
    work_session: out.work_session,
    depends_on: out.depends_on,
    assignee: out.assignee,
    owner: out.owner,
    epoch: out.epoch,
    claim_epochs: out.claim_epochs,
    claimed_at: out.claimed_at,
    lease_expires: out.lease_expires,
    session: out.session,
    block_note: out.block_note,
    blocked_on: out.blocked_on,
    cancel_reason: out.cancel_reason,
    defer_reason: out.defer_reason,
    defer_until: out.defer_until,
    fail_reason: out.fail_reason,
    due: out.due,
    scheduled: out.scheduled,
    every: out.every,
    previous: out.previous,
    flag_reason: out.flag_reason,
    flagged_by: out.flagged_by,
    flagged_at: out.flagged_at,
    closed_at: out.closed_at,
    key: out.key,
    ...optionalSets,
    created_at: created.created_at,
    created_by: created.created_by,
    // The later side's edit time, not the merge time: a merge is not an edit, and a
    // later merge must still compare when people actually changed the task.
    updated_at: later.updated_at,
    updated_by: later.updated_by,
    revision: Math.max(o.revision, t.revision) + 1,
  } as TaskMeta
  if (Object.keys(customFields).length > 0) meta.fields = customFields
  if (Object.keys(extra).length > 0) meta.extra = extra
  const merged = dropUndefined(meta)
  const result: TaskMergeResult = {meta: merged, body, comments, notes}
  const variant = (s: Side): TaskMeta => {
    const v = {...merged, ...claimVariants?.[s], ...textFields[s]} as TaskMeta
    const extras = {...merged.extra}
    for (const [k, x] of Object.entries(extraFields[s])) {
      if (x === undefined) delete extras[k]
      else extras[k] = x
    }
    if (Object.keys(extras).length > 0) v.extra = extras
    else delete v.extra
    // Each side's value of a custom field both changed differently (issue 33).
    const custom: Record<string, unknown> = {...merged.fields}
    for (const [k, x] of Object.entries(customVariants[s])) {
      if (x === undefined) delete custom[k]
      else custom[k] = x
    }
    if (Object.keys(custom).length > 0) v.fields = Object.fromEntries(Object.keys(custom).sort(cmp).map((k) => [k, custom[k]])) as TaskMeta['fields']
    else delete v.fields
    return dropUndefined(v)
  }
  if (bodyRegions || claimVariants || Object.keys(textFields.ours).length > 0 || Object.keys(extraFields.ours).length > 0 || Object.keys(customVariants.ours).length > 0) {
    result.conflict = {body: bodyRegions, ours: variant('ours'), theirs: variant('theirs')}
  }
  return result
}

/**
 * Whether keeping `winner` over `loser` must move the epoch on: the loser is
 * someone else's claim (it has an owner, not the winner's) holding a token
 * not below the winner's, which `--epoch` would otherwise still accept.
 */
function supersedes(winner: TaskMeta, loser: TaskMeta): boolean {
  return loser.owner !== undefined && loser.owner !== winner.owner && loser.epoch >= winner.epoch
}

/**
 * The epochs under which the claim in `meta` was handed out: `claim_epochs`
 * while it is current (its last number is the epoch), else just the epoch.
 */
function tokensOf(meta: TaskMeta): number[] {
  const c = meta.claim_epochs
  return c && c.length > 0 && c[c.length - 1] === meta.epoch ? c : [meta.epoch]
}

/**
 * `meta`'s claim unit at `epoch`. When the epoch moved past the claim's own
 * (a superseded claim), the owner's earlier numbers stay valid through
 * `claim_epochs`, ending with the new epoch; an unowned claim needs none.
 */
function fencedUnit(meta: TaskMeta, epoch: number): Record<string, unknown> {
  const unit: Record<string, unknown> = {...claimUnit(meta), epoch}
  const tokens = tokensOf(meta)
  if (epoch === meta.epoch) unit.claim_epochs = tokens.length > 1 ? tokens : undefined
  else unit.claim_epochs = meta.owner !== undefined ? [...tokens, epoch] : undefined
  return unit
}

function dropUndefined(meta: TaskMeta): TaskMeta {
  const out = {} as Record<string, unknown>
  for (const [k, v] of Object.entries(meta)) if (v !== undefined) out[k] = v
  return out as unknown as TaskMeta
}

/** The side that created the task first (then the smaller created_by), for add/add merges. */
function earlierCreation(o: TaskMeta, t: TaskMeta): TaskMeta {
  const c = cmpTime(o.created_at, t.created_at) || cmp(o.created_by, t.created_by)
  return c <= 0 ? o : t
}

/**
 * Report the losing side of a claim/lifecycle conflict, and keep any text it
 * carried (block note, cancel reason) as a comment. Returns whether it did.
 */
function lostClaim(id: string, winner: TaskMeta, loser: TaskMeta, ctx: MergeContext, comments: Comment[], notes: MergeNote[]): boolean {
  const sameClaim = winner.status === loser.status && winner.owner === loser.owner && winner.epoch === loser.epoch
  const typed: string[] = []
  if (loser.block_note !== undefined && loser.block_note !== winner.block_note) typed.push(`Its block note: ${loser.block_note}`)
  if (loser.cancel_reason !== undefined && loser.cancel_reason !== winner.cancel_reason) typed.push(`Its cancel reason: ${loser.cancel_reason}`)
  if (sameClaim) {
    // The same claim seen twice (e.g. two heartbeats): nobody lost it. Only keep text.
    if (typed.length > 0) {
      comments.push(engineComment(id, 'note', loser.updated_by, `A concurrent change to this item's ${describeClaim(loser)} was superseded by the published version on merge. ${typed.join('\n')}`, ctx.now))
    }
    return typed.length > 0
  }
  const message = `${id}: a concurrent change was superseded by the published one: ${describeClaim(loser)} by ${loser.updated_by} was not kept; it stays ${describeClaim(winner)}`
  notes.push({kind: 'lost_claim', task: id, loser: claimState(loser), winner: claimState(winner), message})
  const text = [
    `Merge: two clones changed this item's status at the same time and the published change wins. Superseded: ${describeClaim(loser)}, set by ${loser.updated_by}. Kept: ${describeClaim(winner)}, set by ${winner.updated_by}.`,
    ...typed,
  ].join('\n')
  comments.push(engineComment(id, 'problem', MERGE_ACTOR, text, ctx.now))
  return typed.length > 0
}

/** Note a scalar both sides changed; a losing title is kept as a comment. */
function scalarConflict(
  id: string,
  field: ScalarKey,
  winner: TaskMeta,
  loser: TaskMeta,
  kept: unknown,
  dropped: unknown,
  ctx: MergeContext,
  comments: Comment[],
  notes: MergeNote[],
): void {
  notes.push({
    kind: 'field_conflict',
    task: id,
    field,
    kept: kept ?? null,
    dropped: dropped ?? null,
    message: `${id}: both sides changed ${field}; kept ${quote(kept)} (${winner.updated_by}), dropped ${quote(dropped)} (${loser.updated_by})`,
  })
  if (field === 'title' && typeof dropped === 'string') {
    comments.push(engineComment(id, 'note', loser.updated_by, `Concurrent title change not kept on merge: ${JSON.stringify(dropped)} (the title ${JSON.stringify(kept)} by ${winner.updated_by} was kept).`, ctx.now))
  }
}
