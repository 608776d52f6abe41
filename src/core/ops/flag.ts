/**
 * `tasks flag ID REASON` / `tasks unflag ID`: a flag says "something is
 * wrong here, look before going on". A flagged item cannot be finished, and
 * anyone may take a flagged item over from its owner without --force (the
 * claim records it); taking it over clears the flag.
 */
import {ConflictError} from '../errors'
import type {OpContext, Plan} from '../plan'
import {type Snapshot, lookup} from '../snapshot'
import {FINISHED, type TaskMeta} from '../task'
import {checkNote} from '../validation'
import {NO_FLAG, revise} from './revision'

export function flagTask(snap: Snapshot, ctx: OpContext, args: {id: string; reason: string}): Plan<{task: TaskMeta; changed: boolean}> {
  const meta = lookup(snap, args.id)
  const reason = checkNote('reason', args.reason ?? '', snap.config)
  const subject = {id: meta.id, title: meta.title}
  if (FINISHED.has(meta.status)) {
    throw new ConflictError('not_open', `${meta.id} is ${meta.status}; only open items can be flagged`, {id: meta.id, status: meta.status})
  }
  if (meta.flag_reason === reason) return {op: 'flag', subject, changes: [], trailers: [], result: {task: meta, changed: false}}
  const next = revise(meta, ctx, {flag_reason: reason, flagged_by: ctx.actor, flagged_at: ctx.now})
  return {op: 'flag', subject, changes: [{kind: 'put-task', meta: next}], trailers: [['Tasks-Flag', reason]], result: {task: next, changed: true}}
}

export function unflagTask(snap: Snapshot, ctx: OpContext, args: {id: string}): Plan<{task: TaskMeta; changed: boolean}> {
  const meta = lookup(snap, args.id)
  const subject = {id: meta.id, title: meta.title}
  if (meta.flag_reason === undefined) return {op: 'unflag', subject, changes: [], trailers: [], result: {task: meta, changed: false}}
  const next = revise(meta, ctx, NO_FLAG)
  return {op: 'unflag', subject, changes: [{kind: 'put-task', meta: next}], trailers: [['Tasks-Unflagged', meta.flag_reason]], result: {task: next, changed: true}}
}
