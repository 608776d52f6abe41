/**
 * The board's bulk actions (claim, assign, tag, done on several selected
 * cards): one batch (core/ops/batch-file.ts, the machinery of `tasks
 * batch`) of the same operations the single commands run, so the whole
 * selection is ONE commit, or nothing. Atomic: the first card an operation
 * refuses aborts the batch with that operation's own code and message (the
 * CLI's rules: `already_claimed`, `not_ready`, `checks_pending`, …), plus
 * the refused card's `id` and its place in the selection, and nothing is
 * written.
 */
import {UsageError} from '../core/errors'
import type {BatchItemResult, BatchTable} from '../core/ops/batch-file'
import {TasksError} from '../core/errors'
import {batchFile} from './coordination-actions'
import type {Session} from './session'

export const BULK_ACTIONS = ['claim', 'assign', 'tag', 'done'] as const
export type BulkAction = (typeof BULK_ACTIONS)[number]

/** Cards one bulk action may name (a board selection; `tasks batch` takes more). */
export const MAX_BULK = 500

export interface BulkRequest {
  action: string
  ids: unknown
  /** assign: the actor to reserve the cards for; null (or '') lifts the reservation. */
  assignee?: unknown
  /** tag: the tags to add. */
  tags?: unknown
  /** The operation table's batch operations (src/operations), handed down by the caller. */
  table: BatchTable
}

export interface BulkResult {
  action: BulkAction
  ids: string[]
  commit: string | null
  results: BatchItemResult[]
}

function bad(message: string, data: Record<string, unknown> = {}): UsageError {
  return new UsageError(message, data, 'bad_bulk')
}

/** The batch operations of a bulk request, checked (exit 2 `bad_bulk` before anything runs). */
export function bulkOperations(r: Omit<BulkRequest, 'table'>): {action: BulkAction; ids: string[]; operations: Array<Record<string, unknown>>} {
  const action = r.action as BulkAction
  if (!(BULK_ACTIONS as readonly string[]).includes(r.action)) throw bad(`"${String(r.action).slice(0, 64)}" is not a bulk action: use ${BULK_ACTIONS.join(', ')}`, {action: String(r.action).slice(0, 64)})
  if (!Array.isArray(r.ids) || r.ids.length === 0 || !r.ids.every((x) => typeof x === 'string' && x.length > 0)) throw bad('"ids" must be a non-empty list of card ids', {field: 'ids'})
  if (r.ids.length > MAX_BULK) throw bad(`at most ${MAX_BULK} cards at once (${r.ids.length} selected)`, {field: 'ids', count: r.ids.length})
  const ids = [...new Set(r.ids as string[])]
  let extra: Record<string, unknown>
  let op: string = action
  if (action === 'assign') {
    if (r.assignee !== null && r.assignee !== undefined && typeof r.assignee !== 'string') throw bad('"assignee" must be text, or null to lift the reservation', {field: 'assignee'})
    if (r.assignee === undefined) throw bad('assign needs "assignee" (null lifts the reservation)', {field: 'assignee'})
    extra = {assignee: typeof r.assignee === 'string' && r.assignee.trim() !== '' ? r.assignee.trim() : null}
  } else if (action === 'tag') {
    const tags = Array.isArray(r.tags) ? r.tags : typeof r.tags === 'string' ? r.tags.split(',') : null
    if (!tags || !tags.every((t) => typeof t === 'string')) throw bad('"tags" must be a list of tags', {field: 'tags'})
    const clean = (tags as string[]).map((t) => t.trim().replace(/^#/, '')).filter(Boolean)
    if (clean.length === 0) throw bad('tag needs at least one tag', {field: 'tags'})
    op = 'edit'
    extra = {add_tags: clean}
  } else {
    extra = {}
  }
  return {action, ids, operations: ids.map((id) => ({op, id, ...extra}))}
}

/** Run a bulk action as one batch: one commit, or (on the first refusal) nothing. */
export async function bulk(session: Session, r: BulkRequest): Promise<BulkResult> {
  const {action, ids, operations} = bulkOperations(r)
  try {
    const done = await batchFile(session, {operations, table: r.table})
    return {action, ids, commit: done.commit, results: done.results}
  } catch (error) {
    if (error instanceof TasksError && typeof error.data.index === 'number') {
      // Name the refused card the way the page knows it, and keep the answer small (no per-operation results).
      const index = error.data.index
      const results = Array.isArray(error.data.results) ? (error.data.results as BatchItemResult[]) : []
      const refused = results.find((x) => x.index === index)
      delete error.data.results
      delete error.data.op
      Object.assign(error.data, {id: refused?.id ?? ids[index] ?? null, index, action, selected: ids.length})
      error.message = error.message.replace(/^operation (\d+) of (\d+) \([a-z_]+\): /, `card $1 of $2: `) + ' (nothing was written)'
    }
    throw error
  }
}
