/**
 * What happened to a list between two points of its history (`tasks diff`,
 * and `tasks plan diff` through the same value): cards added, removed and
 * changed field by field (core/field-changes.ts `cardChanges`, the one
 * comparison), the description as a unified text diff, checks added,
 * passed, failed, superseded or reset, and comments added, grouped by card.
 *
 * Pure. The input is one or more steps, each the files of cards that
 * changed in it, with their text before and after: one step for the net
 * change between two commits, or one per commit of an actor (`--actor`),
 * composed field by field so a change someone else made between two of the
 * actor's commits is never counted as the actor's. The text diff is handed
 * in (src/merge/unified-diff.ts: core does not reach the merge engine).
 */
import {canon} from './canon'
import {type Check, type CheckStatus, parseCheckFile} from './check'
import {type CardVersion, cardChanges, fieldOrder} from './field-changes'
import type {Comment} from './task'
import {parseCommentFile, parseTaskFile} from './task-file'

/** One file of a card as a step changed it: its text before and after (null: absent). */
export interface FileChangeText {
  path: string
  before: string | null
  after: string | null
}

/** One step of history: the changed files under `tasks/`, and who made it (null for a net change). */
export interface DiffStep {
  commit: string | null
  actor: string | null
  files: readonly FileChangeText[]
  /** Changed files that could not be read (too large), by path. */
  broken?: ReadonlyArray<{path: string; error: string}>
}

/** One field as it was before the window and after it; `diff` for the description. */
export interface FieldDiff {
  field: string
  /** Absent when the field was unset (or the card did not exist). */
  before?: unknown
  after?: unknown
  /** The description only: the unified diff's lines (`@@ …`, ` `, `-`, `+`). */
  diff?: string[]
}

export interface CheckDiff {
  id: string
  kind: string
  text: string
  /** The check's status before the window, null when it did not exist. */
  before: CheckStatus | null
  /** Its status after, null when its file is gone. */
  after: CheckStatus | null
  /** added, passed, failed, superseded, reset (back to pending), removed, or changed (text or evidence). */
  event: 'added' | 'passed' | 'failed' | 'superseded' | 'reset' | 'removed' | 'changed'
  /** Who passed, failed, superseded, reset or added it (from the check's own record). */
  by: string | null
  evidence: string | null
}

export interface CommentDiff {
  id: string
  kind: string
  author: string
  created_at: string
  /** The comment's first non-empty line. */
  first_line: string
}

export interface CardDiff {
  id: string
  /** The shortest unique prefix among the list's cards at TO (the full id for a card no longer there). */
  short_id: string
  /** The title after the window (before it, for a removed card). */
  title: string
  change: 'added' | 'removed' | 'changed'
  fields: FieldDiff[]
  checks: CheckDiff[]
  comments: CommentDiff[]
}

export interface DiffSummary {
  added: number
  removed: number
  changed: number
  checks_added: number
  checks_passed: number
  checks_failed: number
  comments: number
}

/** A point of the window: the commit and its committer date; `input` is what was typed (null: a default or a commit handed in). */
export interface DiffPoint {
  commit: string
  date: string
  input: string | null
}

export interface ListDiff {
  list: string
  from: DiffPoint
  to: DiffPoint
  /** The actors the diff is restricted to (`--actor`), or null for every change. */
  actors: string[] | null
  summary: DiffSummary
  /** Cards by id. */
  cards: CardDiff[]
  /** Files that changed but do not parse (shown by path; their card's other files still count). */
  broken: Array<{path: string; error: string}>
}

/**
 * Fields a claim moves on every heartbeat and renewal: not a change a
 * person asked for, and on a busy list they would bury the report. The
 * claim itself shows as `owner` (and `status`).
 */
export const DIFF_QUIET_FIELDS: ReadonlySet<string> = new Set(['epoch', 'claim_epochs', 'claimed_at', 'lease_expires'])

/** `tasks/<xx>/<id>/task.md`, `…/comments/<c>.md`, `…/checks/<chk>.md`. */
const CARD_FILE = /^tasks\/[0-9a-f]{2}\/(tsk-[0-9a-z]+)\/(task\.md|comments\/([^/]+)\.md|checks\/([^/]+)\.md)$/

/** The card and kind of a path under `tasks/`; null for anything else (a stray, an attachment). */
export function cardFileOf(path: string): {id: string; kind: 'task'} | {id: string; kind: 'comment' | 'check'; name: string} | null {
  const m = CARD_FILE.exec(path)
  if (!m) return null
  if (m[2] === 'task.md') return {id: m[1]!, kind: 'task'}
  if (m[3] !== undefined) return {id: m[1]!, kind: 'comment', name: m[3]}
  return {id: m[1]!, kind: 'check', name: m[4]!}
}

interface CardAcc {
  /** Field → value before its first change in the window and after its last (undefined: unset). */
  fields: Map<string, {before: unknown; after: unknown}>
  /** Description texts, first before and last after ('' when absent). */
  body: {before: string; after: string} | null
  /** Whether the card existed before the window and after it, as far as the steps say. */
  existedBefore: boolean | null
  existsAfter: boolean | null
  titleBefore: string | null
  titleAfter: string | null
  checks: Map<string, {before: Check | null; after: Check | null}>
  comments: Map<string, Comment>
}

const newAcc = (): CardAcc => ({fields: new Map(), body: null, existedBefore: null, existsAfter: null, titleBefore: null, titleAfter: null, checks: new Map(), comments: new Map()})

/**
 * Build the diff of `steps` (oldest first). `textDiff` makes the
 * description's unified diff; `header` is the window and the list.
 */
export function buildListDiff(
  header: {list: string; from: DiffPoint; to: DiffPoint; actors: string[] | null},
  steps: readonly DiffStep[],
  textDiff: (before: string, after: string) => string[],
  /** Titles of cards whose task.md no step changed (only a check or a comment did): see `cardsWithoutTaskFile`. */
  titles: ReadonlyMap<string, string> = new Map(),
  /** Short ids by full id (a card missing here is shown by its full id). */
  shortIds: (id: string) => string | undefined = () => undefined,
): ListDiff {
  const cards = new Map<string, CardAcc>()
  const broken: ListDiff['broken'] = []
  const acc = (id: string): CardAcc => {
    let a = cards.get(id)
    if (!a) cards.set(id, (a = newAcc()))
    return a
  }
  for (const step of steps) {
    for (const b of step.broken ?? []) if (!broken.some((x) => x.path === b.path)) broken.push(b)
    for (const file of step.files) {
      const where = cardFileOf(file.path)
      if (!where) continue
      if (where.kind === 'task') {
        const before = parseCard(file.path, file.before, where.id, broken)
        const after = parseCard(file.path, file.after, where.id, broken)
        if (before === undefined || after === undefined) continue
        const a = acc(where.id)
        if (a.existedBefore === null) a.existedBefore = before !== null
        a.existsAfter = after !== null
        if (a.titleBefore === null && before) a.titleBefore = before.meta.title
        if (after) a.titleAfter = after.meta.title
        for (const c of cardChanges(before, after)) {
          if (DIFF_QUIET_FIELDS.has(c.field)) continue
          if (c.field === 'description') {
            const b = a.body ?? {before: before?.body ?? '', after: ''}
            b.after = after?.body ?? ''
            a.body = b
            continue
          }
          const f = a.fields.get(c.field)
          if (f) f.after = c.after
          else a.fields.set(c.field, {before: c.before, after: c.after})
        }
      } else if (where.kind === 'check') {
        const before = parseCheck(file.path, file.before, where.id, where.name, broken)
        const after = parseCheck(file.path, file.after, where.id, where.name, broken)
        if (before === undefined || after === undefined) continue
        const checks = acc(where.id).checks
        const c = checks.get(where.name)
        if (c) c.after = after
        else checks.set(where.name, {before, after})
      } else if (file.before === null && file.after !== null) {
        // Comments are only ever added (the guard refuses a rewrite); a removed card's comments go with it.
        const parsed = parseCommentFile(file.after, where.id, where.name)
        if (!parsed.ok) broken.push({path: file.path, error: parsed.error})
        else acc(where.id).comments.set(where.name, parsed.value)
      }
    }
  }
  const out: CardDiff[] = []
  const summary: DiffSummary = {added: 0, removed: 0, changed: 0, checks_added: 0, checks_passed: 0, checks_failed: 0, comments: 0}
  for (const id of [...cards.keys()].sort()) {
    const a = cards.get(id)!
    // Added and removed again inside the window: nothing to report.
    if (a.existedBefore === false && a.existsAfter === false) continue
    const change: CardDiff['change'] = a.existedBefore === false ? 'added' : a.existsAfter === false ? 'removed' : 'changed'
    const fields: FieldDiff[] = []
    for (const name of fieldOrder([...a.fields.keys()])) {
      const f = a.fields.get(name)!
      if (canon(f.before) === canon(f.after)) continue
      // A card that came or went: its empty lists and maps are no news.
      if (change !== 'changed' && isEmptyValue(change === 'added' ? f.after : f.before)) continue
      fields.push({field: name, ...(f.before !== undefined ? {before: f.before} : {}), ...(f.after !== undefined ? {after: f.after} : {})})
    }
    if (a.body && a.body.before !== a.body.after) {
      fields.push({field: 'description', ...(a.body.before !== '' ? {before: a.body.before} : {}), ...(a.body.after !== '' ? {after: a.body.after} : {}), diff: textDiff(a.body.before, a.body.after)})
    }
    const checks: CheckDiff[] = []
    for (const [checkId, c] of [...a.checks].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
      const d = checkDiff(checkId, c.before, c.after)
      if (d) checks.push(d)
    }
    const comments = [...a.comments.values()]
      .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
      .map((c) => ({id: c.id, kind: c.kind, author: c.author, created_at: c.created_at, first_line: firstLine(c.body)}))
    if (change === 'changed' && fields.length === 0 && checks.length === 0 && comments.length === 0) continue
    out.push({id, short_id: shortIds(id) ?? id, title: (change === 'removed' ? a.titleBefore : a.titleAfter) ?? a.titleBefore ?? titles.get(id) ?? '', change, fields, checks, comments})
    summary[change]++
    for (const c of checks) {
      if (c.event === 'added') summary.checks_added++
      if (c.after === 'passed' && c.before !== 'passed') summary.checks_passed++
      if (c.after === 'failed' && c.before !== 'failed') summary.checks_failed++
    }
    summary.comments += comments.length
  }
  return {...header, summary, cards: out, broken}
}

/** Cards the steps touch whose task.md none of them changed: their titles are read apart. */
export function cardsWithoutTaskFile(steps: readonly DiffStep[]): string[] {
  const touched = new Set<string>()
  const withTask = new Set<string>()
  for (const step of steps) {
    for (const f of step.files) {
      const where = cardFileOf(f.path)
      if (!where) continue
      touched.add(where.id)
      if (where.kind === 'task') withTask.add(where.id)
    }
  }
  return [...touched].filter((id) => !withTask.has(id)).sort()
}

/** undefined: the file did not parse (recorded in `broken`). */
function parseCard(path: string, text: string | null, id: string, broken: ListDiff['broken']): CardVersion | null | undefined {
  if (text === null) return null
  const parsed = parseTaskFile(text, id)
  if (parsed.ok) return parsed.value
  if (!broken.some((b) => b.path === path && b.error === parsed.error)) broken.push({path, error: parsed.error})
  return undefined
}

function parseCheck(path: string, text: string | null, task: string, id: string, broken: ListDiff['broken']): Check | null | undefined {
  if (text === null) return null
  const parsed = parseCheckFile(text, task, id)
  if (parsed.ok) return parsed.value
  if (!broken.some((b) => b.path === path && b.error === parsed.error)) broken.push({path, error: parsed.error})
  return undefined
}

function checkDiff(id: string, before: Check | null, after: Check | null): CheckDiff | null {
  const c = after ?? before
  if (!c) return null
  const b = before?.status ?? null
  const s = after?.status ?? null
  let event: CheckDiff['event']
  let by: string | null
  if (before === null) {
    event = 'added'
    by = after!.added_by
  } else if (after === null) {
    event = 'removed'
    by = null
  } else if (b !== s) {
    event = s === 'pending' ? 'reset' : s!
    by = (s === 'passed' ? after.passed_by : s === 'failed' ? after.failed_by : s === 'superseded' ? after.superseded_by : after.reset_by) ?? after.updated_by
  } else {
    if (after.text === before.text && after.evidence === before.evidence && after.kind === before.kind) return null
    event = 'changed'
    by = after.updated_by
  }
  return {id, kind: c.kind, text: c.text, before: b, after: s, event, by: by ?? null, evidence: after?.evidence ?? null}
}

function isEmptyValue(v: unknown): boolean {
  return Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0
}

function firstLine(body: string): string {
  return body.split('\n').find((l) => l.trim() !== '')?.trim() ?? ''
}
