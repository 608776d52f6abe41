/**
 * The guard's judges, one per file kind of FILE_KINDS (./rules.ts): each
 * takes the facts of one changed path in a one-parent commit, as values,
 * and returns the refusals. Pure: verify.ts reads git (commits, blobs,
 * snapshots) and hands the judges what it read; nothing here does I/O.
 * The card and check rules themselves are in ./rules.ts, over the
 * rulebook of src/core/state-machine.ts.
 */
import {wokenStatus} from '../core/dates'
import {type Check, checkOfPath, parseCheckFile} from '../core/check'
import {type ActorEntry, RECORD_STEM_RE, actorSlug, parseActor, parseLatch, parseRecord} from '../core/inbox'
import {type Snapshot, tablesOf} from '../core/snapshot'
import {claimLimitAllows, judgeMove, mayOverride, missingCheckKinds, standingOf, takesSubItems, taskMove} from '../core/state-machine'
import {claimIsLive, liveClaimsOf} from '../core/readiness'
import {ENGINE_ACTOR, FINISHED, FORMAT_VERSION, type ListConfig, MAX_FILE_BYTES, type TaskMeta} from '../core/task'
import {pathAllowed} from '../core/path-patterns'
import {parseCommentFile, parseConfig, parseMeta, taskBody} from '../core/task-file'
import {ancestorsOf, depthOf} from '../core/nesting'
import {isBumpOnly, newlyUnblocked} from '../core/unblock'
import {type CommitFacts, type FileCheck, type Refusal, ENGINE_OPS, IMPORT_OP, judgeActorChange, judgeCheckChange, judgeDoneChecks, judgeSessionChange, judgeSpecRevision, judgeTaskChange} from './rules'
import {SCENARIO_MARKER, SCENARIO_PATH} from '../core/scenario'
import {PLAN_MARKER, PLAN_PATH} from '../core/plan-marker'
import type {ListMarker} from '../core/list-marker'
import {SESSION_CHECKPOINT_RE, SESSION_FILE_RE, type WorkSession, parseSessionCheckpoint, parseSessionFile, sessionFilePath} from '../core/work-session'

/** What the guard knows of one commit, read once for all its paths. */
export interface CommitView {
  facts: CommitFacts
  /** The list at the commit's parent and at the commit. */
  before: Snapshot
  after: Snapshot
  /** The commit's actor as a recipient: itself, or the name its alias entry (before the commit) points to. */
  canonical: string
  /** Ids removed earlier (in the history of OLD, and by earlier commits of the update). */
  removed: ReadonlySet<string>
  /** For an undo (Tasks-Undo): the list before the commit it takes back, and that commit; null otherwise. */
  undoBase: Snapshot | null
  undoes: string | null
  /** The checks, as they stand in the commit's tree, of every card the commit finishes. */
  finishing: ReadonlyMap<string, Check[]>
  /** Paths the commit adds, and every path it changes (coordination sessions: a checkpoint goes with its session's file). */
  added?: ReadonlySet<string>
  changed?: ReadonlySet<string>
  /** With require_checks (the list's before the commit): the checks, in the commit's tree, of every card it adds or whose checks it changes. */
  gated?: ReadonlyMap<string, Check[]>
  /**
   * The list the commit was made on, when not the list judged (`after.list`):
   * a plan's commit that its merge brings to the target (through the merge's
   * second parent) was made on the plan (the merge's Tasks-Plan).
   */
  list?: string
}

/** One changed path: its text before and after (null: absent; '' when not read or not UTF-8). */
export interface FileFacts {
  path: string
  before: string | null
  after: string | null
  commit: CommitView
}

export type FileJudge = (f: FileFacts) => Refusal[]

const idOf = (path: string): string => /^tasks\/[^/]+\/([^/]+)\//.exec(path)![1]!
const isImport = (f: FileFacts): boolean => f.commit.facts.op === IMPORT_OP

export function judgeMetaFile(f: FileFacts): Refusal[] {
  if (f.after === null) return [{rule: 'store_format', message: 'meta.yaml, the mark of a task list, was removed'}]
  const parsed = parseMeta(f.after)
  if (!parsed.ok) return [{rule: 'schema', message: `meta.yaml does not validate: ${parsed.error}`}]
  if (parsed.value.format !== FORMAT_VERSION) return [{rule: 'store_format', message: `store format ${parsed.value.format} is not one this server knows (${FORMAT_VERSION})`}]
  return []
}

export function judgeConfigFile(f: FileFacts): Refusal[] {
  const out: Refusal[] = []
  const parsed = f.after !== null ? parseConfig(f.after) : null
  if (parsed && !parsed.ok) out.push({rule: 'schema', message: `config.yaml does not validate: ${parsed.error}`})
  const admins = f.commit.before.config.admins
  const actor = f.commit.facts.actor
  if (admins.length > 0 && !admins.includes(actor)) out.push({rule: 'not_admin', message: `only the admins (${admins.join(', ')}) may change config.yaml; the commit was made by "${actor}"`})
  return out
}

/** A comment is added by its author and never rewritten; removing one is `undo`'s or its card's removal. */
export function judgeCommentFile(f: FileFacts): Refusal[] {
  if (f.before !== null && f.after !== null) return [{rule: 'comment_rewritten', message: 'a comment, once written, is never changed'}]
  if (f.after === null) return []
  const name = f.path.slice(f.path.lastIndexOf('/') + 1, -3)
  const parsed = parseCommentFile(f.after, idOf(f.path), name)
  if (!parsed.ok) return [{rule: 'schema', message: `the comment does not validate: ${parsed.error}`}]
  const {actor, op} = f.commit.facts
  const engine = parsed.value.author === ENGINE_ACTOR && ENGINE_OPS.has(op)
  if (parsed.value.author !== actor && !isImport(f) && !engine) {
    return [{rule: 'forged_actor', message: `the comment says it is by "${parsed.value.author}", but the commit was made by "${actor}"`}]
  }
  return []
}

export function judgeCheckFile(f: FileFacts): Refusal[] {
  const where = checkOfPath(f.path)
  if (!where) return [{rule: 'schema', message: 'not a check file name (tasks/<xx>/<id>/checks/chk-….md)'}]
  const out: Refusal[] = []
  const read = (text: string | null, isAfter: boolean): Check | undefined | 'broken' => {
    if (text === null) return undefined
    const parsed = parseCheckFile(text, where.task, where.id)
    if (parsed.ok) return parsed.value
    if (isAfter) out.push({rule: 'schema', message: `the check does not validate: ${parsed.error}`})
    return 'broken'
  }
  const was = read(f.before, false)
  const now = read(f.after, true)
  if (now === 'broken') return out
  const cardGone = !f.commit.after.tasks.has(where.task)
  if (now && cardGone) return [{rule: 'schema', message: `the check belongs to ${where.task}, which is not in the list`}]
  out.push(...judgeCheckChange(was === 'broken' ? undefined : was, now, f.commit.facts, cardGone))
  // The creation gate (require_checks): the last active check of a required kind is not superseded.
  const config = f.commit.before.config
  if (now && now.status === 'superseded' && was && was !== 'broken' && was.status !== 'superseded' && !isImport(f)) {
    if (missingCheckKinds(config, f.commit.gated?.get(where.task) ?? []).includes(now.kind)) {
      out.push({rule: 'checks_required', message: `${now.id} was the last active ${now.kind} check of ${where.task}, and the list requires one (require_checks)`})
    }
  }
  // Adding or superseding a check changes the card's spec: someone else's live claim needs an override.
  const before = was === 'broken' ? undefined : was
  const revises = now && (!before ? now.status === 'pending' : now.status === 'superseded' && before.status !== 'superseded')
  const card = f.commit.before.tasks.get(where.task)?.meta
  if (revises && card && f.commit.facts.op !== IMPORT_OP && !ENGINE_OPS.has(f.commit.facts.op)) {
    const {facts, before: snap, after} = f.commit
    const standing = standingOf(card, facts.actor, facts.time, snap.config, facts.override !== null)
    // A card the actor took in this very commit (a batch's claim, then a check) is theirs.
    const taken = after.tasks.get(where.task)?.meta
    const holder = taken && taken.owner === facts.actor && taken.epoch > card.epoch ? {...standing, owner: facts.actor} : standing
    const overrideAllowed = facts.override !== null && mayOverride(facts.actor, snap.config.admins)
    const refusal = judgeSpecRevision(card, holder, !before ? 'adding a check' : 'superseding a check', overrideAllowed)
    if (refusal) out.push(refusal)
    if (facts.override !== null && !overrideAllowed) out.push({rule: 'not_admin', message: `the commit records an override, but only the admins (${snap.config.admins.join(', ')}) may force`})
  }
  return out
}

/** An inbox record is only ever added, lies in its recipient's inbox and is by the actor. */
export function judgeInboxFile(f: FileFacts): Refusal[] {
  if (f.before !== null) return [{rule: 'inbox_rewritten', message: `an inbox record is only ever added; this one was ${f.after !== null ? 'changed' : 'removed'}`}]
  const [, slug, name] = f.path.split('/') as [string, string, string]
  const stem = name.slice(0, -3)
  const parsed = parseRecord(f.after ?? '', stem)
  if (!RECORD_STEM_RE.test(stem)) return [{rule: 'schema', message: `${name} is not a record name (<yyyymmddThhmmss.mmmZ>-<8 hex>.md)`}]
  if (!parsed.ok) return [{rule: 'schema', message: `the inbox record does not validate: ${parsed.error}`}]
  if (actorSlug(parsed.value.to) !== slug) return [{rule: 'schema', message: `the record is addressed to "${parsed.value.to}" but lies in the inbox of ${slug}`}]
  const actor = f.commit.facts.actor
  if (parsed.value.actor !== actor) return [{rule: 'forged_actor', message: `the record says "${parsed.value.actor}" did it, but the commit was made by "${actor}"`}]
  return []
}

/** A seen marker is only ever added, empty, and by the inbox's owner (or an alias of it). */
export function judgeSeenFile(f: FileFacts): Refusal[] {
  const [, slug, name] = f.path.split('/') as [string, string, string]
  if (f.before !== null) return [{rule: 'inbox_rewritten', message: `a seen marker is only ever added; this one was ${f.after !== null ? 'changed' : 'removed'}`}]
  if (!RECORD_STEM_RE.test(name.slice(0, -'.seen'.length)) || (f.after ?? '') !== '') return [{rule: 'schema', message: 'a seen marker is an empty <record id>.seen'}]
  const actor = f.commit.facts.actor
  if (slug !== actorSlug(actor) && slug !== actorSlug(f.commit.canonical)) {
    return [{rule: 'not_recipient', message: `only the owner of inbox ${slug} (or an alias of it) marks its records seen; the commit was made by "${actor}"`}]
  }
  return []
}

export function judgeActorFile(f: FileFacts): Refusal[] {
  const slug = f.path.slice('actors/'.length, -'.yaml'.length)
  const out: Refusal[] = []
  const read = (text: string | null, isAfter: boolean): ActorEntry | undefined | 'broken' => {
    if (text === null) return undefined
    const parsed = parseActor(text)
    if (parsed.ok) return parsed.value
    if (isAfter) out.push({rule: 'schema', message: `the actor entry does not validate: ${parsed.error}`})
    return 'broken'
  }
  const was = read(f.before, false)
  const now = read(f.after, true)
  if (now === 'broken') return out
  return judgeActorChange(slug, was === 'broken' ? undefined : was, now, f.commit.facts, f.commit.canonical, f.commit.before.config, actorSlug)
}

export function judgeReminderFile(f: FileFacts): Refusal[] {
  if (f.after === null) return []
  const parsed = parseLatch(f.after)
  return parsed.ok ? [] : [{rule: 'schema', message: `the reminder latch does not validate: ${parsed.error}`}]
}

/**
 * A card removed: by whoever may remove it (someone else's live claim needs an override, as for `rm`), with nothing
 * left that depends on it; a prune removes only finished cards closed before its cutoff.
 */
function judgeRemovedCard(id: string, c: CommitView): Refusal[] {
  const out: Refusal[] = []
  const {before, after, facts} = c
  const dependents = tablesOf(after).dependents(id).filter((d) => after.tasks.has(d))
  if (dependents.length > 0) out.push({rule: 'has_dependents', message: `${id} was removed while ${dependents.join(', ')} depend${dependents.length === 1 ? 's' : ''} on it`})
  const old = before.tasks.get(id)?.meta
  if (old && !ENGINE_OPS.has(facts.op)) {
    // Issue 33: a deferral whose time had come is judged as todo (dates.ts).
    const verdict = judgeMove(taskMove('remove', wokenStatus(old, Date.parse(facts.time))), standingOf(old, facts.actor, facts.time, before.config, facts.override !== null))
    if (!verdict.ok && verdict.refusal === 'not_admin') {
      out.push({rule: 'not_admin', message: `the commit records an override, but only the admins (${before.config.admins.join(', ')}) may force`})
    } else if (!verdict.ok) {
      out.push({rule: 'not_owner', message: `${id} was removed while "${old.owner ?? 'nobody'}" held it (lease until ${old.lease_expires ?? 'none'}); the commit was made by "${facts.actor}" and records no override`})
    }
  }
  if (facts.op === 'prune') {
    const cutoff = facts.pruneBefore ?? ''
    const closed = old ? (old.closed_at ?? old.updated_at) : ''
    if (!old || !FINISHED.has(old.status) || !cutoff || cutoff > facts.time || !(closed < cutoff)) {
      out.push({rule: 'prune', message: `prune removes only finished cards closed before its cutoff (Tasks-Prune-Before ${cutoff || 'missing'}, not after the commit); ${id} is ${old?.status ?? 'unreadable'}, closed ${closed || 'never'}`})
    }
    const children = tablesOf(after).children(id).filter((d) => after.tasks.has(d))
    if (children.length > 0) out.push({rule: 'has_dependents', message: `${id} was pruned while its sub-item${children.length === 1 ? '' : 's'} ${children.join(', ')} stay${children.length === 1 ? 's' : ''}`})
  }
  return out
}

/** A card's task.md added, changed or removed (the card as the snapshots read it; the file's text is not needed). */
export function judgeTaskFile(f: FileFacts): Refusal[] {
  const id = idOf(f.path)
  const c = f.commit
  const was = c.before.tasks.get(id)
  const now = c.after.tasks.get(id)
  if (!now) return judgeRemovedCard(id, c)
  if (!now.meta) return [{rule: 'schema', message: `the card cannot be read: ${now.error}`}]
  if (c.undoBase) {
    // An undo puts the card back as it was before the commit it takes back (a new revision, by the actor).
    const back = c.undoBase.tasks.get(id)?.meta
    const strip = (m: typeof back) => (m ? JSON.stringify({...m, revision: 0, epoch: 0, updated_at: '', updated_by: ''}) : null)
    if (!back || strip(back) !== strip(now.meta) || now.meta.updated_by !== c.facts.actor || (was?.meta && now.meta.epoch < was.meta.epoch)) {
      return [{rule: 'undo_mismatch', message: `an undo of ${c.undoes!.slice(0, 12)} must put the card back as it was before that commit`}]
    }
    return []
  }
  // An unblock bump (core/unblock.ts): only the revision raised by one, on an item the commit unblocked (it
  // finished the item's last open dependency). Who and when stay the last real edit's, so the actor differs.
  if (was?.meta && isBumpOnly(was.meta, now.meta) && newlyUnblocked([c.before], c.after, [id]).length === 1) return []
  const out: Refusal[] = []
  const imported = c.facts.op === IMPORT_OP
  if (!was && c.removed.has(id) && c.facts.op !== 'restore' && !imported) {
    out.push({rule: 'id_reused', message: `${id} was removed earlier; an id is never reused (\`tasks restore\` brings a card back)`})
  }
  // The description is the body of task.md: changed when both texts were read and differ.
  const bodyChanged = !!was?.meta && !!f.before && !!f.after && taskBody(f.before) !== taskBody(f.after)
  out.push(...judgeTaskChange(was?.meta ?? undefined, now.meta, c.facts, c.before.config, {bodyChanged}))
  out.push(...judgeClaimLimit(id, was?.meta ?? undefined, now.meta, c))
  // Sub-items nest at most max_depth levels (a new card, or one given another parent).
  if (now.meta.parent !== undefined && now.meta.parent !== was?.meta?.parent && !ENGINE_OPS.has(c.facts.op)) {
    const depth = depthOf(c.after, id)
    if (depth > c.before.config.max_depth) out.push({rule: 'nesting_too_deep', message: `${id} is nested ${depth} levels deep (under ${ancestorsOf(c.after, id).join(' → ')}); the list nests sub-items at most ${c.before.config.max_depth} deep (max_depth)`})
  }
  // An import's card is done as the document recorded it, checks and all.
  const checks = imported ? undefined : c.finishing.get(id)
  if (checks) out.push(...judgeDoneChecks(checks))
  if (!imported && !ENGINE_OPS.has(c.facts.op)) out.push(...judgeGates(id, was?.meta ?? undefined, now.meta, c))
  return out
}

/**
 * The creation gates and the sub-item rule (docs/model.md): with require_checks a card is added with an active
 * acceptance and test check and finished with them; a finished parent takes no open sub-item (added, moved under it,
 * or reopened); a parent is not done while a sub-item is open. The same predicates the ops ask.
 */
function judgeGates(id: string, was: TaskMeta | undefined, now: TaskMeta, c: CommitView): Refusal[] {
  const out: Refusal[] = []
  const config = c.before.config
  const finishing = now.status === 'done' && was?.status !== 'done'
  if ((!was && c.facts.op !== 'restore') || finishing) {
    const missing = missingCheckKinds(config, (finishing ? c.finishing.get(id) : undefined) ?? c.gated?.get(id) ?? [])
    if (missing.length > 0) out.push({rule: 'checks_required', message: `${id} was ${finishing ? 'finished' : 'added'} without an active ${missing.join(' and ')} check, and the list requires one of each (require_checks)`})
  }
  const open = !FINISHED.has(now.status)
  const newlyUnder = !was || was.parent !== now.parent || FINISHED.has(was.status)
  const parent = now.parent !== undefined ? c.after.tasks.get(now.parent)?.meta : undefined
  if (open && newlyUnder && parent && !takesSubItems(parent.status)) {
    out.push({rule: 'parent_finished', message: `${id} is open under ${parent.id}, which is ${parent.status}; a finished parent takes no open sub-item (reopen it first)`})
  }
  if (finishing) {
    const openKids = tablesOf(c.after).children(id).filter((k) => {
      const s = c.after.tasks.get(k)?.meta?.status
      return s !== undefined && !FINISHED.has(s)
    })
    if (openKids.length > 0) out.push({rule: 'open_subitems', message: `${id} went to done while its sub-item${openKids.length === 1 ? '' : 's'} ${openKids.join(', ')} ${openKids.length === 1 ? 'is' : 'are'} open`})
  }
  return out
}

/**
 * max_claims_per_actor, by the ops' own predicate (`claimLimitAllows` over
 * `liveClaimsOf`): a card the commit leaves held by its actor with a live
 * claim the actor did not hold live before (a claim, a takeover, a block of
 * a todo card, an expired claim renewed) counts against the actor's other
 * live claims in the commit's tree, under the list's config before the
 * commit. A hand-made commit giving an actor a second live claim where the
 * list allows one is refused (`claim_limit`).
 */
function judgeClaimLimit(id: string, before: TaskMeta | undefined, after: TaskMeta, c: CommitView): Refusal[] {
  const config = c.before.config
  const {actor, time, op} = c.facts
  if (config.max_claims_per_actor === 0 || ENGINE_OPS.has(op) || op === IMPORT_OP) return []
  if (after.owner !== actor || !claimIsLive(after, time, config)) return []
  if (before && before.owner === actor && claimIsLive(before, time, config)) return []
  const held = liveClaimsOf(c.after, actor, time, config, id)
  if (claimLimitAllows(held.length, config)) return []
  return [{
    rule: 'claim_limit',
    message: `${id} was claimed by "${actor}", who already held ${held.map((t) => t.id).join(', ')}; the list allows ${config.max_claims_per_actor} live claim${config.max_claims_per_actor === 1 ? '' : 's'} per actor (max_claims_per_actor)`,
  }]
}

/** What the guard knows of one path a commit adds or changes, before it reads the file: git's mode and size. */
export interface BlobFacts {
  path: string
  /** The file kind (FILE_KINDS), 'unknown' for none. */
  kind: string
  mode: string
  /** The blob's size in bytes, from git (null: not a blob, e.g. a gitlink). */
  size: number | null
}

/**
 * The bounds on every path a commit adds or changes, judged before any
 * file is read: a regular file (`schema`); a path of a known kind, or one
 * the list's `allowed_paths` allows (`path_not_allowed`); no larger than the
 * list's `max_file_bytes`, nor, for the tool's own files, than the readers
 * read (MAX_FILE_BYTES) (`file_too_large`). `config` is the list's before
 * the commit. A path refused here is not read.
 */
export function judgeBlob(b: BlobFacts, config: ListConfig): Refusal[] {
  if (b.mode !== '100644' && b.mode !== '100755') return [{rule: 'schema', message: `${b.path} is not a regular file (mode ${b.mode})`}]
  const out: Refusal[] = []
  if (b.kind === 'unknown' && !pathAllowed(config.allowed_paths, b.path)) {
    out.push({
      rule: 'path_not_allowed',
      message: `${b.path} is not a file kind of a task list${config.allowed_paths.length ? `, nor allowed by allowed_paths (${config.allowed_paths.join(', ')})` : ' and the list allows no other paths (allowed_paths)'}`,
    })
  }
  const limit = b.kind === 'unknown' ? config.max_file_bytes : Math.min(config.max_file_bytes, MAX_FILE_BYTES)
  if (b.size === null || b.size > limit) {
    out.push({rule: 'file_too_large', message: `${b.path} is ${b.size ?? 'an object of unknown size'} bytes; the list takes files up to ${limit} bytes (${limit === config.max_file_bytes ? 'max_file_bytes' : 'what the readers read'})`})
  }
  return out
}

/** A coordination session's session.md: the rulebook's session moves (judgeSessionChange). */
export function judgeSessionFile(f: FileFacts): Refusal[] {
  const id = SESSION_FILE_RE.exec(f.path)?.[1]
  if (!id) return [{rule: 'schema', message: 'not a session file name (sessions/<xx>/ses-…/session.md)'}]
  const out: Refusal[] = []
  const read = (text: string | null, isAfter: boolean): WorkSession | undefined | 'broken' => {
    if (text === null) return undefined
    const parsed = parseSessionFile(text, id)
    if (parsed.ok) return parsed.value
    if (isAfter) out.push({rule: 'schema', message: `the session does not validate: ${parsed.error}`})
    return 'broken'
  }
  const was = read(f.before, false)
  const now = read(f.after, true)
  if (now === 'broken') return out
  const addsCheckpoint = [...(f.commit.added ?? [])].some((p) => SESSION_CHECKPOINT_RE.exec(p)?.[1] === id)
  return judgeSessionChange(was === 'broken' ? undefined : was, now, f.commit.facts, f.commit.before.config, addsCheckpoint)
}

/** A session checkpoint is added by its author with its session's file (the holder's write, judged there), never changed. */
export function judgeSessionCheckpointFile(f: FileFacts): Refusal[] {
  const m = SESSION_CHECKPOINT_RE.exec(f.path)
  if (!m) return [{rule: 'schema', message: 'not a session checkpoint name (sessions/<xx>/ses-…/checkpoints/<ts>-<h>.md)'}]
  if (f.before !== null) return [{rule: 'comment_rewritten', message: `a session checkpoint, once written, is never ${f.after === null ? 'removed' : 'changed'}`}]
  const parsed = parseSessionCheckpoint(f.after ?? '', m[1]!, m[2]!)
  if (!parsed.ok) return [{rule: 'schema', message: `the session checkpoint does not validate: ${parsed.error}`}]
  const {actor, op} = f.commit.facts
  const engine = parsed.value.author === ENGINE_ACTOR && ENGINE_OPS.has(op)
  if (parsed.value.author !== actor && !isImport(f) && !engine) return [{rule: 'forged_actor', message: `the checkpoint says it is by "${parsed.value.author}", but the commit was made by "${actor}"`}]
  if (!engine && !isImport(f) && f.commit.changed && !f.commit.changed.has(sessionFilePath(m[1]!))) {
    return [{rule: 'not_owner', message: `a session checkpoint is written with its session (the holder's write renews it); ${sessionFilePath(m[1]!)} is not in the commit`}]
  }
  return []
}

/**
 * A list's marker (core/list-marker.ts): written once, naming the list it
 * is on (the list the commit was made on); never changed or removed
 * afterwards (`rewritten`: the rule, and why). `more` judges what else the
 * kind asks of the commit that writes it.
 */
function judgeMarkerFile<F>(f: FileFacts, marker: ListMarker<F>, rewritten: {rule: string; why: string}, more: (file: F) => Refusal[]): Refusal[] {
  if (f.before !== null) {
    return [{rule: rewritten.rule, message: `${marker.path}, once written, is never ${f.after === null ? 'removed' : 'changed'}: ${rewritten.why}`}]
  }
  if (f.after === null) return []
  const parsed = marker.parse(f.after)
  if (!parsed.ok) return [{rule: 'schema', message: `${marker.path} does not validate: ${parsed.error}`}]
  const list = f.commit.list ?? f.commit.after.list
  const named = marker.listOf(parsed.value)
  if (named !== list) return [{rule: 'schema', message: `${marker.path} names the ${marker.kind} "${named}", but it is on the list "${list}"`}]
  return more(parsed.value)
}

/**
 * scenario.yaml (issue 33): written once, when `scenario start` seeds the
 * list; it names the list it is on, and every member's seed is on the list
 * after the commit. Never changed or removed afterwards: a scenario's
 * members are fixed when it starts (its items change as any item does).
 */
export function judgeScenarioFile(f: FileFacts): Refusal[] {
  return judgeMarkerFile(f, SCENARIO_MARKER, {rule: 'scenario_rewritten', why: "a scenario's members are fixed when it starts"}, (file) => {
    const missing = file.members.filter((m) => !f.commit.after.tasks.has(m.item))
    if (missing.length > 0) return [{rule: 'schema', message: `${SCENARIO_PATH} names seed items that are not on the list: ${missing.map((m) => `${m.item} (${m.name})`).join(', ')}`}]
    return []
  })
}

/**
 * plan.yaml (issue 34): written once, by `plan start`, in the plan's first
 * commit, whose parent is the fork point it records; it names the list it
 * is on (the plan). Never changed or removed afterwards (`plan rm` deletes
 * the ref; `plan merge` never lands the file on the target).
 */
export function judgePlanFile(f: FileFacts): Refusal[] {
  return judgeMarkerFile(f, PLAN_MARKER, {rule: 'plan_rewritten', why: "a plan's fork point is fixed when it starts"}, (file) => {
    if (file.base !== f.commit.before.commit) {
      return [{rule: 'schema', message: `${PLAN_PATH} records the fork point ${file.base.slice(0, 12)}, but it is written on ${f.commit.before.commit?.slice(0, 12) ?? 'no commit'}: a plan's first commit is made on its fork point`}]
    }
    return []
  })
}

/** The judge of each file kind that is judged. */
export const JUDGES: Readonly<Record<Exclude<FileCheck, null>, FileJudge>> = {
  meta: judgeMetaFile,
  config: judgeConfigFile,
  task: judgeTaskFile,
  comment: judgeCommentFile,
  check: judgeCheckFile,
  actor: judgeActorFile,
  inbox: judgeInboxFile,
  seen: judgeSeenFile,
  reminder: judgeReminderFile,
  session: judgeSessionFile,
  'session-checkpoint': judgeSessionCheckpointFile,
  scenario: judgeScenarioFile,
  plan: judgePlanFile,
}
