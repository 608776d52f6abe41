/**
 * 3-way merge of a list's files: the paths that differ between the merge
 * base and at least one side go in, the merged content of each (and of any
 * file the merge adds) comes out. This module owns the per-path rules
 * (docs/merge.md): one-side changes, task files (field merge via mergeTask),
 * a change beating a removal, two tasks created with one id, append-only
 * comment and inbox files, config.yaml per key, meta.yaml by format, and
 * files that do not parse.
 *
 * It never reads git, the disk or a clock (the caller reads the three trees
 * and writes the result), never drops text someone typed, and depends on
 * which side is called "ours" only through `published`: swapping the sides
 * together with `published` gives the same files. It writes conflict markers
 * only when asked to (`markers`, for the git merge driver, which can write no
 * file but the one git hands it); `tasks sync` never asks.
 */
import {cmp} from '../core/order'
import {idFromSeed, taskDir} from '../core/ids'
import {CONFIG_PATH, META_PATH, commentPath} from '../core/store-layout'
import {type Comment, DEFAULT_CONFIG, type TaskMeta} from '../core/task'
import {parseConfig, parseMeta, parseTaskFile, serialiseComment, serialiseTask} from '../core/task-file'
import {yaml} from '../core/yaml-loader'
import {RECORD_MAP_RE, parseActor, parseLatch, parseMapping, serialiseActor, serialiseLatch} from '../core/inbox'
import {MERGE_ACTOR, type MergeContext, type MergeNote, type Side, canon, engineComment, hash8, otherSide, same} from './merge-types'
import {mergeTask} from './task-merge'
import {mergeCheck} from './check-merge'
import {mergeSessionFile} from './session-merge'
import {SESSION_CHECKPOINT_RE, SESSION_FILE_RE} from '../core/work-session'
import {parseCheckFile, serialiseCheck} from '../core/check'
import {type ConflictLabels, type MergeRegion, mergeText, renderConflict, twoWayRegions} from './text-merge'

/** One path as it is in the merge base and on each side; null = absent. */
export interface FileVersions {
  path: string
  base: string | null
  ours: string | null
  theirs: string | null
}

/** The merged content of one path; null = the path is absent from the result. */
export interface MergedFile {
  path: string
  content: string | null
}

export interface FilesMergeContext extends MergeContext {
  /**
   * True for task ids that exist anywhere in the base or either side's tree
   * (including paths not passed in), so a task moved off a colliding id
   * never lands on an existing one. Optional: without it only the ids in the
   * paths passed in are avoided (a 50-bit id makes a clash vanishingly rare).
   */
  taken?: (id: string) => boolean
  /**
   * Write text that cannot be merged into the file itself, between git
   * conflict markers with these labels, instead of keeping it in another
   * file (a comment, a sibling path). Such paths are listed in `conflicted`.
   * For the git merge driver; `tasks sync` leaves it unset.
   */
  markers?: ConflictLabels
}

export interface FilesMergeResult {
  /**
   * Every path passed in, plus every path the merge adds, sorted by path.
   * Apply them to the base tree (or to either side's tree): write the
   * content, or remove the path when it is null.
   */
  files: MergedFile[]
  notes: MergeNote[]
  /** Paths written with conflict markers (only with `markers`), sorted. */
  conflicted: string[]
}

const ID = 'tsk-[0-9a-hjkmnp-tv-z]{10,26}'
const TASK_FILE_RE = new RegExp(`^tasks/[0-9a-f]{2}/(${ID})/task\\.md$`)
const TASK_DIR_RE = new RegExp(`^(tasks/[0-9a-f]{2}/(${ID}))/`)
const COMMENT_RE = new RegExp(`^tasks/[0-9a-f]{2}/(${ID})/comments/[^/]+\\.md$`)
const INBOX_RE = /^inbox\//
const CHECK_RE = new RegExp(`^tasks/[0-9a-f]{2}/(${ID})/checks/(chk-[0-9a-hjkmnp-tv-z]{8,26})\\.md$`)

type Versions = {base: string | null; ours: string | null; theirs: string | null}


/** The task id a path belongs to (tasks/<xx>/<id>/…), if any. */
function taskOfPath(path: string): string | undefined {
  return TASK_DIR_RE.exec(path)?.[2]
}

/** The task directory a path is in (`tasks/<xx>/<id>`), if any. */
function dirOfPath(path: string): string | undefined {
  return TASK_DIR_RE.exec(path)?.[1]
}

/**
 * Merge the files of a list. `paths` lists only paths that differ between
 * base and at least one side (null = absent there). Rules, in order:
 *
 *  1. Two different tasks created with the same id on both sides (different
 *     or no idempotency key): the published side's task keeps the id; the
 *     other is moved to an id derived from its content (idFromSeed), with
 *     its comment files, and references to the old id made on its side are
 *     rewritten. Same key on both sides: one task, merged with no base.
 *  2. A task removed on one side and changed on the other (task.md modified,
 *     or files added or changed in its directory): kept, with every file the
 *     removal deleted, and a note and a comment on the card.
 *  3. Per path: equal sides → that; changed on one side → that side; both
 *     changed: removed on one side → the changed side; task.md → mergeTask;
 *     comment and inbox files → keep both (the published one at the path, the
 *     other at a derived path); config.yaml → per top-level key; meta.yaml →
 *     the higher format; any other file → 3-way text merge, or keep both.
 *  4. A file that does not parse on one side: the side that parses, with the
 *     unreadable text filed as a comment on the card; neither parses: the
 *     published side's text (again filing the other).
 */
export function mergeFiles(paths: readonly FileVersions[], ctx: FilesMergeContext): FilesMergeResult {
  const entries = new Map<string, Versions>()
  for (const p of paths) {
    if (entries.has(p.path)) throw new Error(`internal: path ${p.path} passed twice to mergeFiles`)
    entries.set(p.path, {base: p.base, ours: p.ours, theirs: p.theirs})
  }
  const state: MergeState = {ctx, entries, notes: [], comments: [], out: new Map(), conflicted: []}
  moveCollidingTasks(state)
  keepChangedOverRemoved(state)
  for (const path of [...entries.keys()].sort(cmp)) {
    const v = entries.get(path)!
    mergePath(state, path, v)
  }
  noteDoneWithUnmetChecks(state)
  for (const c of state.comments) place(state, commentPath(c.task, c.id), serialiseComment(c))
  const files = [...state.out.entries()].sort((a, b) => cmp(a[0], b[0])).map(([path, content]) => ({path, content}))
  return {files, notes: state.notes, conflicted: state.conflicted.sort(cmp)}
}

/**
 * The reconciler's view of checks, as far as the merge sees them: a check
 * the merge writes that is active and has not passed with evidence, on an
 * item whose merged task.md says done (one clone added or reset the check
 * while the other finished the item). The item is left done (reopening it
 * behind everyone's back would be worse); a note and a `problem` comment
 * on the card say so, and `tasks check list` shows the check.
 */
function noteDoneWithUnmetChecks(state: MergeState): void {
  for (const [path, content] of state.out) {
    const m = content === null ? null : CHECK_RE.exec(path)
    if (!m || content === null) continue
    const task = m[1]!
    const check = parseCheckFile(content, task, m[2]!)
    if (!check.ok || check.value.status === 'superseded' || (check.value.status === 'passed' && check.value.evidence)) continue
    const taskText = state.out.get(`${taskDir(task)}/task.md`)
    const meta = taskText ? parseTaskFile(taskText, task) : null
    if (!meta?.ok || meta.value.meta.status !== 'done') continue
    const message = `${task} is done but its check ${m[2]} is ${check.value.status} after the merge (the check was added or reset on one side while the item was finished on the other)`
    state.notes.push({kind: 'done_with_unmet_check', task, check: m[2]!, message})
    state.comments.push(engineComment(task, 'problem', MERGE_ACTOR, `Merge: ${message}.`, state.ctx.now))
  }
}

interface MergeState {
  ctx: FilesMergeContext
  entries: Map<string, Versions>
  notes: MergeNote[]
  /** Comments the merge adds (claims superseded, texts that lost, repairs of the tree). */
  comments: Comment[]
  out: Map<string, string | null>
  conflicted: string[]
}

/** With `markers`: the regions rendered with conflict markers, and the path noted as conflicted. */
function marked(state: MergeState, path: string, regions: readonly MergeRegion[]): string {
  state.conflicted.push(path)
  return renderConflict(regions, state.ctx.markers!)
}

/** Both whole texts as one conflict: for files whose parts cannot be merged (or parsed) separately. */
function wholeConflict(ours: string, theirs: string): MergeRegion[] {
  return [{conflict: true, base: '', ours, theirs}]
}

// ---------------------------------------------------------------------------
// 1. Two tasks created with one id.

function moveCollidingTasks(state: MergeState): void {
  const {ctx, entries} = state
  const moving = otherSide(ctx.published)
  const inputIds = new Set<string>()
  for (const path of entries.keys()) {
    const id = taskOfPath(path)
    if (id) inputIds.add(id)
  }
  const allocated = new Set<string>()
  const collisions: Array<{id: string; dir: string; to: string}> = []
  for (const path of [...entries.keys()].sort(cmp)) {
    const m = TASK_FILE_RE.exec(path)
    const v = entries.get(path)!
    if (!m || v.base !== null || v.ours === null || v.theirs === null || v.ours === v.theirs) continue
    const id = m[1]!
    const o = parseTaskFile(v.ours, id)
    const t = parseTaskFile(v.theirs, id)
    if (!o.ok || !t.ok) continue // the unreadable-file rule decides
    if (o.value.meta.key !== undefined && o.value.meta.key === t.value.meta.key) continue // idempotent create on two clones
    const text = v[moving]!
    const to = idFromSeed(`merge-collision\0${id}\0${text}`, (c) => c === id || inputIds.has(c) || allocated.has(c) || (ctx.taken?.(c) ?? false))
    allocated.add(to)
    collisions.push({id, dir: dirOfPath(path)!, to})
  }
  if (collisions.length === 0) return

  const renames = new Map(collisions.map((c) => [c.id, c.to]))
  // Move the moving side's files of each colliding task to the new directory.
  for (const {id, dir, to} of collisions) {
    const from = `${dir}/`
    for (const [path, v] of [...entries.entries()].sort((a, b) => cmp(a[0], b[0]))) {
      if (!path.startsWith(from) || v.base !== null || v[moving] === null) continue
      let content = v[moving]!
      if (path === `${from}task.md`) {
        const parsed = parseTaskFile(content, id)
        if (parsed.ok) content = serialiseTask({...parsed.value.meta, id: to}, parsed.value.body)
      }
      const target = `${taskDir(to)}/${path.slice(from.length)}`
      entries.set(target, {base: null, ours: null, theirs: null, [moving]: content})
      entries.set(path, {...v, [moving]: null})
    }
    const message = `${id} was created on two clones for different tasks; the published one keeps ${id}, the other moved to ${to}`
    state.notes.push({kind: 'id_collision', task: id, moved_to: to, message})
    state.comments.push(
      engineComment(
        to,
        'problem',
        MERGE_ACTOR,
        `This item was created offline as ${id}, an id that another clone gave to a different item at the same time. On merge it moved to ${to}; references to ${id} made on the same clone now point here.`,
        ctx.now,
      ),
    )
  }
  // On the moving side every reference to a moved id meant the moved task:
  // rewrite them in the task files that side changed or added.
  for (const [path, v] of entries) {
    const m = TASK_FILE_RE.exec(path)
    const content = v[moving]
    if (!m || content === null || content === v.base) continue
    const parsed = parseTaskFile(content, m[1])
    if (!parsed.ok) continue
    const meta = parsed.value.meta
    const parent = meta.parent !== undefined ? (renames.get(meta.parent) ?? meta.parent) : undefined
    const deps = [...new Set(meta.depends_on.map((d) => renames.get(d) ?? d))].sort(cmp)
    if (parent === meta.parent && same(deps, meta.depends_on)) continue
    const next: TaskMeta = {...meta, depends_on: deps}
    if (parent !== undefined) next.parent = parent
    entries.set(path, {...v, [moving]: serialiseTask(next, parsed.value.body)})
  }
}

// ---------------------------------------------------------------------------
// 2. A change wins over a removal.

function keepChangedOverRemoved(state: MergeState): void {
  const {entries, ctx} = state
  const byDir = new Map<string, string[]>()
  for (const path of entries.keys()) {
    const dir = dirOfPath(path)
    if (!dir) continue
    const list = byDir.get(dir)
    if (list) list.push(path)
    else byDir.set(dir, [path])
  }
  for (const dir of [...byDir.keys()].sort(cmp)) {
    const taskPath = `${dir}/task.md`
    const file = entries.get(taskPath)
    if (!file || file.base === null) continue
    const id = taskOfPath(taskPath)!
    const dirPaths = byDir.get(dir)!
    for (const removedOn of ['ours', 'theirs'] as const) {
      const changedOn = otherSide(removedOn)
      if (file[removedOn] !== null || file[changedOn] === null) continue
      const changed = dirPaths.some((p) => {
        const e = entries.get(p)!
        return e[changedOn] !== null && e[changedOn] !== e.base
      })
      if (!changed) continue
      for (const p of dirPaths) {
        const e = entries.get(p)!
        if (e[removedOn] === null && e.base !== null) entries.set(p, {...e, [removedOn]: e.base})
      }
      state.notes.push({kind: 'kept_over_delete', task: id, path: taskPath, message: `${id} was removed on one side and changed on the other; it is kept (a change wins over a removal)`})
      state.comments.push(
        engineComment(id, 'problem', MERGE_ACTOR, 'Merge: this item was removed on one clone while it was changed on another; it is kept, because a change wins over a removal. Remove it again if it should go.', ctx.now),
      )
    }
  }
}

// ---------------------------------------------------------------------------
// 3. Per path.

function mergePath(state: MergeState, path: string, v: Versions): void {
  const set = (content: string | null): void => {
    state.out.set(path, content)
  }
  if (v.ours === v.theirs || v.theirs === v.base) return set(v.ours)
  if (v.ours === v.base) return set(v.theirs)
  if (v.ours === null || v.theirs === null) {
    // Removed on one side, changed on the other: the change wins.
    const changedOn: Side = v.ours === null ? 'theirs' : 'ours'
    state.notes.push({kind: 'kept_over_delete', task: taskOfPath(path), path, message: `${path} was removed on one side and changed on the other; the changed file is kept`})
    return set(v[changedOn])
  }
  const both: Both = {base: v.base, ours: v.ours, theirs: v.theirs}
  const task = TASK_FILE_RE.exec(path)
  if (task) return set(mergeTaskFile(state, path, task[1]!, both))
  if (COMMENT_RE.test(path) || INBOX_RE.test(path) || SESSION_CHECKPOINT_RE.test(path)) return set(keepBoth(state, path, both))
  const session = SESSION_FILE_RE.exec(path)
  if (session && !state.ctx.markers) {
    const merged = mergeSessionFile(session[1]!, v.base, v.ours, v.theirs, state.ctx)
    if (merged !== null) {
      for (const f of merged.extra) place(state, f.path, f.content)
      state.notes.push({kind: 'session_merged', session: session[1]!, message: merged.message})
      return set(merged.text)
    }
  }
  const check = CHECK_RE.exec(path)
  if (check) {
    const merged = mergeCheckFile(state, path, check[1]!, check[2]!, both)
    if (merged !== null) return set(merged)
  }
  if (path === CONFIG_PATH) return set(mergeConfigFile(state, path, both))
  if (RECORD_MAP_RE.test(path)) {
    const merged = mergeRecordMap(path, both)
    if (merged !== null) return set(merged)
  }
  if (path === META_PATH) return set(mergeMetaFile(state, path, both))
  const text = mergeText(v.base ?? '', v.ours, v.theirs)
  if (text.clean) return set(text.text)
  if (state.ctx.markers) {
    state.notes.push({kind: 'path_collision', path, moved_to: path, message: `${path} was edited on both sides and the edits overlap; both versions of those lines are left between conflict markers`})
    return set(marked(state, path, text.regions))
  }
  set(keepBoth(state, path, both))
}

type Both = {base: string | null; ours: string; theirs: string}

/**
 * A check changed on both sides (check-merge.ts): the more cautious status,
 * both sides' evidence. Null when a side does not parse (then the file is
 * kept like any other text: both versions, nothing lost).
 */
function mergeCheckFile(state: MergeState, path: string, task: string, id: string, v: Both): string | null {
  const o = parseCheckFile(v.ours, task, id)
  const t = parseCheckFile(v.theirs, task, id)
  if (!o.ok || !t.ok || state.ctx.markers) return null
  const r = mergeCheck(o.value, t.value)
  state.notes.push({
    kind: 'check_merged',
    task,
    check: id,
    status: r.check.status,
    message: `check ${id} of ${task} was changed on both sides (${o.value.status} / ${t.value.status}); kept ${r.check.status}${r.evidenceJoined ? ' with the evidence of both' : ''}`,
  })
  return serialiseCheck(r.check)
}

/** Append-only files: the published text keeps the path, the other goes to a derived path. */
function keepBoth(state: MergeState, path: string, v: Both): string {
  // A comment or record is written whole by one writer: mark the whole file, which then also
  // no longer parses, so a person who commits it unresolved sees it reported as broken.
  if (state.ctx.markers) {
    state.notes.push({kind: 'path_collision', path, moved_to: path, message: `${path} was written on both sides with different text; both versions are left between conflict markers`})
    return marked(state, path, wholeConflict(v.ours, v.theirs))
  }
  const pub = state.ctx.published
  const other = v[otherSide(pub)]
  const moved = place(state, derivedPath(path, other), other)
  state.notes.push({kind: 'path_collision', path, moved_to: moved, message: `${path} was written on both sides with different text; the published one keeps the path, the other is at ${moved}`})
  return v[pub]
}

/**
 * A sibling path for a second file: a comment or inbox record
 * `<ts>-<8 hex>.md` keeps its timestamp and gets a hash of its text (so it
 * still sorts by time); any other file gets `.merge-<8 hex>` appended.
 */
function derivedPath(path: string, content: string, attempt = 0): string {
  const h = hash8(path, content, String(attempt))
  const m = /^(.*\/[^/]*?)(?:-[0-9a-f]{8})?\.md$/.exec(path)
  if (m && (COMMENT_RE.test(path) || INBOX_RE.test(path) || SESSION_CHECKPOINT_RE.test(path))) return `${m[1]}-${h}.md`
  return `${path}.merge-${h}`
}

/**
 * Write `content` at `path`, or at a path derived from it when another file
 * is (or will be) there. Returns the path used.
 */
function place(state: MergeState, path: string, content: string): string {
  for (let attempt = 0; ; attempt++) {
    const target = attempt === 0 ? path : derivedPath(path, content, attempt)
    if (state.out.get(target) === content) return target
    if (!state.out.has(target) && !state.entries.has(target)) {
      state.out.set(target, content)
      return target
    }
  }
}

// ---------------------------------------------------------------------------
// Task files.

function mergeTaskFile(state: MergeState, path: string, id: string, v: Both): string {
  const {ctx} = state
  const base = v.base === null ? null : parseTaskFile(v.base, id)
  const o = parseTaskFile(v.ours, id)
  const t = parseTaskFile(v.theirs, id)
  if (o.ok && t.ok) {
    if (base && !base.ok) {
      state.notes.push({kind: 'unreadable', path, side: 'base', error: base.error, message: `${path} cannot be read in the merge base (${base.error}); merged as if both sides created it`})
    }
    const r = mergeTask(base?.ok ? base.value : null, o.value, t.value, ctx)
    if (ctx.markers && r.conflict) {
      // The texts the comments would keep are in the file, between markers; the notes say so.
      const {ours, theirs} = r.conflict
      state.notes.push(...r.notes.map((n) => markedNote(n, ours, theirs)))
      const body = r.conflict.body ? renderConflict(r.conflict.body, ctx.markers) : r.body
      return marked(state, path, twoWayRegions(serialiseTask(ours, body), serialiseTask(theirs, body)))
    }
    state.notes.push(...r.notes)
    state.comments.push(...r.comments)
    return serialiseTask(r.meta, r.body)
  }
  if (ctx.markers) {
    state.notes.push({kind: 'unreadable', path, side: !o.ok && !t.ok ? 'both' : !o.ok ? 'ours' : 'theirs', error: !o.ok ? o.error : !t.ok ? t.error : '', message: `${path} cannot be read on ${!o.ok && !t.ok ? 'either side' : 'one side'}; both versions left in conflict`})
    return marked(state, path, wholeConflict(v.ours, v.theirs))
  }
  // One side (or neither) reads: keep the side that reads, else the published text,
  // and file the other text as a comment so nothing typed is lost.
  const keptSide: Side = o.ok ? 'ours' : t.ok ? 'theirs' : ctx.published
  const bad = otherSide(keptSide)
  const badParse = bad === 'ours' ? o : t
  const error = badParse.ok ? '' : badParse.error
  const bothBad = !o.ok && !t.ok
  state.notes.push({
    kind: 'unreadable',
    path,
    side: bothBad ? 'both' : bad,
    error,
    message: bothBad
      ? `${path} cannot be read on either side; kept the published text and filed the other as a comment`
      : `${path} cannot be read on one side (${error}); kept the side that reads and filed the unreadable text as a comment`,
  })
  state.comments.push(
    engineComment(
      id,
      'problem',
      MERGE_ACTOR,
      bothBad
        ? `Merge: neither clone's version of this item's task file could be read; the published one was kept. The other version's text (${error}), for the record:\n\n${v[bad]}`
        : `Merge: one clone's version of this item's task file could not be read (${error}), so the other version was kept. The unreadable text, for the record:\n\n${v[bad]}`,
      ctx.now,
    ),
  )
  return v[keptSide]
}

/**
 * A task note as the merge driver must put it: text that `sync` would keep in
 * a comment is left between conflict markers instead (`ours`/`theirs`: the
 * frontmatter each side would have).
 */
function markedNote(n: MergeNote, ours: TaskMeta, theirs: TaskMeta): MergeNote {
  const value = (m: TaskMeta, field: string): unknown => (field in m || !m.extra ? (m as unknown as Record<string, unknown>)[field] : m.extra[field])
  if (n.kind === 'body_conflict') {
    return {...n, comment: '', message: `${n.task}: the description was edited on both sides and the edits overlap; both versions of those lines are left between conflict markers`}
  }
  if (n.kind === 'field_conflict' && !same(value(ours, n.field), value(theirs, n.field))) {
    return {...n, message: `${n.task}: both sides changed ${n.field}; both values are left between conflict markers`}
  }
  if (n.kind === 'lost_claim' && ['status', 'owner', 'block_note', 'cancel_reason'].some((k) => !same(value(ours, k), value(theirs, k)))) {
    return {...n, message: `${n.message}; both claims, with their notes, are left between conflict markers`}
  }
  return n
}

// ---------------------------------------------------------------------------
// config.yaml and meta.yaml.

type Mapping = Record<string, unknown>

function readMapping(text: string | null): {ok: true; value: Mapping} | {ok: false; error: string} {
  if (text === null) return {ok: true, value: {}}
  const checked = parseConfig(text)
  if (!checked.ok) return checked
  const value = yaml().parse(text, {schema: 'core', uniqueKeys: true}) as unknown
  return {ok: true, value: (value ?? {}) as Mapping}
}

const KNOWN_CONFIG_KEYS = Object.keys(DEFAULT_CONFIG)

/** Serialise config.yaml as serialiseConfig does: known keys in their order, then the rest sorted. */
function writeMapping(map: Mapping): string {
  const ordered: Mapping = {}
  for (const k of KNOWN_CONFIG_KEYS) if (k in map) ordered[k] = map[k]
  for (const k of Object.keys(map).sort(cmp)) if (!(k in ordered)) ordered[k] = map[k]
  return yaml().stringify(ordered, {lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN'})
}

const isScalar = (x: unknown): boolean => x === null || ['string', 'number', 'boolean'].includes(typeof x)

/** Total order on config values: numbers by size, anything else by canonical JSON. */
function cmpConfigValue(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number' && a !== b) return a < b ? -1 : 1
  return cmp(canon(a), canon(b))
}

/**
 * config.yaml: 3-way per top-level key. Both sides changed a key: a list of
 * plain values on both sides merges as a set (adds and removes, sorted); a
 * key removed on one side and changed on the other keeps the change;
 * otherwise the greater value wins (numbers by size, others by canonical
 * JSON), so the result does not depend on the side.
 */
function mergeConfigFile(state: MergeState, path: string, v: Both): string {
  const b = readMapping(v.base)
  const o = readMapping(v.ours)
  const t = readMapping(v.theirs)
  if (!o.ok || !t.ok) return unreadableSettings(state, path, v, o, t)
  const base = b.ok ? b.value : {}
  const keys = [...new Set([...Object.keys(base), ...Object.keys(o.value), ...Object.keys(t.value)])].sort(cmp)
  const out: Mapping = {}
  // Keys both sides changed to different values, as each side had them (for markers).
  const conflicting: Record<Side, Mapping> = {ours: {}, theirs: {}}
  for (const k of keys) {
    const bv = base[k]
    const ov = o.value[k]
    const tv = t.value[k]
    let value: unknown
    if (same(ov, tv) || same(tv, bv)) value = ov
    else if (same(ov, bv)) value = tv
    // A key removed on one side and changed (even to null) on the other keeps the change.
    else if (ov === undefined || tv === undefined) value = ov !== undefined ? ov : tv
    else if (Array.isArray(ov) && Array.isArray(tv) && (bv === undefined || Array.isArray(bv)) && [...ov, ...tv, ...((bv as unknown[]) ?? [])].every(isScalar)) {
      value = mergeValueSet((bv as unknown[]) ?? [], ov, tv)
    } else if (k === 'notify' && isMapping(ov) && isMapping(tv) && (bv === undefined || isMapping(bv))) {
      // Notify rules: per event, the role lists merge as sets.
      value = mergeMapOfSets((bv as Mapping) ?? {}, ov, tv)
    } else {
      value = cmpConfigValue(ov, tv) >= 0 ? ov : tv
      const dropped = value === ov ? tv : ov
      conflicting.ours[k] = ov
      conflicting.theirs[k] = tv
      state.notes.push({kind: 'config_conflict', key: k, kept: value, dropped, message: `config.yaml: both sides changed ${k}; kept ${canon(value)}, dropped ${canon(dropped)}`})
    }
    if (value !== undefined) out[k] = value
  }
  if (state.ctx.markers && Object.keys(conflicting.ours).length > 0) {
    return marked(state, path, twoWayRegions(writeMapping({...out, ...conflicting.ours}), writeMapping({...out, ...conflicting.theirs})))
  }
  return writeMapping(out)
}

function mergeValueSet(base: unknown[], ours: unknown[], theirs: unknown[]): unknown[] {
  const b = new Set(base.map(canon))
  const o = new Map(ours.map((x) => [canon(x), x]))
  const t = new Map(theirs.map((x) => [canon(x), x]))
  const out = new Map<string, unknown>()
  for (const [k, x] of [...o, ...t]) if (b.has(k) ? o.has(k) && t.has(k) : true) out.set(k, x)
  return [...out.keys()].sort(cmp).map((k) => out.get(k))
}

function unreadableSettings(
  state: MergeState,
  path: string,
  v: Both,
  o: {ok: boolean; error?: string},
  t: {ok: boolean; error?: string},
): string {
  const kept: Side = o.ok ? 'ours' : t.ok ? 'theirs' : state.ctx.published
  const bothBad = !o.ok && !t.ok
  if (state.ctx.markers) {
    state.notes.push({kind: 'unreadable', path, side: bothBad ? 'both' : otherSide(kept), error: (o.ok ? t.error : o.error) ?? '', message: `${path} cannot be read on ${bothBad ? 'either side' : 'one side'}; both versions left in conflict`})
    return marked(state, path, wholeConflict(v.ours, v.theirs))
  }
  const bad = otherSide(kept)
  const error = (bad === 'ours' ? o.error : t.error) ?? ''
  state.notes.push({
    kind: 'unreadable',
    path,
    side: bothBad ? 'both' : bad,
    error,
    message: bothBad ? `${path} cannot be read on either side; kept the published text` : `${path} cannot be read on one side (${error}); kept the side that reads`,
  })
  return v[kept]
}

/** meta.yaml: the higher format wins; the same format: the published text. */
function mergeMetaFile(state: MergeState, path: string, v: Both): string {
  const o = parseMeta(v.ours)
  const t = parseMeta(v.theirs)
  if (!o.ok || !t.ok) return unreadableSettings(state, path, v, {ok: o.ok, error: o.ok ? undefined : o.error}, {ok: t.ok, error: t.ok ? undefined : t.error})
  if (o.value.format !== t.value.format) return o.value.format > t.value.format ? v.ours : v.theirs
  return v[state.ctx.published]
}


const isMapping = (x: unknown): x is Mapping => typeof x === 'object' && x !== null && !Array.isArray(x)

/** Per key: 3-way; both changed: lists of plain values as sets, anything else the greater value. */
function mergeMapOfSets(base: Mapping, ours: Mapping, theirs: Mapping): Mapping {
  const out: Mapping = {}
  for (const k of [...new Set([...Object.keys(base), ...Object.keys(ours), ...Object.keys(theirs)])].sort(cmp)) {
    const bv = base[k]
    const ov = ours[k]
    const tv = theirs[k]
    let value: unknown
    if (same(ov, tv) || same(tv, bv)) value = ov
    else if (same(ov, bv)) value = tv
    else if (ov === undefined || tv === undefined) value = ov !== undefined ? ov : tv
    else if (Array.isArray(ov) && Array.isArray(tv) && (bv === undefined || Array.isArray(bv)) && [...ov, ...tv, ...((bv as unknown[]) ?? [])].every(isScalar)) {
      value = mergeValueSet((bv as unknown[]) ?? [], ov, tv)
    } else value = cmpConfigValue(ov, tv) >= 0 ? ov : tv
    if (value !== undefined) out[k] = value
  }
  return out
}

/**
 * Actor entries (actors/<a>.yaml) and reminder latches (reminders/…):
 * mappings merged per key, lists as sets (mute, watch), scalars by the
 * greater value, so last_seen, last_digest and a card's escalated streak
 * move to the later time whichever side is which. Null when a side does
 * not read: the caller falls back to the text merge.
 */
function mergeRecordMap(path: string, v: Both): string | null {
  const read = (text: string | null): Mapping | null => {
    if (text === null) return {}
    const parsed = parseMapping(text)
    return 'error' in parsed || !isMapping(parsed.value ?? {}) ? null : ((parsed.value ?? {}) as Mapping)
  }
  const b = read(v.base)
  const o = read(v.ours)
  const t = read(v.theirs)
  if (!o || !t) return null
  const merged = mergeMapOfSets(b ?? {}, o, t)
  if (path.startsWith('actors/')) {
    const parsed = parseActor(serialiseActor(merged as never))
    return parsed.ok ? serialiseActor(parsed.value) : null
  }
  const parsed = parseLatch(serialiseLatch(merged as never))
  return parsed.ok ? serialiseLatch(parsed.value) : null
}
