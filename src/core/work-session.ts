/**
 * Coordination sessions (docs/model.md, "Coordination sessions"): the
 * user's demand, the strategy and the progress of one piece of work across
 * tasks, turns and agents. Records on the ref beside the cards:
 *
 *   sessions/<xx>/<id>/session.md                   frontmatter + the description
 *   sessions/<xx>/<id>/checkpoints/<ts>-<h>.md      one checkpoint per file
 *
 * Not to be confused with the agent-run label (`--session` on a claim,
 * TASKS_SESSION, `release --session`): that is a free name of one agent's
 * run, recorded on its live claims; a coordination session is a record with
 * an id (`ses-…`) that tasks belong to (`work_session` on the card). The
 * class Session of src/app/session.ts is a third thing: one invocation's
 * context. Values only; no I/O.
 */
import {createHash} from 'node:crypto'
import {validateSession, validateSessionCheckpoint} from '../generated/validators'
import {parseFrontmatterYaml, serialiseFrontmatter, splitFrontmatter} from './frontmatter'
import {base32, shardOf} from './ids'
import {claimLiveAt, leaseEndMs} from './readiness'
import type {ListConfig} from './task'
import {type Parsed, schemaError} from './task-file'
import {FORBIDDEN_KEYS} from './yaml-loader'

export const SESSION_ID_PREFIX = 'ses-'
export const SESSIONS_DIR = 'sessions'
export const SESSION_FILE = 'session.md'
export const SESSION_CHECKPOINTS_DIR = 'checkpoints'

export const SESSION_STATES = ['open', 'in_progress', 'completed', 'cancelled'] as const
export type SessionState = (typeof SESSION_STATES)[number]
/** States after which a session takes no new tasks and no owner writes. */
export const SESSION_TERMINAL: ReadonlySet<string> = new Set(['completed', 'cancelled'])

export const SESSION_CHECKPOINT_KINDS = ['checkpoint', 'release', 'complete', 'merge'] as const
export type SessionCheckpointKind = (typeof SESSION_CHECKPOINT_KINDS)[number]

/** A stored session id: `ses-` + 10 to 26 base32 characters (the alphabet of task ids). */
export const SESSION_ID_RE = /^ses-[0-9a-hjkmnp-tv-z]{10,26}$/

/** One session's frontmatter and description. Field order here is the order in the file. */
export interface WorkSession {
  id: string
  title: string
  state: SessionState
  strategy: string
  owner?: string
  epoch: number
  claimed_at?: string
  lease_expires?: string
  /** The specification revision: 1 at creation, +1 on every revise. */
  revision: number
  revised_at?: string
  revised_by?: string
  revise_reason?: string
  summary?: string
  cancel_reason?: string
  closed_at?: string
  created_at: string
  created_by: string
  updated_at: string
  updated_by: string
  /** The user's demand (the file's body). */
  description: string
  /** Frontmatter keys this version does not know; kept verbatim. */
  extra?: Record<string, unknown>
}

export const SESSION_KEYS = [
  'id', 'title', 'state', 'strategy', 'owner', 'epoch', 'claimed_at', 'lease_expires', 'revision', 'revised_at', 'revised_by', 'revise_reason',
  'summary', 'cancel_reason', 'closed_at', 'created_at', 'created_by', 'updated_at', 'updated_by',
] as const
const KNOWN: ReadonlySet<string> = new Set(SESSION_KEYS)

export interface SessionCheckpoint {
  /** File stem `<yyyymmddThhmmss.mmmZ>-<8 hex>`: sorts by time. */
  id: string
  session: string
  kind: SessionCheckpointKind
  author: string
  created_at: string
  epoch: number
  /** What is done (the file's body). */
  summary: string
  next?: string
}

export const sessionDir = (id: string): string => `${SESSIONS_DIR}/${shardOf(id)}/${id}`
export const sessionFilePath = (id: string): string => `${sessionDir(id)}/${SESSION_FILE}`
export const sessionCheckpointPath = (session: string, stem: string): string => `${sessionDir(session)}/${SESSION_CHECKPOINTS_DIR}/${stem}.md`

/** `sessions/<xx>/<id>/session.md` → the id; checkpoints → {session, stem}. */
export const SESSION_FILE_RE = /^sessions\/[0-9a-f]{2}\/(ses-[0-9a-hjkmnp-tv-z]{10,26})\/session\.md$/
export const SESSION_CHECKPOINT_RE = /^sessions\/[0-9a-f]{2}\/(ses-[0-9a-hjkmnp-tv-z]{10,26})\/checkpoints\/([^/]+)\.md$/

export function isSessionId(text: string): boolean {
  return SESSION_ID_RE.test(text)
}

/** A new session's id from the call's entropy, avoiding `taken` ids. */
export function newSessionId(entropy: string, taken: (id: string) => boolean): string {
  for (let round = 0; ; round++) {
    const id = SESSION_ID_PREFIX + base32(createHash('sha256').update(`session\0${entropy}\0${round}`).digest()).slice(0, 10)
    if (!taken(id)) return id
  }
}

/** Is the session's claim live at `now` (owner set, in progress, lease not expired beyond the skew)? */
export function sessionClaimLive(s: Pick<WorkSession, 'owner' | 'state' | 'lease_expires'>, now: string, config: Pick<ListConfig, 'clock_skew_seconds'>): boolean {
  return claimLiveAt(s.owner, s.state === 'in_progress' ? 'in_progress' : s.state, leaseEndMs(s.lease_expires), Date.parse(now), config)
}


/** Parse session.md; `expectedId` is the directory it was found in. */
export function parseSessionFile(text: string, expectedId?: string): Parsed<WorkSession> {
  const split = splitFrontmatter(text)
  if ('error' in split) return {ok: false, error: split.error}
  const parsed = parseFrontmatterYaml(split.frontmatter)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  const fields = parsed.fields as Record<string, unknown>
  if (!validateSession(fields)) return {ok: false, error: schemaError(validateSession)}
  if (expectedId !== undefined && fields.id !== expectedId) return {ok: false, error: `id "${String(fields.id)}" does not match its directory ${expectedId}`}
  const out: Record<string, unknown> = {}
  const extra: Record<string, unknown> = {}
  for (const k of Object.keys(fields)) {
    if (FORBIDDEN_KEYS.has(k)) return {ok: false, error: 'the key __proto__ is not allowed'}
    if (KNOWN.has(k)) out[k] = fields[k]
    else extra[k] = fields[k]
  }
  if (Object.keys(extra).length > 0) out.extra = extra
  out.description = split.body.replace(/\n$/, '')
  return {ok: true, value: out as unknown as WorkSession}
}

export function serialiseSession(s: WorkSession): string {
  const fields: Array<[string, unknown]> = SESSION_KEYS.map((k) => [k, s[k]])
  if (s.extra) for (const k of Object.keys(s.extra).sort()) fields.push([k, s.extra[k]])
  return serialiseFrontmatter(fields, s.description)
}

export function parseSessionCheckpoint(text: string, session: string, id: string): Parsed<SessionCheckpoint> {
  const split = splitFrontmatter(text)
  if ('error' in split) return {ok: false, error: split.error}
  const parsed = parseFrontmatterYaml(split.frontmatter)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  const f = parsed.fields as Record<string, unknown>
  if (!validateSessionCheckpoint(f)) return {ok: false, error: schemaError(validateSessionCheckpoint)}
  return {
    ok: true,
    value: {
      id,
      session,
      kind: f.kind as SessionCheckpointKind,
      author: f.author as string,
      created_at: f.created_at as string,
      epoch: f.epoch as number,
      summary: split.body.replace(/\n$/, ''),
      ...(typeof f.next === 'string' ? {next: f.next} : {}),
    },
  }
}

export function serialiseSessionCheckpoint(c: SessionCheckpoint): string {
  return serialiseFrontmatter(
    [
      ['kind', c.kind],
      ['author', c.author],
      ['created_at', c.created_at],
      ['epoch', c.epoch],
      ['next', c.next],
    ],
    c.summary,
  )
}

/** Newest first (time, then id): the order `session show` gives checkpoints in. */
export function newestFirst(a: SessionCheckpoint, b: SessionCheckpoint): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

/** The unique session whose id starts with `input` (at least 4 characters after `ses-`), or why not. */
export function matchSessionId(input: string, ids: Iterable<string>): {id: string} | {none: true} | {ambiguous: string[]} {
  const text = input.trim().toLowerCase()
  const prefix = text.startsWith(SESSION_ID_PREFIX) ? text : SESSION_ID_PREFIX + text
  const hits: string[] = []
  for (const id of ids) {
    if (id === prefix) return {id}
    if (prefix.length >= SESSION_ID_PREFIX.length + 4 && id.startsWith(prefix)) hits.push(id)
  }
  if (hits.length === 1) return {id: hits[0]!}
  if (hits.length === 0) return {none: true}
  return {ambiguous: hits.sort()}
}
