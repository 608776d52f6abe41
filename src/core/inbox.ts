/**
 * The files behind roles, the actor registry, inbox records and reminder
 * latches: where they live on the ref, and how they are parsed and written
 * (deterministically, like task files). Pure: no git, no clock.
 *
 *   actors/<actor>.yaml               one name an actor is known by (preferences, last_seen, or alias_of)
 *   inbox/<actor>/<ts>-<h>.md         one record for one recipient, never changed once written
 *   inbox/<actor>/<ts>-<h>.seen       empty: that record was seen (add-only, so acks merge as a union)
 *   reminders/<actor>.yaml            the last digest `tasks remind` sent that owner
 *   reminders/cards/<id>.yaml         the streak a card was last escalated for
 */
import {createHash} from 'node:crypto'
import {validateActor, validateInbox, validateReminder} from '../generated/validators'
import {parseCanonical, parseFrontmatterYaml, serialiseFrontmatter, splitFrontmatter} from './frontmatter'
import {type Parsed, schemaError} from './task-file'
import {parseYamlStrictly} from './yaml-loader'

export const ACTORS_DIR = 'actors'
export const INBOX_DIR = 'inbox'
export const REMINDERS_DIR = 'reminders'

const PLAIN_NAME = /^[A-Za-z0-9_@+-][A-Za-z0-9._@+-]{0,99}$/

/**
 * The path component for an actor id: the id itself when it is a plain
 * name (letters, digits, `._@+-`, at most 100), otherwise `~` and a hash
 * of it (an id may hold `/`, spaces or any other character).
 */
export function actorSlug(actor: string): string {
  if (PLAIN_NAME.test(actor) && !actor.endsWith('.lock') && !actor.endsWith('.')) return actor
  return `~${createHash('sha256').update(actor).digest('hex').slice(0, 32)}`
}

export const actorPath = (actor: string): string => `${ACTORS_DIR}/${actorSlug(actor)}.yaml`
export const inboxDir = (actor: string): string => `${INBOX_DIR}/${actorSlug(actor)}`
export const recordPath = (actor: string, stem: string): string => `${inboxDir(actor)}/${stem}.md`
export const seenPath = (actor: string, stem: string): string => `${inboxDir(actor)}/${stem}.seen`
export const ownerLatchPath = (owner: string): string => `${REMINDERS_DIR}/${actorSlug(owner)}.yaml`
export const cardLatchPath = (id: string): string => `${REMINDERS_DIR}/cards/${id}.yaml`

/** A record's file stem: `<yyyymmddThhmmss.mmmZ>-<8 hex>`. */
export const RECORD_STEM_RE = /^\d{8}T\d{6}(?:\.\d{1,3})?Z-[0-9a-f]{8}$/


// ------------------------------------------------------------------ records

export interface InboxRecord {
  /** File stem, the id `inbox ack` takes. */
  id: string
  event: string
  task: string
  /** Every card the record is about (one or more). */
  tasks: string[]
  actor: string
  to: string
  created_at: string
  roles: string[]
  body: string
}

export function serialiseRecord(r: InboxRecord): string {
  const fields: Array<[string, unknown]> = [
    ['event', r.event],
    ['task', r.task],
    ['tasks', r.tasks.length > 1 ? r.tasks : undefined],
    ['actor', r.actor],
    ['to', r.to],
    ['created_at', r.created_at],
    ['roles', r.roles.length > 0 ? r.roles : undefined],
  ]
  return serialiseFrontmatter(fields, r.body)
}

export function parseRecord(text: string, id: string): Parsed<InboxRecord> {
  const split = splitFrontmatter(text)
  if ('error' in split) return {ok: false, error: split.error}
  const parsed = parseFrontmatterYaml(split.frontmatter)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  const f = parsed.fields as Record<string, unknown>
  if (!validateInbox(f)) return {ok: false, error: schemaError(validateInbox, 'file')}
  return {
    ok: true,
    value: {
      id,
      event: f.event as string,
      task: f.task as string,
      tasks: (f.tasks as string[] | undefined) ?? [f.task as string],
      actor: f.actor as string,
      to: f.to as string,
      created_at: f.created_at as string,
      roles: (f.roles as string[] | undefined) ?? [],
      body: split.body.replace(/\n$/, ''),
    },
  }
}

// ------------------------------------------------------------------ actors

export interface ActorEntry {
  id: string
  alias_of?: string
  mute?: string[]
  watch?: string[]
  last_seen?: string
}

const ACTOR_KEYS = ['id', 'alias_of', 'mute', 'watch', 'last_seen'] as const

/**
 * A small YAML mapping in the canonical style of task frontmatter
 * (double-quoted JSON strings, `key:` and `  - item` lists): deterministic,
 * and read back by the exact parser without loading the YAML library.
 */
function dump(map: Record<string, unknown>): string {
  const text = serialiseFrontmatter(Object.entries(map), '')
  return text.slice('---\n'.length, -'---\n'.length)
}

/** Parse such a mapping: the exact canonical reader first, the strict YAML parser for hand-edited files. */
export function parseMapping(text: string): {value: unknown} | {error: string} {
  const fast = parseCanonical(text)
  return fast ? {value: fast} : parseYamlStrictly(text)
}

export function serialiseActor(a: ActorEntry): string {
  const out: Record<string, unknown> = {}
  for (const k of ACTOR_KEYS) {
    const v = a[k]
    if (v === undefined || (Array.isArray(v) && v.length === 0)) continue
    out[k] = Array.isArray(v) ? [...v].sort() : v
  }
  return dump(out)
}

export function parseActor(text: string): Parsed<ActorEntry> {
  const parsed = parseMapping(text)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  if (!validateActor(parsed.value)) return {ok: false, error: schemaError(validateActor, 'file')}
  return {ok: true, value: parsed.value as ActorEntry}
}

// ------------------------------------------------------------------ reminder latches

export interface ReminderLatch {
  owner?: string
  last_digest?: string
  task?: string
  streak?: string
  escalated_at?: string
  /** Card latch: when digests that listed the card were sent (those of its current stale streak; merged as a set). */
  digests?: string[]
  /** Card latch: the stale streak (the time it counts from) the card was escalated to the operator for, and when. */
  operator_streak?: string
  operator_escalated_at?: string
}

export function serialiseLatch(l: ReminderLatch): string {
  const out: Record<string, unknown> = {}
  for (const k of ['owner', 'last_digest', 'task', 'streak', 'escalated_at', 'digests', 'operator_streak', 'operator_escalated_at'] as const) if (l[k] !== undefined) out[k] = l[k]
  return dump(out)
}

export function parseLatch(text: string): Parsed<ReminderLatch> {
  const parsed = parseMapping(text)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  if (!validateReminder(parsed.value ?? {})) return {ok: false, error: schemaError(validateReminder, 'file')}
  return {ok: true, value: (parsed.value ?? {}) as ReminderLatch}
}

/** Paths the max/set merge of src/merge handles (actor entries and reminder latches). */
export const RECORD_MAP_RE = /^(actors\/[^/]+\.yaml|reminders\/([^/]+|cards\/[^/]+)\.yaml)$/
