/**
 * Values shared by the merge engine: the merge context handed in by the
 * caller, the notes a merge reports, and small deterministic helpers
 * (canonical value comparison, content-derived comment ids).
 *
 * Pure: no I/O, no clock (time comes in as `now`), no randomness. Nothing here
 * may depend on which side is called "ours" except through `published`.
 */
import {cmp} from '../core/order'
import {createHash} from 'node:crypto'
import {compactTimestamp} from '../core/ops/comment'
import type {Comment, CommentKind, Status} from '../core/task'

/** The actor name the engine writes as. It is never an agent or a person. */
export const MERGE_ACTOR = 'git-tasks'

/** Which side of the merge is already published (in `tasks sync`, the remote). */
export type Side = 'ours' | 'theirs'

/** What every merge function needs to know about the invocation, as values. */
export interface MergeContext {
  /** ISO-8601 UTC time of the merge (the merge commit's time). */
  now: string
  /** The side whose state others may already have seen; it wins claims and collisions. */
  published: Side
}

/** A claim as seen by one side: enough for the caller to tell the agent. */
export interface ClaimState {
  status: Status
  owner: string | null
  epoch: number
  /** Who made that side's last change to the task (its updated_by). */
  actor: string
}

/**
 * Something the merge decided that a person or agent may want to know. The
 * caller prints these (sync output), records them in the merge commit and
 * turns `lost_claim` into an inbox record for the losing owner/actor.
 */
export type MergeNote =
  /** Both sides changed the claim/lifecycle unit; the published side's unit was kept. */
  | {kind: 'lost_claim'; task: string; loser: ClaimState; winner: ClaimState; message: string}
  /** Both sides changed a scalar field (or an unknown frontmatter key) to different values. */
  | {kind: 'field_conflict'; task: string; field: string; kept: unknown; dropped: unknown; message: string}
  /** Both sides changed the description and the edits overlap; the losing text is a comment. */
  | {kind: 'body_conflict'; task: string; comment: string; message: string}
  /** Removed on one side and changed on the other: kept. */
  | {kind: 'kept_over_delete'; task?: string; path: string; message: string}
  /** Two different tasks created with the same id: the unpublished one moved to `moved_to`. */
  | {kind: 'id_collision'; task: string; moved_to: string; message: string}
  /** An append-only file (comment, inbox record, other file) added on both sides with different text. */
  | {kind: 'path_collision'; path: string; moved_to: string; message: string}
  /** A file that failed to parse on one or more sides. */
  | {kind: 'unreadable'; path: string; side: Side | 'both' | 'base'; error: string; message: string}
  /** A check changed on both sides: the more cautious status kept, both sides' evidence (check-merge.ts). */
  | {kind: 'check_merged'; task: string; check: string; status: string; message: string}
  /** After the merge a done item has an active check that has not passed with evidence (a check added while the item was finished elsewhere). */
  | {kind: 'done_with_unmet_check'; task: string; check: string; message: string}
  /** config.yaml: both sides changed a key to different values. */
  | {kind: 'config_conflict'; key: string; kept: unknown; dropped: unknown; message: string}
  /** A coordination session's session.md changed on both sides (session-merge.ts). */
  | {kind: 'session_merged'; session: string; message: string}

import {canon} from '../core/canon'

export {canon}

/** The side that is not `s`. */
export function otherSide(s: Side): Side {
  return s === 'ours' ? 'theirs' : 'ours'
}

/** Structural equality through canonical JSON. */
export function same(a: unknown, b: unknown): boolean {
  return canon(a) === canon(b)
}

/** Compare two ISO timestamps by instant, then by text (so the order is total). */
export function cmpTime(a: string, b: string): number {
  const ta = Date.parse(a)
  const tb = Date.parse(b)
  if (!Number.isNaN(ta) && !Number.isNaN(tb) && ta !== tb) return ta < tb ? -1 : 1
  return cmp(a, b)
}

/** 8 hex characters of the SHA-256 of the parts, joined by NUL. */
export function hash8(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 8)
}

/**
 * A comment whose id is derived from its content and the merge time, so the
 * same merge always writes the same file: `<compact now>-<8 hex of
 * sha256(task, kind, author, body)>`.
 */
export function engineComment(task: string, kind: CommentKind, author: string, text: string, now: string): Comment {
  // Normalised as a comment file stores it, so the value round-trips through the file.
  const body = text.replace(/\r\n?/g, '\n').replace(/\s+$/, '')
  return {id: `${compactTimestamp(now)}-${hash8(task, kind, author, body)}`, task, kind, author, created_at: now, body}
}
