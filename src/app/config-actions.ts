/**
 * `tasks config get|set|unset|list`: the list's shared settings
 * (config.yaml on the ref). Reads come from the snapshot; changes are one
 * op (src/core/ops/config.ts) through the transaction.
 */
import {UsageError} from '../core/errors'
import {CONFIG_KEYS, type ConfigChange, type ConfigKey, type ConfigValue, changeConfig, checkConfigKey, fieldKeyOf, fieldTypesWith, isDefault, isListKey, notifyEventOf, notifyWith, parseConfigValue, parseNotifyRoles} from '../core/ops/config'
import {DEFAULT_CONFIG} from '../core/task'
import type {Session} from './session'
import {mutate} from './transaction'

export interface ConfigSetting {
  key: ConfigKey
  value: ConfigValue
  /** True when the value in effect is the default. */
  default: boolean
  default_value: ConfigValue
}

export interface ConfigListResult {
  list: string
  commit: string
  settings: ConfigSetting[]
  /** Keys in config.yaml this version does not know (kept as they are). */
  other: Record<string, unknown>
}

export interface ConfigChangeResult extends ConfigSetting {
  list: string
  previous: ConfigValue
  /** The commit that recorded the change, or null when the value was already in effect. */
  commit: string | null
}

function setting(key: ConfigKey, value: ConfigValue): ConfigSetting {
  return {key, value, default: isDefault(key, value), default_value: DEFAULT_CONFIG[key]}
}

/** `config list`: every setting in effect, defaults marked. */
export async function configList(session: Session): Promise<ConfigListResult> {
  const loaded = await session.store.load()
  const config = loaded.snapshot.config
  return {list: session.list, commit: loaded.index.commit, settings: CONFIG_KEYS.map((k) => setting(k, config[k])), other: config.extra ?? {}}
}

/** `config get KEY`. */
export async function configGet(session: Session, {key}: {key: string}): Promise<ConfigSetting & {list: string}> {
  const k = checkConfigKey(key)
  const loaded = await session.store.load()
  return {list: session.list, ...setting(k, loaded.snapshot.config[k])}
}

export interface ConfigSetArgs {
  key: string
  value?: string
  /** List keys: items to add to / remove from the current list. */
  add?: string
  remove?: string
  unset?: boolean
}

/** `config set KEY VALUE` (or --add/--remove for a list key), `config unset KEY`. */
export async function configSet(session: Session, args: ConfigSetArgs): Promise<ConfigChangeResult> {
  const event = notifyEventOf(args.key)
  if (event !== null) {
    // One notify rule: `notify.EVENT ROLES` (unset: back to the built-in default), read against the list's current rules.
    if (!args.unset && (args.value === undefined || args.add !== undefined || args.remove !== undefined)) throw new UsageError(`pass the roles for ${args.key} as a comma list (or none)`, {key: args.key}, 'usage')
    const roles = args.unset ? null : parseNotifyRoles(event, args.value!)
    const done = await mutate(session, (snap, ctx) => changeConfig(snap, ctx, {kind: 'set', key: 'notify', value: notifyWith(snap.config.notify, event, roles)}))
    return {list: session.list, ...setting('notify', done.result.value), previous: done.result.previous, commit: done.commit}
  }
  const field = fieldKeyOf(args.key)
  if (field !== null) {
    // Issue 33: one custom field's declared type, `field.KEY TYPE` (unset: the key holds text again).
    if (!args.unset && (args.value === undefined || args.add !== undefined || args.remove !== undefined)) throw new UsageError(`pass the type for ${args.key}: string, integer, number, boolean, date or enum(a|b)`, {key: args.key}, 'usage')
    const done = await mutate(session, (snap, ctx) => changeConfig(snap, ctx, {kind: 'set', key: 'fields', value: fieldTypesWith(snap.config.fields ?? {}, field, args.unset ? null : args.value!)}))
    return {list: session.list, ...setting('fields', done.result.value), previous: done.result.previous, commit: done.commit}
  }
  const key = checkConfigKey(args.key)
  const given = [args.value !== undefined, args.add !== undefined, args.remove !== undefined].filter(Boolean).length
  let change: ConfigChange
  if (args.unset) change = {kind: 'unset', key}
  else if (given !== 1) {
    throw new UsageError(isListKey(key) ? `pass a VALUE for ${key} (a comma list), or --add or --remove` : `pass a VALUE for ${key}`, {key}, 'usage')
  } else if (args.add !== undefined || args.remove !== undefined) {
    const text = (args.add ?? args.remove)!
    change = {kind: args.add !== undefined ? 'add' : 'remove', key, items: text.split(',').map((s) => s.trim()).filter(Boolean)}
  } else change = {kind: 'set', key, value: parseConfigValue(key, args.value!)}
  const done = await mutate(session, (snap, ctx) => changeConfig(snap, ctx, change))
  return {list: session.list, ...setting(key, done.result.value), previous: done.result.previous, commit: done.commit}
}
