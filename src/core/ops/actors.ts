/**
 * The actor registry (`actors/<a>.yaml`) and the inbox's "seen" markers, as
 * pure ops. The registry entries an op needs are read by the app layer and
 * passed in (`entries`); each entry is a small file merged per key, so a
 * concurrent change elsewhere never conflicts with these.
 *
 * - `actor add ID`: create or update ID's entry (mute/watch preferences).
 * - `actor alias ID ALIAS`: ALIAS's entry names ID (`alias_of`), so records
 *   for ALIAS go to ID's inbox and ID's preferences apply; ALIAS's own
 *   last_seen folds into ID's. `--remove` makes ALIAS a name of its own again.
 * - `inbox ack`: one empty `<stem>.seen` file per record (add-only).
 */
import {ConflictError, UsageError} from '../errors'
import {type ActorEntry, actorPath, seenPath, serialiseActor} from '../inbox'
import type {Change, OpContext, Plan} from '../plan'
import type {Snapshot} from '../snapshot'
import {checkActor} from '../validation'
import {splitValues} from '../flag-values'

const EVENT_RE = /^([a-z][a-z0-9_-]{0,63}|\*)$/

function checkEvents(events: readonly string[]): string[] {
  const out = splitValues(events)
  const bad = out.find((e) => !EVENT_RE.test(e))
  if (bad !== undefined) throw new UsageError(`"${bad}" is not an event name: use an op name such as comment, done or claim, or *`, {event: bad}, 'usage')
  return out
}

export interface ActorPrefs {
  mute?: string[]
  unmute?: string[]
  watch?: string[]
  unwatch?: string[]
}

export interface ActorResult {
  actor: ActorEntry
  aliases_changed: string[]
}

function put(entry: ActorEntry): Change {
  return {kind: 'put-file', path: actorPath(entry.id), content: serialiseActor(entry)}
}

function sorted(values: Iterable<string>): string[] | undefined {
  const out = [...new Set(values)].sort()
  return out.length > 0 ? out : undefined
}

/** `actor add ID [--mute E]… [--watch E]…`: the entry with its preferences changed. */
export function addActor(_snap: Snapshot, ctx: OpContext, args: {id: string; prefs: ActorPrefs; entries: ReadonlyMap<string, ActorEntry>}): Plan<ActorResult> {
  const id = checkActor(args.id)
  const current = args.entries.get(id)
  if (current?.alias_of) {
    throw new ConflictError('alias_conflict', `${id} is an alias of ${current.alias_of}; change ${current.alias_of} instead, or \`tasks actor alias ${current.alias_of} ${id} --remove\` first`, {actor: id, alias_of: current.alias_of})
  }
  const mute = new Set(current?.mute ?? [])
  const watch = new Set(current?.watch ?? [])
  for (const e of checkEvents(args.prefs.mute ?? [])) mute.add(e)
  for (const e of checkEvents(args.prefs.unmute ?? [])) mute.delete(e)
  for (const e of checkEvents(args.prefs.watch ?? [])) watch.add(e)
  for (const e of checkEvents(args.prefs.unwatch ?? [])) watch.delete(e)
  const entry: ActorEntry = {id, mute: sorted(mute), watch: sorted(watch), last_seen: current?.last_seen}
  if (id === ctx.actor) entry.last_seen = ctx.now
  const changes = current && serialiseActor(current) === serialiseActor(entry) ? [] : [put(entry)]
  return {op: 'actor', summary: `${current ? 'update' : 'add'} ${id}`, changes, trailers: [['Tasks-Actor', id]], result: {actor: entry, aliases_changed: []}}
}

/**
 * `actor alias ID ALIAS [--remove]`. `entries` holds the entries of ID, of
 * its canonical actor, of ALIAS, and `aliasesOfAlias`: names whose entries
 * say alias_of ALIAS (ALIAS cannot become an alias while others point at it).
 */
export function aliasActor(
  _snap: Snapshot,
  ctx: OpContext,
  args: {id: string; alias: string; remove?: boolean; entries: ReadonlyMap<string, ActorEntry>; aliasesOfAlias: readonly string[]},
): Plan<ActorResult> {
  const named = checkActor(args.id)
  const alias = checkActor(args.alias, 'alias')
  const target = args.entries.get(named)?.alias_of ?? named
  const targetEntry: ActorEntry = args.entries.get(target) ?? {id: target}
  const aliasEntry = args.entries.get(alias)
  const summary = `${args.remove ? 'unalias' : 'alias'} ${alias} ${args.remove ? 'from' : '→'} ${target}`
  if (alias === target) throw new UsageError(`${alias} is ${target} itself`, {actor: target, alias}, 'usage')
  if (args.remove) {
    if (aliasEntry?.alias_of !== target) return {op: 'actor', summary, changes: [], trailers: [], result: {actor: targetEntry, aliases_changed: []}}
    const freed: ActorEntry = {id: alias, last_seen: aliasEntry.last_seen}
    return {op: 'actor', summary, changes: [put(freed)], trailers: [['Tasks-Actor', target], ['Tasks-Alias', `-${alias}`]], result: {actor: targetEntry, aliases_changed: [alias]}}
  }
  if (aliasEntry?.alias_of === target) return {op: 'actor', summary, changes: [], trailers: [], result: {actor: targetEntry, aliases_changed: []}}
  if (aliasEntry?.alias_of) {
    throw new ConflictError('alias_conflict', `${alias} is already an alias of ${aliasEntry.alias_of}; run \`tasks actor alias ${aliasEntry.alias_of} ${alias} --remove\` first`, {alias, alias_of: aliasEntry.alias_of})
  }
  if (args.aliasesOfAlias.length > 0) {
    throw new ConflictError('alias_conflict', `${alias} has aliases of its own (${args.aliasesOfAlias.join(', ')}); alias those to ${target} or remove them first`, {alias, aliases: [...args.aliasesOfAlias]})
  }
  // The alias's own history folds into the canonical entry: the later last_seen, both sets of preferences.
  const merged: ActorEntry = {
    ...targetEntry,
    id: target,
    mute: sorted([...(targetEntry.mute ?? []), ...(aliasEntry?.mute ?? [])]),
    watch: sorted([...(targetEntry.watch ?? []), ...(aliasEntry?.watch ?? [])]),
    last_seen: [targetEntry.last_seen, aliasEntry?.last_seen].filter((t): t is string => !!t).sort().pop(),
  }
  if (target === ctx.actor || alias === ctx.actor) merged.last_seen = ctx.now
  const changes: Change[] = [put({id: alias, alias_of: target})]
  if (serialiseActor(merged) !== serialiseActor(args.entries.get(target) ?? {id: target})) changes.push(put(merged))
  return {op: 'actor', summary, changes, trailers: [['Tasks-Actor', target], ['Tasks-Alias', `+${alias}`]], result: {actor: merged, aliases_changed: [alias]}}
}

/** `inbox ack`: a seen marker for each record not yet seen (records are never changed or removed). */
export function ackRecords(_snap: Snapshot, _ctx: OpContext, args: {actor: string; stems: readonly string[]}): Plan<{acked: string[]}> {
  const stems = [...new Set(args.stems)].sort()
  return {
    op: 'ack',
    summary: `${stems.length} inbox record${stems.length === 1 ? '' : 's'} of ${args.actor}`,
    changes: stems.map((s) => ({kind: 'put-file', path: seenPath(args.actor, s), content: ''})),
    trailers: [['Tasks-Inbox', args.actor]],
    result: {acked: stems},
  }
}
