/**
 * `config set` / `config unset`: change one key of the list's config.yaml,
 * as a plan with one `put-file`, so it goes through the transaction like any
 * other mutation (online: fetch, push with a lease; a lost race re-runs).
 * Pure: the value is parsed and checked here against the same bounds the
 * reader enforces, and the new file is read back before it is planned, so
 * whatever `config set` accepts the reader reads.
 *
 * When config.yaml lists admins, only they may change the configuration
 * (any key: the lease, the limits and the admins are the list's policy).
 */
import {durationSeconds} from '../duration-flag'
import {InvalidError, NotPermittedError, UsageError} from '../errors'
import type {OpContext, Plan} from '../plan'
import type {Snapshot} from '../snapshot'
import {CONFIG_BOUNDS, DEFAULT_CONFIG, EMIT_EVENTS, type ListConfig, type NonNumericConfigKey, NOTIFY_DEFAULTS, NOTIFY_ROLES, TASK_TYPES} from '../task'
import {MAX_PATH_PATTERNS, pathPatternProblem} from '../path-patterns'
import {parseConfig, serialiseConfig} from '../task-file'
import {CONFIG_PATH} from '../store-layout'
import {checkActor} from '../validation'
import {FIELD_KEY_RE, MAX_FIELDS, fieldTypeProblem} from '../fields'

export type ConfigKey = keyof Omit<ListConfig, 'extra'>
export type ConfigValue = number | boolean | string | string[] | Record<string, string[]> | Record<string, string>

/** The keys `tasks config` knows, in the order `config list` shows them. */
export const CONFIG_KEYS = Object.keys(DEFAULT_CONFIG) as ConfigKey[]

/** Keys holding a number of seconds: they accept durations (`90s`, `30m`, `1h`, `2d`). */
const SECONDS_KEYS: ReadonlySet<string> = new Set(['lease_seconds', 'clock_skew_seconds', 'stale_after_seconds', 'remind_every_seconds', 'escalate_after_seconds', 'retention_seconds'])
/** Keys holding a list (comma-separated on the command line; --add/--remove). */
const LIST_KEYS: ReadonlySet<string> = new Set(['admins', 'allowed_paths', 'types'])
/** Keys holding true or false. */
const BOOLEAN_KEYS: ReadonlySet<string> = new Set(['require_signed', 'require_epoch', 'require_checks'])
/** Keys holding one line of text (a path): no control characters, at most 4096 bytes; unset is ''. */
const STRING_KEYS: ReadonlySet<string> = new Set(['allowed_signers'])
/** Keys holding a plain whole number: a count or a depth (for max_claims_per_actor 0 means no limit). */
const COUNT_KEYS: ReadonlySet<string> = new Set(['list_limit', 'max_claims_per_actor', 'max_depth', 'escalate_after_digests'])
/** Keys holding one of a few words. */
const CHOICE_KEYS: Readonly<Record<string, readonly string[]>> = {emit_events: EMIT_EVENTS}
/** Keys holding one actor; unset is '' (nobody). */
const ACTOR_KEYS: ReadonlySet<string> = new Set(['operator'])
const TRUE_WORDS = new Set(['true', 'yes', 'on', '1'])
const FALSE_WORDS = new Set(['false', 'no', 'off', '0'])

export function isListKey(key: ConfigKey): boolean {
  return LIST_KEYS.has(key)
}

const EVENT_RE = /^([a-z][a-z0-9_-]{0,63}|\*)$/

/** `notify.EVENT`: the event a dotted notify key names, or null for any other key. */
export function notifyEventOf(key: string): string | null {
  if (!key.startsWith('notify.')) return null
  const event = key.slice('notify.'.length)
  if (!EVENT_RE.test(event)) throw new UsageError(`"${event}" is not an event name: use an op name such as comment or done, or * for every other op`, {key}, 'unknown_config_key')
  return event
}

/** Issue 33: `field.KEY`, the declared type of a custom field: the key it names, or null for any other setting. */
export function fieldKeyOf(key: string): string | null {
  if (!key.startsWith('field.')) return null
  const name = key.slice('field.'.length)
  if (!FIELD_KEY_RE.test(name)) throw new UsageError(`"${name}" is not a field name: a lowercase letter, then lowercase letters, digits or _ (at most 64)`, {key}, 'unknown_config_key')
  return name
}

/** The declared types with `key` set to `type` (null: declared no more), sorted by key; at most MAX_FIELDS. */
export function fieldTypesWith(current: Readonly<Record<string, string>>, key: string, text: string | null): Record<string, string> {
  const out: Record<string, string> = {...current}
  if (text === null) delete out[key]
  else {
    const type = text.trim()
    const problem = fieldTypeProblem(type)
    if (problem !== null) throw badValue(`field.${key}`, text, `a field type: ${problem}`)
    out[key] = type
  }
  const keys = Object.keys(out).sort()
  if (keys.length > MAX_FIELDS) throw badValue(`field.${key}`, text ?? '', `at most ${MAX_FIELDS} declared fields`)
  return Object.fromEntries(keys.map((k) => [k, out[k]!]))
}

/** Roles for one notify rule, from a comma list (empty: nobody). */
export function parseNotifyRoles(event: string, text: string): string[] {
  const roles = [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))]
  const bad = roles.find((r) => r !== 'none' && !(NOTIFY_ROLES as readonly string[]).includes(r))
  if (bad !== undefined) throw badValue(`notify.${event}`, text, `a comma list of roles (${NOTIFY_ROLES.join(', ')}), or "none"`)
  return roles.filter((r) => r !== 'none').sort()
}

/** The notify rules with one event set (roles) or put back to its default (null). */
export function notifyWith(current: Record<string, string[]>, event: string, roles: string[] | null): Record<string, string[]> {
  const out: Record<string, string[]> = {...(NOTIFY_DEFAULTS as Record<string, string[]>), ...current}
  if (roles !== null) out[event] = roles
  else if (NOTIFY_DEFAULTS[event]) out[event] = [...NOTIFY_DEFAULTS[event]!]
  else delete out[event]
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]!]))
}

/** A known key, or a usage error naming the keys. */
export function checkConfigKey(key: string): ConfigKey {
  if ((CONFIG_KEYS as string[]).includes(key)) return key as ConfigKey
  throw new UsageError(`"${key}" is not a setting: use ${CONFIG_KEYS.join(', ')}`, {key, keys: CONFIG_KEYS}, 'unknown_config_key')
}

const BYTES: Record<string, number> = {'': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1_048_576, mb: 1_048_576, mib: 1_048_576}

function badValue(key: string, text: string, expected: string): InvalidError {
  return new InvalidError('bad_config_value', `${key} expects ${expected}, not "${text}"`, {key, value: text})
}

/** One item of a list setting, checked: an actor for admins, a path pattern for allowed_paths. */
function listItem(key: ConfigKey, text: string): string {
  if (key === 'types') {
    if (!(TASK_TYPES as readonly string[]).includes(text)) throw badValue(key, text, `task types among ${TASK_TYPES.join(', ')}`)
    return text
  }
  if (key !== 'allowed_paths') return checkActor(text, 'admin')
  const problem = pathPatternProblem(text)
  if (problem !== null) throw badValue(key, text, `path patterns (* and ? within a segment, ** for any segments, a trailing / for a whole directory): ${problem}`)
  return text
}

/** A list setting's items: each checked, each once, and no more than the reader takes. */
function listValue(key: ConfigKey, items: string[]): string[] {
  const out = [...new Set(items.map((a) => listItem(key, a)))]
  if (key === 'allowed_paths' && out.length > MAX_PATH_PATTERNS) throw badValue(key, out.join(','), `at most ${MAX_PATH_PATTERNS} patterns`)
  return out
}

/** Parse what a person typed for `key`: a duration for seconds keys, a size for byte keys, a comma list for admins and allowed_paths. */
export function parseConfigValue(key: ConfigKey, text: string): ConfigValue {
  if (key === 'notify') throw new UsageError('set one event at a time: `tasks config set notify.EVENT ROLES` (e.g. notify.comment owner,subscribers)', {key}, 'usage')
  if (key === 'fields') throw new UsageError('declare one field at a time: `tasks config set field.KEY TYPE` (e.g. field.estimate integer)', {key}, 'usage')
  if (LIST_KEYS.has(key)) return listValue(key, text.split(',').map((s) => s.trim()).filter(Boolean))
  if (BOOLEAN_KEYS.has(key)) {
    const word = text.trim().toLowerCase()
    if (TRUE_WORDS.has(word)) return true
    if (FALSE_WORDS.has(word)) return false
    throw badValue(key, text, 'true or false (also yes/no, on/off, 1/0)')
  }
  const choices = CHOICE_KEYS[key]
  if (choices) {
    const word = text.trim().toLowerCase()
    if (!choices.includes(word)) throw badValue(key, text, `one of ${choices.join(', ')}`)
    return word
  }
  if (ACTOR_KEYS.has(key)) {
    try {
      return checkActor(text, key)
    } catch (error) {
      throw badValue(key, text, `an actor (at most 200 characters, no < or >, no control characters); \`tasks config unset ${key}\` for nobody`)
    }
  }
  if (STRING_KEYS.has(key)) {
    const value = text.trim()
    // The same limits as schemas/config.schema.json, so the reader reads what is written.
    if (!value || /[\u0000-\u001f]/.test(value) || Buffer.byteLength(value) > 4096) throw badValue(key, text, 'a path on one line (absolute, or relative to the repository\'s git dir), at most 4096 bytes')
    return value
  }
  const input = text.trim().toLowerCase()
  const bounds = CONFIG_BOUNDS[key as Exclude<ConfigKey, NonNumericConfigKey>]
  let n: number
  if (COUNT_KEYS.has(key)) {
    const expected = `a whole number from ${bounds.minimum} to ${bounds.maximum}`
    if (!/^\d+$/.test(input)) throw badValue(key, text, expected)
    n = Number(input)
    if (!Number.isSafeInteger(n) || n < bounds.minimum || n > bounds.maximum) throw badValue(key, text, expected)
  } else if (SECONDS_KEYS.has(key)) {
    const expected = `a duration such as 90s, 30m, 1h or 2d (a plain number is seconds) from ${bounds.minimum} to ${bounds.maximum} seconds`
    const seconds = durationSeconds(input)
    if (seconds === null) throw badValue(key, text, expected)
    n = seconds
    if (!Number.isSafeInteger(n) || n < bounds.minimum || n > bounds.maximum) throw badValue(key, text, expected)
  } else if (COUNT_KEYS.has(key)) {
    const expected = `a whole number from ${bounds.minimum} to ${bounds.maximum}`
    if (!/^\d+$/.test(input)) throw badValue(key, text, expected)
    n = Number(input)
    if (!Number.isSafeInteger(n) || n < bounds.minimum || n > bounds.maximum) throw badValue(key, text, expected)
  } else {
    const expected = `a size in bytes (or with k or m for KiB, MiB) from ${bounds.minimum} to ${bounds.maximum}`
    const m = /^(\d+)\s*(b|k|kb|kib|m|mb|mib)?$/.exec(input)
    if (!m) throw badValue(key, text, expected)
    n = Number(m[1]) * BYTES[m[2] ?? '']!
    if (!Number.isSafeInteger(n) || n < bounds.minimum || n > bounds.maximum) throw badValue(key, text, expected)
  }
  return n
}

export type ConfigChange =
  | {kind: 'set'; key: ConfigKey; value: ConfigValue}
  | {kind: 'unset'; key: ConfigKey}
  | {kind: 'add' | 'remove'; key: ConfigKey; items: string[]}

export interface ConfigResult {
  key: ConfigKey
  value: ConfigValue
  previous: ConfigValue
  /** True when the value now in effect is the default. */
  default: boolean
}

function same(a: ConfigValue, b: ConfigValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** Whether `value` is the default of `key`. */
export function isDefault(key: ConfigKey, value: ConfigValue): boolean {
  return same(value, DEFAULT_CONFIG[key])
}

/** Throws unless the actor may change the list's configuration. */
function assertMayConfigure(snap: Snapshot, ctx: OpContext, key: string): void {
  const admins = snap.config.admins
  if (admins.length > 0 && !admins.includes(ctx.actor)) {
    throw new NotPermittedError('not_admin', `only the admins listed in config.yaml (${admins.join(', ')}) may change ${key}`, {key, admins})
  }
}

/** The plan that writes config.yaml with one key changed; no changes when the value is already in effect. */
export function changeConfig(snap: Snapshot, ctx: OpContext, change: ConfigChange): Plan<ConfigResult> {
  const key = change.key
  const previous = snap.config[key]
  let value: ConfigValue
  if (change.kind === 'set') value = change.value
  else if (change.kind === 'unset') value = DEFAULT_CONFIG[key]
  else {
    if (!LIST_KEYS.has(key)) throw new UsageError(`--${change.kind} is for list settings (${[...LIST_KEYS].join(', ')}), not ${key}`, {key}, 'usage')
    const current = previous as string[]
    const items = change.items.map((a) => listItem(key, a))
    value = change.kind === 'add' ? listValue(key, [...current, ...items]) : current.filter((a) => !items.includes(a))
  }
  const result: ConfigResult = {key, value, previous, default: isDefault(key, value)}
  if (same(value, previous)) return {op: 'config', summary: `${key} unchanged`, changes: [], trailers: [], result}
  assertMayConfigure(snap, ctx, key)
  const next: ListConfig = {...snap.config, [key]: value}
  const content = serialiseConfig(next)
  // Read back exactly as every reader will: a value the reader would refuse is never written.
  const back = parseConfig(content)
  if (!back.ok || !same(back.value[key], value)) {
    throw new InvalidError('bad_config_value', `${key} = ${JSON.stringify(value)} would not read back${back.ok ? '' : `: ${back.error}`}`, {key})
  }
  const said = change.kind === 'unset' ? `${key} (default ${show(value)})` : `${key}=${show(value)}`
  return {
    op: 'config',
    summary: `${change.kind === 'unset' ? 'unset' : 'set'} ${said}`,
    changes: [{kind: 'put-file', path: CONFIG_PATH, content}],
    trailers: [['Tasks-Config', said]],
    result,
  }
}

function show(value: ConfigValue): string {
  if (typeof value === 'object' && !Array.isArray(value)) return Object.entries(value).map(([k, v]) => `${k}:${typeof v === 'string' ? v : v.join('+') || 'none'}`).join(',') || '(none)'
  if (value === '') return '(none)'
  return Array.isArray(value) ? value.join(',') || '(none)' : String(value)
}
