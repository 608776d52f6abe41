/**
 * task.md and comment files: parse (validated against schemas/) and
 * serialise deterministically. A file that fails to parse or validate yields
 * an error message naming what is wrong; callers report it by path and go on
 * with every other task.
 */
import {validateComment, validateConfig, validateMeta, validateTask, type Validator} from '../generated/validators'
import {conflictMarkerLine, parseFrontmatterYaml, serialiseFrontmatter, splitFrontmatter} from './frontmatter'
import {InvalidError} from './errors'
import {type Comment, type CommentKind, DEFAULT_CONFIG, type ListConfig, MAX_FILE_BYTES, MAX_TIME_MS, MIN_TIME_MS, TASK_KEYS, TIMESTAMP_RE, type TaskMeta} from './task'
import {decodeUtf8} from './validation'
import {FORBIDDEN_KEYS, parseYamlStrictly, yaml} from './yaml-loader'

export type Parsed<T> = {ok: true; value: T} | {ok: false; error: string}

/** A file's bytes as read from the ref; `oversized` when it was over MAX_FILE_BYTES and its content was not read. */
export interface FileBytes {
  size: number
  content: Uint8Array
  oversized?: boolean
}

/** The text of a file on the ref, or why it cannot be read: too large to read, or not UTF-8. */
export function fileText(file: FileBytes): Parsed<string> {
  if (file.oversized || file.size > MAX_FILE_BYTES) {
    return {ok: false, error: `the file is ${file.size} bytes; files on the ref are read up to ${MAX_FILE_BYTES} bytes`}
  }
  const text = decodeUtf8(file.content)
  return text === null ? {ok: false, error: 'the file is not valid UTF-8'} : {ok: true, value: text}
}

/** Refuse to write a file the reader would not read back (over MAX_FILE_BYTES). */
function checkWritable(text: string, what: string): string {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > MAX_FILE_BYTES) {
    throw new InvalidError('file_too_large', `${what} would be ${bytes} bytes; files on the ref are read up to ${MAX_FILE_BYTES} bytes`, {bytes, limit: MAX_FILE_BYTES})
  }
  return text
}

/** The first schema error of `v` in words: where (a dotted path, else `whole`) and what is wrong. */
export function schemaError(v: Validator, whole = 'frontmatter'): string {
  const e = v.errors?.[0]
  if (!e) return 'does not match its schema'
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : whole
  return `${where} ${e.message ?? 'is invalid'}`
}

const KNOWN_TASK_KEYS: ReadonlySet<string> = new Set(TASK_KEYS)

/**
 * Unknown keys are kept and written back, so their values must stay within
 * what the writer (and JSON in the cache) handles without exhausting the
 * stack: lists and mappings nest at most this deep.
 */
const MAX_EXTRA_DEPTH = 32

/** Nesting depth of a value, counting no further than `limit` + 1. */
function depthOf(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0
  if (limit < 0) return 1
  let deepest = 0
  for (const v of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(v, limit - 1))
    if (deepest > limit) break
  }
  return deepest + 1
}

/** Parse a task file. `expectedId` is the directory name it was found under. */
export function parseTaskFile(text: string, expectedId?: string): Parsed<{meta: TaskMeta; body: string}> {
  // Checked first: markers in the frontmatter would otherwise read as a YAML error, and in the
  // body as text. git-tasks never writes a body holding them (checkBody refuses one).
  const marker = conflictMarkerLine(text)
  if (marker !== null) return {ok: false, error: `unresolved merge conflict markers at line ${marker}: edit the file to resolve them, commit it, then run \`tasks doctor\``}
  const split = splitFrontmatter(text)
  if ('error' in split) return {ok: false, error: split.error}
  const parsed = parseFrontmatterYaml(split.frontmatter)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  const fields = parsed.fields
  if (!validateTask(fields)) return {ok: false, error: schemaError(validateTask)}
  const record = fields as Record<string, unknown>
  const keys = Object.keys(record)
  let unknown = 0
  for (const k of keys) {
    if (FORBIDDEN_KEYS.has(k)) return {ok: false, error: 'the key __proto__ is not allowed'}
    if (!KNOWN_TASK_KEYS.has(k)) unknown++
  }
  if (expectedId !== undefined && fields.id !== expectedId) {
    return {ok: false, error: `id "${String((fields as Record<string, unknown>).id)}" does not match its directory ${expectedId}`}
  }
  // Usually every key is known: the parsed record (new, and nobody else's) is the frontmatter as it is.
  if (unknown === 0 && Object.getPrototypeOf(record) === Object.prototype) return {ok: true, value: {meta: record as unknown as TaskMeta, body: split.body}}
  const meta = {} as Record<string, unknown>
  const extra: Record<string, unknown> = {}
  for (const k of keys) {
    if (KNOWN_TASK_KEYS.has(k)) meta[k] = record[k]
    else extra[k] = record[k]
  }
  for (const [k, v] of Object.entries(extra)) {
    if (depthOf(v, MAX_EXTRA_DEPTH) > MAX_EXTRA_DEPTH) return {ok: false, error: `${k} is nested more than ${MAX_EXTRA_DEPTH} levels deep`}
  }
  if (unknown > 0) meta.extra = extra
  return {ok: true, value: {meta: meta as unknown as TaskMeta, body: split.body}}
}

/** One field `repairFieldValues` changed: the value it had and the one it has now (undefined: removed). */
export interface FieldRepair {
  field: string
  from: unknown
  to: string | undefined
}

const TIME_FIELDS = ['claimed_at', 'lease_expires', 'closed_at', 'created_at', 'updated_at'] as const
const OPTIONAL_TIME_FIELDS: ReadonlySet<string> = new Set(['claimed_at', 'lease_expires', 'closed_at'])

/**
 * Put right a task file whose only faults are times it cannot hold (a lease
 * written as `+011533-…` by an old version, a date edited by hand): a time
 * past the storable range is clamped to its nearest end, one that is not a
 * time at all is removed (claimed_at, lease_expires, closed_at) or set to
 * `now` (created_at, updated_at). Null when nothing needs it or anything
 * else is wrong with the file: only a card that then reads back is repaired.
 */
export function repairFieldValues(text: string, id: string, now: string): {meta: TaskMeta; body: string; repairs: FieldRepair[]} | null {
  const split = splitFrontmatter(text)
  if ('error' in split) return null
  const parsed = parseFrontmatterYaml(split.frontmatter)
  if ('error' in parsed) return null
  const fields: Record<string, unknown> = {...parsed.fields}
  const repairs: FieldRepair[] = []
  for (const field of TIME_FIELDS) {
    const value = fields[field]
    if (value === undefined || (typeof value === 'string' && TIMESTAMP_RE.test(value))) continue
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN
    let to: string | undefined
    if (Number.isFinite(ms)) to = new Date(Math.min(MAX_TIME_MS, Math.max(MIN_TIME_MS, ms))).toISOString()
    else to = OPTIONAL_TIME_FIELDS.has(field) ? undefined : now
    if (to === undefined) delete fields[field]
    else fields[field] = to
    repairs.push({field, from: value, to})
  }
  if (repairs.length === 0) return null
  const record = fields as Record<string, unknown>
  const draft = serialiseFrontmatter(
    Object.keys(record).map((k) => [k, record[k]]),
    split.body,
  )
  const reread = parseTaskFile(draft, id)
  if (!reread.ok) return null
  return {meta: reread.value.meta, body: reread.value.body, repairs}
}

/** Serialise a task: known keys in schema order, then unknown keys sorted. */
export function serialiseTask(meta: TaskMeta, body: string): string {
  const fields: Array<[string, unknown]> = TASK_KEYS.map((k) => [k, k === 'fields' ? sortedFields(meta.fields) : meta[k]])
  if (meta.extra) for (const k of Object.keys(meta.extra).sort()) fields.push([k, meta.extra[k]])
  return checkWritable(serialiseFrontmatter(fields, body), `the task file of ${meta.id}`)
}

/** Custom fields as written: keys sorted, absent when there are none (issue 33). */
function sortedFields(fields: TaskMeta['fields']): TaskMeta['fields'] {
  if (!fields) return undefined
  const keys = Object.keys(fields).sort()
  return keys.length === 0 ? undefined : Object.fromEntries(keys.map((k) => [k, fields[k]!]))
}

/** Only the body of a task file (used when rewriting frontmatter and keeping the text). */
export function taskBody(text: string): string {
  const split = splitFrontmatter(text)
  return 'error' in split ? '' : split.body
}

/** Parse a comment file stored as `comments/<id>.md` of task `task`. */
export function parseCommentFile(text: string, task: string, id: string): Parsed<Comment> {
  const split = splitFrontmatter(text)
  if ('error' in split) return {ok: false, error: split.error}
  const parsed = parseFrontmatterYaml(split.frontmatter)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  const fields = parsed.fields
  if (!validateComment(fields)) return {ok: false, error: schemaError(validateComment)}
  const record = fields as Record<string, unknown>
  return {
    ok: true,
    value: {
      id,
      task,
      kind: record.kind as CommentKind,
      author: record.author as string,
      created_at: record.created_at as string,
      body: split.body.replace(/\n$/, ''),
      ...(typeof record.epoch === 'number' ? {epoch: record.epoch} : {}),
      ...(typeof record.session === 'string' ? {session: record.session} : {}),
      ...(typeof record.next === 'string' ? {next: record.next} : {}),
      ...(typeof record.key === 'string' ? {key: record.key} : {}),
    },
  }
}

export function serialiseComment(c: Comment): string {
  return checkWritable(serialiseFrontmatter(
    [
      ['kind', c.kind],
      ['author', c.author],
      ['created_at', c.created_at],
      // Checkpoint fields, present only on checkpoints (docs/storage.md, "Checkpoints").
      ...(c.epoch !== undefined ? [['epoch', c.epoch] as [string, unknown]] : []),
      ...(c.session !== undefined ? [['session', c.session] as [string, unknown]] : []),
      ...(c.next !== undefined ? [['next', c.next] as [string, unknown]] : []),
      ...(c.key !== undefined ? [['key', c.key] as [string, unknown]] : []),
    ],
    c.body,
  ), `a comment on ${c.task}`)
}

/** Parse config.yaml; missing keys take defaults, unknown keys are kept. */
export function parseConfig(text: string): Parsed<ListConfig> {
  const parsed = parseYamlStrictly(text)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  const value = parsed.value ?? {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {ok: false, error: 'not a mapping'}
  if (!validateConfig(value)) return {ok: false, error: schemaError(validateConfig)}
  const config: ListConfig = {...DEFAULT_CONFIG, admins: [...DEFAULT_CONFIG.admins], allowed_paths: [...DEFAULT_CONFIG.allowed_paths], types: [...DEFAULT_CONFIG.types], fields: {}}
  const extra: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (Object.hasOwn(DEFAULT_CONFIG, k)) (config as unknown as Record<string, unknown>)[k] = v
    else extra[k] = v
  }
  if (Object.keys(extra).length > 0) config.extra = extra
  return {ok: true, value: config}
}

export function serialiseConfig(config: ListConfig): string {
  const {extra, ...all} = config
  // The guard's policy keys are written only when set, so a list that never used them keeps its file as it was.
  const known: Partial<ListConfig> = {...all}
  if (known.require_signed === false) delete known.require_signed
  if (known.allowed_signers === '') delete known.allowed_signers
  if (known.allowed_paths?.length === 0) delete known.allowed_paths
  if (known.max_file_bytes === DEFAULT_CONFIG.max_file_bytes) delete known.max_file_bytes
  if (known.list_limit === DEFAULT_CONFIG.list_limit) delete known.list_limit
  if (known.max_claims_per_actor === DEFAULT_CONFIG.max_claims_per_actor) delete known.max_claims_per_actor
  if (known.require_epoch === DEFAULT_CONFIG.require_epoch) delete known.require_epoch
  if (known.require_checks === false) delete known.require_checks
  if (known.types?.length === 0) delete known.types
  if (known.max_depth === DEFAULT_CONFIG.max_depth) delete known.max_depth
  if (known.fields && Object.keys(known.fields).length === 0) delete known.fields
  return yaml().stringify({...known, ...extra}, {lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN'})
}

/** Parse meta.yaml and return the store format number. */
export function parseMeta(text: string): Parsed<{format: number}> {
  const parsed = parseYamlStrictly(text)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  const value = parsed.value
  if (!validateMeta(value)) return {ok: false, error: schemaError(validateMeta)}
  return {ok: true, value: {format: (value as {format: number}).format}}
}

export function serialiseMeta(format: number): string {
  return `format: ${format}\n`
}
