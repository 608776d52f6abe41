/**
 * Task ids, named like git names objects: a long stored id that clones
 * creating items offline will not collide on, and the shortest unique prefix
 * for people and agents to read and type.
 *
 * Stored id: `tsk-` + 10 characters of lowercase Crockford base32 (50 bits)
 * taken from a SHA-256 digest of a seed. The seed is random entropy handed in
 * by the caller, or the list name and an idempotency key (same key, same id).
 * When the 10-character id is already taken by a different task, the id is
 * extended one character at a time from the same digest.
 *
 * Pure: no randomness or I/O here; callers pass the entropy in.
 */
import {createHash, hash} from 'node:crypto'
import {EnvironmentError, NotFoundError, UsageError} from './errors'
import {partitionPoint} from './order'

export const ID_PREFIX = 'tsk-'
export const ID_BODY_LENGTH = 10
export const MIN_PREFIX = 4
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
const BODY_RE = /^[0-9a-hjkmnp-tv-z]+$/
const STORED_ID_RE = /^tsk-[0-9a-hjkmnp-tv-z]{10,26}$/

/** Base32 (Crockford, lowercase) of a byte buffer, most significant bits first. */
export function base32(bytes: Uint8Array): string {
  let out = ''
  let acc = 0
  let bits = 0
  for (const byte of bytes) {
    acc = (acc << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(acc >>> (bits - 5)) & 31]
      bits -= 5
    }
    acc &= (1 << bits) - 1
  }
  if (bits > 0) out += ALPHABET[(acc << (5 - bits)) & 31]
  return out
}

/** Digests of one seed tried before giving up (each gives 17 candidates). */
const SEED_ROUNDS = 64

/**
 * The id body candidates for a seed: 10 characters, then longer ones for
 * collisions; then the same from the seed with a round number, should
 * `taken` refuse them all (it also refuses ids whose shard the ref cannot
 * hold: Snapshot.blockedShards). Deterministic in the seed and `taken`.
 */
export function idFromSeed(seed: string, taken: (id: string) => boolean): string {
  for (let round = 0; round < SEED_ROUNDS; round++) {
    const digest = base32(createHash('sha256').update(round === 0 ? seed : `${seed}\0${round}`).digest())
    for (let len = ID_BODY_LENGTH; len <= 26; len++) {
      const id = ID_PREFIX + digest.slice(0, len)
      if (!taken(id)) return id
    }
  }
  // Reached only when nearly every shard is held by something other than a directory (tasks doctor lists them).
  throw new EnvironmentError('tree_conflict', `no new task id fits this list: ${SEED_ROUNDS * (27 - ID_BODY_LENGTH)} candidates were taken or fall in shards the ref holds as something other than a directory (run \`tasks doctor\`)`)
}

/** Seed for an idempotent create: same list and key always give the same id. */
export function keyedSeed(list: string, key: string): string {
  return `key\0${list}\0${key}`
}

/** True if `id` is a well-formed stored id. */
export function isStoredId(id: string): boolean {
  return STORED_ID_RE.test(id)
}

/**
 * SHA-1 in hex: `crypto.hash` where Node has it (20.12 and later), a third
 * of the cost of a Hash object; a cold index build checks the shard of
 * every card's name (100,000 at a time).
 */
const sha1Hex: (text: string) => string =
  typeof hash === 'function' ? (text) => hash('sha1', text, 'hex') : (text) => createHash('sha1').update(text).digest('hex')

/**
 * The fan-out directory of a task: two hex characters of the SHA-1 of its id
 * (256 shards). Hashing spreads ids evenly whatever their characters, and 256
 * keeps the `tasks/` tree small (~7 KB) so one mutation writes little.
 */
export function shardOf(id: string): string {
  return sha1Hex(id).slice(0, 2)
}

/** Path of a task's directory on the ref. */
export function taskDir(id: string): string {
  return `tasks/${shardOf(id)}/${id}`
}

/**
 * Normalise what a user typed into an id body prefix. Accepts `tsk-abcd`,
 * `TSK-ABCD` and `abcd`. Anything else (paths, spaces, other letters) can
 * never name a task: it is not found (exit 3, code `bad_id`, as an unknown
 * id is), and nothing is looked up. A prefix too short to look up is a
 * usage error (exit 2, `id_too_short`): type more of it.
 */
export function normaliseIdInput(input: string): string {
  const trimmed = input.trim().toLowerCase()
  const body = trimmed.startsWith(ID_PREFIX) ? trimmed.slice(ID_PREFIX.length) : trimmed
  if (body.length === 0 || body.length > 26 || !BODY_RE.test(body)) {
    throw new NotFoundError('bad_id', `no task matches "${input}": it is not a task id (ids look like ${ID_PREFIX}k3v9, letters and digits of base32)`, {input})
  }
  if (body.length < MIN_PREFIX) {
    throw new UsageError(`"${input}" is too short: type at least ${MIN_PREFIX} characters of an id`, {input}, 'id_too_short')
  }
  return ID_PREFIX + body
}

/**
 * How lookups reach a list's ids without every id being in memory: the
 * snapshot's tables answer it (the store from its sorted index).
 */
export interface PrefixSearch {
  /** Sorted stored ids that start with `prefix`, at most `limit` of them. */
  idsWithPrefix(prefix: string, limit: number): readonly string[]
}

/** Index of the first id ≥ `key` in a sorted array. */
export function lowerBound(sortedIds: readonly string[], key: string): number {
  return partitionPoint(0, sortedIds.length, (i) => sortedIds[i]! < key)
}

/** Ids of a sorted array that start with `prefix`, at most `limit`. */
export function idsWithPrefixIn(sortedIds: readonly string[], prefix: string, limit: number): string[] {
  const out: string[] = []
  for (let i = lowerBound(sortedIds, prefix); i < sortedIds.length && out.length < limit && sortedIds[i]!.startsWith(prefix); i++) {
    out.push(sortedIds[i]!)
  }
  return out
}

const MAX_CANDIDATES = 20

/**
 * Resolve a typed id or prefix against the ids of a list.
 * Unknown → not found (3); ambiguous → usage (2) listing the candidates.
 */
export function resolveId(input: string, search: PrefixSearch): string {
  const prefix = normaliseIdInput(input)
  const matches = search.idsWithPrefix(prefix, MAX_CANDIDATES + 1)
  // An exact id sorts before every longer id it prefixes.
  if (matches[0] === prefix || matches.length === 1) return matches[0]!
  if (matches.length === 0) throw new NotFoundError('task_not_found', `no task matches "${input}"`, {input})
  throw new UsageError(`"${input}" is ambiguous: it matches ${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', …' : ''}`, {
    input,
    candidates: matches.slice(0, MAX_CANDIDATES),
  }, 'ambiguous_id')
}

/** Shortest unique prefix of a stored id (at least MIN_PREFIX characters of body). */
export function shortIdOf(search: PrefixSearch, id: string): string {
  for (let len = ID_PREFIX.length + MIN_PREFIX; len < id.length; len++) {
    const prefix = id.slice(0, len)
    const found = search.idsWithPrefix(prefix, 2)
    if (found.length === 1 && found[0] === id) return prefix
  }
  return id
}

/** Length of the common prefix of two strings. */
function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/**
 * `shortIdOf` of `id` given its neighbours in the sorted ids (undefined at
 * either end): one character longer than what it shares with either, as
 * `shortIdsOf` works it out, for one id at a time.
 */
export function shortIdBetween(prev: string | undefined, id: string, next: string | undefined): string {
  const len = Math.max(ID_PREFIX.length + MIN_PREFIX, prev === undefined ? 0 : commonPrefix(prev, id) + 1, next === undefined ? 0 : commonPrefix(id, next) + 1)
  return len < id.length ? id.slice(0, len) : id
}

/**
 * `shortIdOf` for every id at once, in one pass over the sorted ids: an id's
 * shortest unique prefix is one character longer than what it shares with
 * either neighbour (the same answer as the per-id prefix search, which costs
 * a search per length tried).
 */
export function shortIdsOf(sortedIds: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  const min = ID_PREFIX.length + MIN_PREFIX
  let prevShared = 0
  for (let i = 0; i < sortedIds.length; i++) {
    const id = sortedIds[i]!
    const next = sortedIds[i + 1]
    const nextShared = next === undefined ? 0 : commonPrefix(id, next)
    const len = Math.max(min, prevShared + 1, nextShared + 1)
    out.set(id, len < id.length ? id.slice(0, len) : id)
    prevShared = nextShared
  }
  return out
}
