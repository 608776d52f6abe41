/**
 * Custom fields (issue 33, after scitex-todo): a card's `fields` map of
 * lowercase keys to values, set with `--field KEY=VALUE` (a `fields` object
 * over MCP and in batch files), removed with `--unset-field KEY`, listed
 * with `list --field KEY=VALUE`. A list may declare a key's type in its
 * config (`config set field.KEY TYPE`); a declared value is checked on
 * every write and by the server guard through the one predicate here,
 * `fieldValueProblem`.
 *
 * Stored values: text for an undeclared key or a `string`, `date` or
 * `enum(…)` one; a YAML number for `integer` and `number`; true or false for
 * `boolean`. Pure: values in, values out.
 */
import {isCalendarDay} from './dates'
import {InvalidError} from './errors'
import type {ListConfig, TaskMeta} from './task'
import {TIMESTAMP_RE} from './task'
import {dangerousCharacter} from './untrusted-text'

export type FieldValue = string | number | boolean
export type Fields = Record<string, FieldValue>

/** A field's key: a lowercase identifier (letter first, then letters, digits, `_`), at most 64 characters. */
export const FIELD_KEY_RE = /^[a-z][a-z0-9_]{0,63}$/
/** The most fields one card holds (and the most types a list declares). */
export const MAX_FIELDS = 64
/** The longest value, in UTF-8 bytes (as text: a number or boolean is far shorter). */
export const MAX_FIELD_VALUE_BYTES = 4096
/** The scalar types a list may declare; `enum(a|b|…)` is the other. */
export const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'date'] as const
/** An option of an `enum(…)` type. */
const ENUM_OPTION_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const MAX_ENUM_OPTIONS = 64

/** A time as people type it: a date, `T`, hours and minutes, optional seconds and fraction, then Z or an offset. */
const TIME_INPUT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/
const TRUE_WORDS = new Set(['true', 'yes', 'on', '1'])
const FALSE_WORDS = new Set(['false', 'no', 'off', '0'])

function badField(message: string, data: Record<string, unknown> = {}): InvalidError {
  return new InvalidError('bad_field', message, data)
}

/** Why `key` cannot name a field, or null. */
function fieldKeyProblem(key: string): string | null {
  return FIELD_KEY_RE.test(key) ? null : `"${key}" is not a field name: a lowercase letter, then lowercase letters, digits or _ (at most 64)`
}

/** A key as the store holds it, or `bad_field` (exit 5). */
export function checkFieldKey(key: string): string {
  const problem = fieldKeyProblem(key)
  if (problem) throw badField(problem, {key})
  return key
}

/** A `fields` object as sent (MCP, batch, an import document), or `bad_field` (exit 5). */
export function checkFieldsObject(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badField('"fields" is an object of field names to values', {})
  return value as Record<string, unknown>
}

/** Why `text` is not a field type, or null. Enum options are kept in the order given. */
export function fieldTypeProblem(text: string): string | null {
  if ((FIELD_TYPES as readonly string[]).includes(text)) return null
  const m = /^enum\((.*)\)$/.exec(text)
  if (!m) return `use ${FIELD_TYPES.join(', ')} or enum(a|b|…)`
  const options = m[1]!.split('|')
  if (options.length > MAX_ENUM_OPTIONS) return `an enum has at most ${MAX_ENUM_OPTIONS} options`
  const bad = options.find((o) => !ENUM_OPTION_RE.test(o))
  if (bad !== undefined) return `enum option "${bad}" is not a word (letters, digits and . _ -, at most 64)`
  if (new Set(options).size !== options.length) return 'an enum names each option once'
  return null
}

/** The options of an `enum(a|b)` type, or null for another type. */
function enumOptions(type: string): string[] | null {
  const m = /^enum\((.*)\)$/.exec(type)
  return m ? m[1]!.split('|') : null
}

/** Why a text value cannot be stored (one line, no control characters, within the size), or null. */
function textProblem(text: string): string | null {
  if (text.length === 0) return 'is empty (use --unset-field to remove a field)'
  if (/\p{Surrogate}/u.test(text)) return 'is not valid Unicode text'
  if (/[\n\r\t]/.test(text)) return 'is more than one line (a field holds one line of text)'
  const control = dangerousCharacter(text)
  if (control) return `contains the control character ${control}`
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > MAX_FIELD_VALUE_BYTES) return `is ${bytes} bytes; the limit is ${MAX_FIELD_VALUE_BYTES}`
  return null
}

/**
 * The one rule for a stored value: why `value` cannot be the value of a
 * field of `type` (undefined: undeclared), or null when it can. The ops
 * check what they are about to write with it; the guard checks each field a
 * pushed card changed with it (docs/verify.md, `bad_field`).
 */
export function fieldValueProblem(value: unknown, type: string | undefined): string | null {
  if (type === undefined || type === 'string') {
    if (typeof value === 'string') return textProblem(value)
    // An undeclared key may hold a number or a boolean written by hand or by an older declaration.
    if (type === undefined && ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean')) return null
    return 'must be text'
  }
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? null : 'must be a whole number'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number'
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false'
    case 'date':
      return typeof value === 'string' && (isCalendarDay(value) || TIMESTAMP_RE.test(value)) ? null : 'must be a date (YYYY-MM-DD) or a UTC time (YYYY-MM-DDTHH:MM:SS.sssZ)'
  }
  const options = enumOptions(type)
  if (options) return typeof value === 'string' && options.includes(value) ? null : `must be one of ${options.join(', ')}`
  // A type this version does not know (a newer writer's): nothing to check against.
  return null
}

/** The declared type of `key` in the list, or undefined. */
export function fieldTypeOf(config: Pick<ListConfig, 'fields'>, key: string): string | undefined {
  const types = config.fields
  return types && Object.hasOwn(types, key) ? types[key] : undefined
}

/** A value's problem as said of its field: `field estimate (integer) must be a whole number`. */
function valueMessage(key: string, type: string | undefined, problem: string): string {
  return `field ${key}${type ? ` (${type})` : ''} ${problem}`
}

function badValue(key: string, type: string | undefined, problem: string, value: unknown): InvalidError {
  return new InvalidError('bad_field_value', valueMessage(key, type, problem), {key, ...(type ? {type} : {}), value: typeof value === 'string' ? value.slice(0, 200) : value})
}

/** Why a stored field cannot be: its key is no field name (`bad_field`), or its value does not fit the key's declared type (`bad_field_value`). */
export interface FieldProblem {
  code: 'bad_field' | 'bad_field_value'
  key: string
  /** The key's declared type, when it has one and the value does not fit it. */
  type?: string
  message: string
}

/**
 * The one rule for a field as a card stores it, key and value: the guard
 * (`fieldProblems`) and an import judge each field with it. Null when the
 * card may hold `key: value` in a list with `config`'s declared types.
 */
export function storedFieldProblem(key: string, value: unknown, config: Pick<ListConfig, 'fields'>): FieldProblem | null {
  const keyProblem = fieldKeyProblem(key)
  if (keyProblem) return {code: 'bad_field', key, message: keyProblem}
  const type = fieldTypeOf(config, key)
  const problem = fieldValueProblem(value, type)
  if (problem === null) return null
  return {code: 'bad_field_value', key, ...(type ? {type} : {}), message: valueMessage(key, type, problem)}
}

/**
 * What a person typed for `key`, as the store holds it: the declared type
 * read from the text (`3` for an integer, `yes` for a boolean, a date or a
 * time in any offset as UTC), else the text itself. `bad_field_value` (exit
 * 5) when it does not read.
 */
export function parseFieldText(key: string, text: string, config: Pick<ListConfig, 'fields'>): FieldValue {
  const type = fieldTypeOf(config, key)
  const problem = textProblem(text)
  if (problem) throw badValue(key, type, problem, text)
  const t = text.trim()
  // Text is kept as typed, less the spaces around it.
  let value: FieldValue = t
  if (type === 'integer' && /^[+-]?\d+$/.test(t)) value = Number(t)
  else if (type === 'number' && /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) value = Number(t)
  else if (type === 'boolean' && TRUE_WORDS.has(t.toLowerCase())) value = true
  else if (type === 'boolean' && FALSE_WORDS.has(t.toLowerCase())) value = false
  else if (type === 'date' && TIME_INPUT_RE.test(t)) {
    const ms = Date.parse(t)
    if (Number.isFinite(ms)) value = new Date(ms).toISOString()
  }
  const wrong = fieldValueProblem(value, type)
  if (wrong) throw badValue(key, type, wrong, text)
  return value
}

/** A value sent as JSON (MCP, batch): text is read as typed text; a number or boolean must fit the declared type (undeclared: kept as its text). */
export function fieldFromJson(key: string, value: unknown, config: Pick<ListConfig, 'fields'>): FieldValue {
  if (typeof value === 'string') return parseFieldText(key, value, config)
  const type = fieldTypeOf(config, key)
  if (typeof value === 'number' || typeof value === 'boolean') {
    if (type === undefined || type === 'string') return parseFieldText(key, String(value), config)
    const wrong = fieldValueProblem(value, type)
    if (wrong) throw badValue(key, type, wrong, value)
    return value
  }
  throw badField(`field ${key}: a value is text, a number or true/false (null removes the field), not ${Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value}`, {key})
}

/** The edits one add or edit asks for: the command line's KEY=VALUE pairs, a JSON `fields` object (null: remove), keys to remove. */
export interface FieldArgs {
  /** `--field KEY=VALUE` (repeatable). */
  field?: readonly string[]
  /** MCP and batch: `{"key": value}`, null removing the key. */
  fields?: unknown
  /** `--unset-field KEY` (repeatable). */
  unsetField?: readonly string[]
}

/** Whether any field edit is asked for. */
export function asksFieldEdits(args: FieldArgs): boolean {
  const obj = args.fields
  return Boolean(args.field?.length || args.unsetField?.length || (obj !== undefined && obj !== null && (typeof obj !== 'object' || Array.isArray(obj) || Object.keys(obj).length > 0)))
}

/**
 * Apply the field edits of `args` to `current` (a card's fields): each
 * value checked and read by its declared type, each key once (the same key
 * set twice differently, or set and removed, is `bad_field`), at most
 * MAX_FIELDS in the result. Returns the new map (undefined when empty) and
 * the keys whose value changed, sorted. Throws before anything is written.
 */
export function applyFieldEdits(current: Readonly<Fields> | undefined, args: FieldArgs, config: Pick<ListConfig, 'fields'>): {fields: Fields | undefined; changed: string[]} {
  const set = new Map<string, FieldValue>()
  const unset = new Set<string>()
  const put = (key: string, value: FieldValue) => {
    const had = set.get(key)
    if (unset.has(key) || (had !== undefined && had !== value)) throw badField(`field ${key} is given twice`, {key})
    set.set(key, value)
  }
  const drop = (key: string) => {
    if (set.has(key)) throw badField(`field ${key} is both set and removed`, {key})
    unset.add(key)
  }
  for (const {key, value} of parseFieldFilters(args.field ?? [], config)) put(key, value)
  const obj = args.fields
  if (obj !== undefined && obj !== null) {
    for (const [k, v] of Object.entries(checkFieldsObject(obj))) {
      const key = checkFieldKey(k)
      if (v === null) drop(key)
      else put(key, fieldFromJson(key, v, config))
    }
  }
  for (const k of args.unsetField ?? []) drop(checkFieldKey(k.trim()))
  const next: Fields = {...(current ?? {})}
  for (const k of unset) delete next[k]
  for (const [k, v] of set) next[k] = v
  const keys = Object.keys(next).sort()
  if (keys.length > MAX_FIELDS) throw badField(`a card holds at most ${MAX_FIELDS} fields; this would make ${keys.length}`, {count: keys.length, limit: MAX_FIELDS})
  const changed = [...new Set([...Object.keys(current ?? {}), ...keys])].filter((k) => current?.[k] !== next[k]).sort()
  return {fields: keys.length === 0 ? undefined : Object.fromEntries(keys.map((k) => [k, next[k]!])), changed}
}

/**
 * The guard's rule (and the same predicate as the ops): every field `after`
 * holds that `before` did not hold with the same value must fit its key's
 * declared type in `config` (the list's config before the commit). Fields a
 * card kept as they were are not judged again, so declaring a type later
 * never makes an unrelated change refused.
 */
export function fieldProblems(before: Pick<TaskMeta, 'fields'> | undefined, after: Pick<TaskMeta, 'fields'>, config: Pick<ListConfig, 'fields'>): string[] {
  const out: string[] = []
  for (const [key, value] of Object.entries(after.fields ?? {})) {
    if (before?.fields && Object.hasOwn(before.fields, key) && before.fields[key] === value) continue
    const problem = storedFieldProblem(key, value, config)
    if (problem) out.push(problem.message)
  }
  return out
}

/** One `list --field KEY=VALUE` filter: the key and the value as the store would hold it. */
export interface FieldFilter {
  key: string
  value: FieldValue
}

/**
 * `--field KEY=VALUE` pairs read as the store would hold them: the filters of
 * `list --field` (all must match) and the values `add`/`edit --field` set. A
 * pair without `=`, a bad key or a value its type refuses is exit 5.
 */
export function parseFieldFilters(pairs: readonly string[], config: Pick<ListConfig, 'fields'>): FieldFilter[] {
  return pairs.map((pair) => {
    const at = pair.indexOf('=')
    if (at <= 0) throw badField(`--field takes KEY=VALUE, not "${pair.slice(0, 200)}"`, {field: pair.slice(0, 200)})
    const key = checkFieldKey(pair.slice(0, at).trim())
    return {key, value: parseFieldText(key, pair.slice(at + 1), config)}
  })
}

/** The text of a stored value, for comparing and printing (`3`, `true`, `gpu-01`). */
export function fieldText(value: FieldValue): string {
  return typeof value === 'string' ? value : String(value)
}

/** Whether a card's fields match every filter (compared as text, so `3` matches a value stored before its key was typed). */
export function fieldsMatch(fields: Readonly<Fields> | undefined, filters: readonly FieldFilter[]): boolean {
  for (const f of filters) {
    if (!fields || !Object.hasOwn(fields, f.key)) return false
    if (fieldText(fields[f.key]!) !== fieldText(f.value)) return false
  }
  return true
}
