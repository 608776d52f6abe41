/**
 * `comment`: typed comments (note, decision, problem, lesson, knowledge),
 * one file per comment so concurrent comments never touch the same path.
 */
import {createHash} from 'node:crypto'
import {ConflictError, InvalidError, UsageError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {type Snapshot, lookup} from '../snapshot'
import {COMMENT_KINDS, type Comment, type CommentKind} from '../task'
import {checkText} from '../validation'
import {assertRevision} from '../revision-guard'
import {assertFence} from './permission'
import {activityRenewal} from './lease'

/** `2026-11-29T19:13:00.123Z` → `20261129T191300.123Z`: sorts by time, safe in a path. */
export function compactTimestamp(iso: string): string {
  return iso.replace(/[-:]/g, '')
}

/**
 * Add a comment. By the holder of a live claim it also renews the lease
 * (ops/lease.ts), in the same commit; `epoch` fences it as the other owner
 * mutations are (and require_epoch asks it of agents on a card they hold).
 * With `key`, a retry (the key already on the task) records nothing.
 */
export function addComment(snap: Snapshot, ctx: OpContext, args: {id: string; text: string; kind?: string; ifRevision?: number; key?: string; epoch?: number}): Plan<{comment: Comment; created: boolean}> {
  const meta = lookup(snap, args.id)
  const key = args.key?.trim()
  if (args.key !== undefined && !key) throw new InvalidError('empty_key', 'the idempotency key is empty')
  if (key !== undefined && (key.includes('\n') || Buffer.byteLength(key) > 200)) throw new InvalidError('bad_key', 'an idempotency key is one line of at most 200 bytes', {key})
  if (key) {
    // A retry: the comment with this key is already on the task; nothing is written.
    const read = snap.comments?.get(meta.id)
    if (!read) throw new Error(`comment --key needs the comments of ${meta.id} read before the op (a Prepare)`)
    const existing = read.find((c) => c.key === key)
    if (existing) {
      if (existing.body !== args.text.replace(/\s+$/, '') || existing.kind !== (args.kind ?? 'note')) {
        throw new ConflictError('key_mismatch', `key "${key}" already recorded comment ${existing.id} on ${meta.id} with a different ${existing.kind !== (args.kind ?? 'note') ? 'kind' : 'text'}; use another key`, {id: meta.id, comment: existing.id, key})
      }
      return {op: 'comment', subject: {id: meta.id, title: meta.title}, changes: [], trailers: [], result: {comment: existing, created: false}}
    }
  }
  assertRevision(meta, args.ifRevision)
  assertFence(snap, meta, ctx, args.epoch, 'comment on')
  const kind = (args.kind ?? 'note') as CommentKind
  if (!(COMMENT_KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(`"${args.kind}" is not a comment kind: use one of ${COMMENT_KINDS.join(', ')}`, {kind: args.kind}, 'bad_kind')
  }
  const body = checkText('comment', args.text.replace(/\s+$/, ''), snap.config.max_comment_bytes, true)
  const hash = createHash('sha256').update(`${meta.id}\0${ctx.actor}\0${ctx.now}\0${body}\0${ctx.entropy}`).digest('hex').slice(0, 8)
  const comment: Comment = {
    id: `${compactTimestamp(ctx.now)}-${hash}`,
    task: meta.id,
    kind,
    author: ctx.actor,
    created_at: ctx.now,
    body,
    ...(key ? {key} : {}),
  }
  const renewal = activityRenewal(meta, ctx, snap.config)
  return {
    op: 'comment',
    subject: {id: meta.id, title: meta.title},
    changes: [{kind: 'add-comment', comment}, ...(renewal ? [renewal.change] : [])],
    trailers: [['Tasks-Comment-Kind', kind]],
    result: {comment, created: true},
  }
}
