/**
 * Use cases of roles, the actor registry, the inbox and reminders: `collab`,
 * `watch`/`unwatch`, `notify`, `actor list|add|alias`, `inbox`, `inbox ack`,
 * `stale` and `remind`. Reads come from the list's tree at the tip (only the
 * directories a command needs: one actor's inbox, the entries of a few
 * names); changes are pure ops (core/ops/roles.ts, actors.ts, remind.ts)
 * through the one transaction, which adds the inbox records of each change.
 */
import {NotFoundError, UsageError} from '../core/errors'
import {type ActorEntry, ACTORS_DIR, type InboxRecord, RECORD_STEM_RE, type ReminderLatch, inboxDir, parseActor, parseLatch, parseRecord} from '../core/inbox'
import {canonicalActor, lastSeenChange} from '../core/notify'
import {type ActorPrefs, ackRecords, addActor, aliasActor} from '../core/ops/actors'
import {type RemindInput, type RemindResult, type StaleGroup, remind, remindLatchPaths, remindNames, staleGroups} from '../core/ops/remind'
import {changeCollaborator, changeWatch, setCardNotify} from '../core/ops/roles'
import type {Plan} from '../core/plan'
import type {TaskMeta} from '../core/task'
import type {TaskView} from '../core/task-view'
import type {ListStore, Loaded} from '../refstore/list-store'
import {readRegistry} from './inbox-hook'
import type {Session} from './session'
import {viewer} from './task-results'
import {mutate, type Op} from './transaction'

export interface RoleResult {
  task: TaskView
  commit: string | null
}

async function mutateCard(session: Session, op: Op<{task: TaskMeta}>): Promise<RoleResult> {
  const done = await mutate(session, op)
  const v = await viewer(session, done.after)
  return {task: v.view(done.after.tasks.get(done.result.task.id)?.meta ?? done.result.task), commit: done.commit}
}

/** `collab add|rm ID ACTOR`. */
export function collab(session: Session, {id, actor, remove = false}: {id: string; actor: string; remove?: boolean}): Promise<RoleResult> {
  return mutateCard(session, (s, c) => changeCollaborator(s, c, {id, actor, remove}))
}

/** `watch ID` (watch: true) / `unwatch ID [--mute]` (watch: false). */
export function watch(session: Session, {id, watch, mute = false}: {id: string; watch: boolean; mute?: boolean}): Promise<RoleResult> {
  return mutateCard(session, (s, c) => changeWatch(s, c, {id, watch, mute}))
}

/** `notify ID RULE…` / `notify ID --clear` (no rules). */
export function notify(session: Session, {id, rules}: {id: string; rules: string[]}): Promise<RoleResult> {
  return mutateCard(session, (s, c) => setCardNotify(s, c, {id, rules}))
}

// ---------------------------------------------------------------- actors

export interface ActorInfo {
  id: string
  aliases: string[]
  mute: string[]
  watch: string[]
  last_seen: string | null
}

export interface ActorListResult {
  actors: ActorInfo[]
  broken: Array<{path: string; error: string}>
}

/** Every registry entry (the only command that reads them all). */
async function allEntries(store: ListStore, rootTree: string): Promise<{entries: ActorEntry[]; broken: Array<{path: string; error: string}>}> {
  const listing = (await store.treeAt(rootTree, ACTORS_DIR)) ?? []
  const names = listing.map((e) => e.name).filter((n) => n.endsWith('.yaml'))
  const texts = await store.readFilesIn(rootTree, ACTORS_DIR, names)
  const entries: ActorEntry[] = []
  const broken: Array<{path: string; error: string}> = []
  for (const name of names) {
    const text = texts.get(name)
    const parsed = text === undefined ? {ok: false as const, error: 'not a readable file'} : parseActor(text)
    if (parsed.ok) entries.push(parsed.value)
    else broken.push({path: `${ACTORS_DIR}/${name}`, error: parsed.error})
  }
  return {entries, broken}
}

function infoOf(entry: ActorEntry, aliases: string[]): ActorInfo {
  return {id: entry.id, aliases: aliases.sort(), mute: entry.mute ?? [], watch: entry.watch ?? [], last_seen: entry.last_seen ?? null}
}

/** `actor list`: canonical actors with their aliases, preferences and last_seen. */
export async function actorList(session: Session): Promise<ActorListResult> {
  const loaded = await session.store.load()
  const {entries, broken} = await allEntries(session.store, loaded.index.rootTree)
  const aliases = new Map<string, string[]>()
  for (const e of entries) if (e.alias_of) aliases.set(e.alias_of, [...(aliases.get(e.alias_of) ?? []), e.id])
  const canonical = entries.filter((e) => !e.alias_of)
  // An alias whose actor has no entry of its own still lists that actor.
  for (const target of aliases.keys()) if (!canonical.some((e) => e.id === target)) canonical.push({id: target})
  canonical.sort((a, b) => (a.id < b.id ? -1 : 1))
  return {actors: canonical.map((e) => infoOf(e, aliases.get(e.id) ?? [])), broken}
}

export interface ActorChangeResult {
  actor: ActorInfo
  commit: string | null
}

/** `actor add ID [--aliases A]… [--mute E]…`: aliases are added one commit each after the entry. */
export async function actorAdd(session: Session, {id, aliases = [], ...prefs}: {id: string; aliases?: string[]} & ActorPrefs): Promise<ActorChangeResult> {
  let entries = new Map<string, ActorEntry>()
  const prepare = async (store: ListStore, loaded: Loaded): Promise<void> => {
    entries = await readRegistry(store, loaded.index.rootTree, [id])
  }
  const done = await mutate(session, (s, c) => addActor(s, c, {id, prefs, entries}), prepare)
  let commit = done.commit
  for (const alias of aliases) {
    const r = await actorAlias(session, {id, alias})
    commit = r.commit ?? commit
  }
  return {actor: await actorInfo(session, done.result.actor.id), commit}
}

/** `actor alias ID ALIAS [--remove]`. */
export async function actorAlias(session: Session, {id, alias, remove = false}: {id: string; alias: string; remove?: boolean}): Promise<ActorChangeResult> {
  let entries = new Map<string, ActorEntry>()
  let aliasesOfAlias: string[] = []
  const prepare = async (store: ListStore, loaded: Loaded): Promise<void> => {
    const {entries: all} = await allEntries(store, loaded.index.rootTree)
    entries = new Map(all.map((e) => [e.id, e]))
    aliasesOfAlias = all.filter((e) => e.alias_of === alias).map((e) => e.id)
  }
  const done = await mutate(session, (s, c) => aliasActor(s, c, {id, alias, remove, entries, aliasesOfAlias}), prepare)
  return {actor: await actorInfo(session, done.result.actor.id), commit: done.commit}
}

async function actorInfo(session: Session, id: string): Promise<ActorInfo> {
  const list = await actorList(session)
  return list.actors.find((a) => a.id === id) ?? {id, aliases: [], mute: [], watch: [], last_seen: null}
}

// ---------------------------------------------------------------- inbox

/** last_seen moves on an inbox read at most this often (each move is a commit). */
export const INBOX_SEEN_REFRESH_MS = 15 * 60_000

export interface InboxEntry extends Omit<InboxRecord, 'to'> {
  seen: boolean
}

export interface InboxResult {
  /** The canonical actor whose inbox this is (aliases folded). */
  actor: string
  records: InboxEntry[]
  /** Records not yet seen (all of them, whatever --all). */
  unseen: number
  total: number
  broken: Array<{path: string; error: string}>
}

interface Listing {
  actor: string
  registry: Map<string, ActorEntry>
  records: string[]
  seen: Set<string>
  rootTree: string
}

async function listInbox(session: Session, as?: string): Promise<Listing> {
  const loaded = await session.store.load()
  const name = as ?? (await session.actor())
  const registry = await readRegistry(session.store, loaded.index.rootTree, [name])
  const actor = canonicalActor(name, registry)
  const entries = (await session.store.treeAt(loaded.index.rootTree, inboxDir(actor))) ?? []
  const records: string[] = []
  const seen = new Set<string>()
  for (const e of entries) {
    if (e.name.endsWith('.md')) records.push(e.name.slice(0, -3))
    else if (e.name.endsWith('.seen')) seen.add(e.name.slice(0, -5))
  }
  records.sort()
  return {actor, registry, records, seen, rootTree: loaded.index.rootTree}
}

/** `inbox [--all]`: the actor's unseen records (every record with --all), oldest first, newest last. */
export async function inbox(session: Session, options: {all?: boolean; as?: string}): Promise<InboxResult> {
  const l = await listInbox(session, options.as)
  const wanted = options.all ? l.records : l.records.filter((r) => !l.seen.has(r))
  const texts = await session.store.readFilesIn(l.rootTree, inboxDir(l.actor), wanted.map((r) => `${r}.md`))
  const records: InboxEntry[] = []
  const broken: Array<{path: string; error: string}> = []
  for (const stem of wanted) {
    const path = `${inboxDir(l.actor)}/${stem}.md`
    const text = texts.get(`${stem}.md`)
    const parsed = text === undefined ? {ok: false as const, error: 'not a readable file'} : parseRecord(text, stem)
    if (!parsed.ok) {
      broken.push({path, error: parsed.error})
      continue
    }
    const {to: _to, ...rest} = parsed.value
    records.push({...rest, seen: l.seen.has(stem)})
  }
  await touchLastSeen(session, l)
  return {actor: l.actor, records, unseen: l.records.filter((r) => !l.seen.has(r)).length, total: l.records.length, broken}
}

/** An inbox read counts as being seen: last_seen moves when older than INBOX_SEEN_REFRESH_MS (best effort, never fails the read). */
async function touchLastSeen(session: Session, l: Listing): Promise<void> {
  const now = session.now()
  if (!lastSeenChange([], l.actor, now, l.registry, INBOX_SEEN_REFRESH_MS)) return
  // Online, a write would be a fetch and a push inside a read (and wait out the network's deadline
  // when the remote is down): there, `inbox ack` and every other change move last_seen instead.
  if (await session.remote()) return
  try {
    await mutate(session, (_s, ctx): Plan<null> => {
      const change = lastSeenChange([], l.actor, ctx.now, l.registry, INBOX_SEEN_REFRESH_MS)
      return {op: 'seen', summary: l.actor, changes: change ? [change] : [], trailers: [], result: null}
    })
  } catch {
    // A read stays a read: a lost race or an unreachable remote only means last_seen waits for the next command.
  }
  session.wrote = null
}

export interface AckResult {
  actor: string
  acked: string[]
  commit: string | null
}

/** `inbox ack ID…` (a record's file stem, its 8-hex suffix, or a unique prefix) or `--all`. */
export async function inboxAck(session: Session, {ids = [], all = false, as}: {ids?: string[]; all?: boolean; as?: string}): Promise<AckResult> {
  if (!all && ids.length === 0) throw new UsageError('name the records to mark seen (ID…), or pass --all')
  if (all && ids.length > 0) throw new UsageError('pass record IDs or --all, not both')
  const l = await listInbox(session, as)
  let stems: string[]
  if (all) stems = l.records.filter((r) => !l.seen.has(r))
  else stems = ids.map((id) => resolveRecord(l.records, id)).filter((s) => !l.seen.has(s))
  const done = await mutate(session, (s, c) => ackRecords(s, c, {actor: l.actor, stems}))
  return {actor: l.actor, acked: done.result.acked, commit: done.commit}
}

function resolveRecord(records: readonly string[], input: string): string {
  const id = input.trim().replace(/\.md$/, '')
  if (RECORD_STEM_RE.test(id) && records.includes(id)) return id
  const hits = records.filter((r) => r.startsWith(id) || (id.length >= 4 && /^[0-9a-f]+$/.test(id) && r.slice(r.lastIndexOf('-') + 1).startsWith(id)))
  if (hits.length === 1) return hits[0]!
  if (hits.length > 1) throw new UsageError(`"${input}" matches ${hits.length} inbox records; give more of the id`, {id: input, matches: hits.slice(0, 10)}, 'ambiguous_id')
  throw new NotFoundError('record_not_found', `no inbox record "${input}" here (see \`tasks inbox --all\`)`, {id: input})
}

// ---------------------------------------------------------------- stale and remind

export interface StaleResult {
  older_than_seconds: number
  groups: StaleGroup[]
  total: number
}

/** `stale [--older-than D]` (olderThan in seconds). */
export async function stale(session: Session, {olderThan}: {olderThan?: number} = {}): Promise<StaleResult> {
  const loaded = await session.store.load()
  const older = olderThan ?? loaded.snapshot.config.stale_after_seconds
  const groups = staleGroups(loaded.snapshot, session.now(), older)
  return {older_than_seconds: older, groups, total: groups.reduce((n, g) => n + g.items.length, 0)}
}

export interface RemindOutput extends RemindResult {
  older_than_seconds: number
  commit: string | null
}

/** `remind [--older-than D]`: digests and escalations, latched on the ref. */
export async function remindOwners(session: Session, {olderThan}: {olderThan?: number} = {}): Promise<RemindOutput> {
  const actor = await session.actor()
  let input: RemindInput | undefined
  // Latches and registry entries are read from the very commit the op runs on (also online, and again after a lost race).
  const prepare = async (store: ListStore, loaded: Loaded): Promise<void> => {
    const older = olderThan ?? loaded.snapshot.config.stale_after_seconds
    const groups = staleGroups(loaded.snapshot, session.now(), older)
    const registry = await readRegistry(store, loaded.index.rootTree, [...remindNames(groups, loaded.snapshot.config), actor])
    const latches = new Map<string, ReminderLatch>()
    const byDir = new Map<string, string[]>()
    for (const p of remindLatchPaths(groups, registry, loaded.snapshot.config)) {
      const dir = p.slice(0, p.lastIndexOf('/'))
      byDir.set(dir, [...(byDir.get(dir) ?? []), p.slice(p.lastIndexOf('/') + 1)])
    }
    for (const [dir, names] of byDir) {
      for (const [name, text] of await store.readFilesIn(loaded.index.rootTree, dir, names)) {
        const parsed = parseLatch(text)
        if (parsed.ok) latches.set(`${dir}/${name}`, parsed.value)
      }
    }
    input = {olderThanSeconds: older, registry, latches}
  }
  const done = await mutate(session, (s, c) => remind(s, c, input!), prepare)
  return {...done.result, older_than_seconds: input!.olderThanSeconds, commit: done.commit}
}
