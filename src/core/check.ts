/**
 * Checks: acceptance criteria and tests attached to a task, one file per
 * check (`tasks/<xx>/<id>/checks/<check-id>.md`), so two clones passing,
 * failing or superseding different checks never touch the same path.
 *
 * The rule they carry: an item cannot be done while an active check (not
 * superseded) has not passed with evidence; a change of the item's title or
 * description (a new spec revision) puts its passed and failed checks back
 * to pending. Pure: values in, values out.
 */
import {createHash} from 'node:crypto'
import {validateCheck} from '../generated/validators'
import {parseFrontmatterYaml, serialiseFrontmatter, splitFrontmatter} from './frontmatter'
import {NotFoundError, UsageError} from './errors'
import {base32, taskDir} from './ids'
import {type Parsed, schemaError} from './task-file'

export const CHECK_KINDS = ['acceptance', 'test'] as const
export type CheckKind = (typeof CHECK_KINDS)[number]
export const CHECK_STATUSES = ['pending', 'passed', 'failed', 'superseded'] as const
export type CheckStatus = (typeof CHECK_STATUSES)[number]

export const CHECKS_DIR = 'checks'
export const CHECK_PREFIX = 'chk-'
const CHECK_ID_RE = /^chk-[0-9a-hjkmnp-tv-z]{8,26}$/

export interface Check {
  id: string
  /** The task it belongs to (its directory; not stored in the file). */
  task: string
  kind: CheckKind
  text: string
  status: CheckStatus
  /** What the last pass or fail was based on; kept through resets and supersedes. */
  evidence?: string
  /** The task's revision when the check was added or last reset to pending. */
  spec_revision: number
  added_by: string
  added_at: string
  passed_by?: string
  passed_at?: string
  failed_by?: string
  failed_at?: string
  reset_by?: string
  reset_at?: string
  superseded_by?: string
  superseded_at?: string
  supersede_reason?: string
  updated_by: string
  updated_at: string
  /** Keys this version does not know, kept verbatim. */
  extra?: Record<string, unknown>
}

/** Stored keys in file order. */
export const CHECK_KEYS = [
  'id',
  'kind',
  'text',
  'status',
  'evidence',
  'spec_revision',
  'added_by',
  'added_at',
  'passed_by',
  'passed_at',
  'failed_by',
  'failed_at',
  'reset_by',
  'reset_at',
  'superseded_by',
  'superseded_at',
  'supersede_reason',
  'updated_by',
  'updated_at',
] as const
const KNOWN: ReadonlySet<string> = new Set(CHECK_KEYS)

export const checkPath = (taskId: string, checkId: string): string => `${taskDir(taskId)}/${CHECKS_DIR}/${checkId}.md`

/** `tasks/<xx>/<task>/checks/<check>.md` → its task and check ids. */
const CHECK_PATH_RE = /^tasks\/[0-9a-f]{2}\/(tsk-[0-9a-hjkmnp-tv-z]{10,26})\/checks\/(chk-[0-9a-hjkmnp-tv-z]{8,26})\.md$/
export function checkOfPath(path: string): {task: string; id: string} | null {
  const m = CHECK_PATH_RE.exec(path)
  return m ? {task: m[1]!, id: m[2]!} : null
}

/** A new check's id: from the task, actor, time, text and entropy (8 base32 characters, 40 bits). */
export function newCheckId(task: string, actor: string, now: string, text: string, entropy: string, taken: (id: string) => boolean): string {
  const digest = base32(createHash('sha256').update(`${task}\0${actor}\0${now}\0${text}\0${entropy}`).digest())
  for (let n = 8; n <= 26; n++) {
    const id = `${CHECK_PREFIX}${digest.slice(0, n)}`
    if (!taken(id)) return id
  }
  throw new Error('internal: no free check id')
}

/** Active checks count for `done`; superseded ones are history. */
export function isActive(c: Check): boolean {
  return c.status !== 'superseded'
}

/** Active checks that do not (yet) stand as passed with evidence: what blocks `done`. */
export function unmetChecks(checks: readonly Check[]): Check[] {
  return checks.filter((c) => isActive(c) && !(c.status === 'passed' && c.evidence))
}

/** Checks in the order they were added (then id). */
export function sortChecks(checks: readonly Check[]): Check[] {
  return [...checks].sort((a, b) => (a.added_at < b.added_at ? -1 : a.added_at > b.added_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** Find a check by id or unique prefix (with or without `chk-`, at least 3 characters after it). */
export function findCheck(checks: readonly Check[], task: string, input: string): Check {
  const typed = input.trim().toLowerCase()
  const body = typed.startsWith(CHECK_PREFIX) ? typed.slice(CHECK_PREFIX.length) : typed
  if (!/^[0-9a-z]{3,26}$/.test(body)) throw new UsageError(`"${input}" is not a check id (chk-… or a prefix of at least 3 characters)`, {check: input}, 'bad_check_id')
  const full = `${CHECK_PREFIX}${body}`
  const exact = checks.find((c) => c.id === full)
  if (exact) return exact
  const found = checks.filter((c) => c.id.startsWith(full))
  if (found.length === 1) return found[0]!
  if (found.length > 1) throw new UsageError(`check "${input}" of ${task} is ambiguous: ${found.map((c) => c.id).join(', ')}`, {check: input, task, matches: found.map((c) => c.id)}, 'ambiguous_check')
  throw new NotFoundError('check_not_found', `${task} has no check ${input}`, {task, check: input})
}


/** Parse a check file of task `task` stored as `checks/<id>.md`. */
export function parseCheckFile(text: string, task: string, id: string): Parsed<Check> {
  const split = splitFrontmatter(text)
  if ('error' in split) return {ok: false, error: split.error}
  const parsed = parseFrontmatterYaml(split.frontmatter)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  const fields = parsed.fields
  if (!validateCheck(fields)) return {ok: false, error: schemaError(validateCheck)}
  if (fields.id !== id) return {ok: false, error: `id "${String(fields.id)}" does not match its file name ${id}.md`}
  if (!CHECK_ID_RE.test(id)) return {ok: false, error: `${id} is not a check id`}
  const check = {task} as Record<string, unknown>
  const extra: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(fields)) {
    if (k === '__proto__') continue
    if (KNOWN.has(k)) check[k] = v
    else extra[k] = v
  }
  if (Object.keys(extra).length > 0) check.extra = extra
  return {ok: true, value: check as unknown as Check}
}

/** Serialise a check: known keys in order, unknown keys sorted after them, no body. */
export function serialiseCheck(c: Check): string {
  const fields: Array<[string, unknown]> = CHECK_KEYS.map((k) => [k, c[k]])
  if (c.extra) for (const k of Object.keys(c.extra).sort()) fields.push([k, c.extra[k]])
  return serialiseFrontmatter(fields, '')
}
