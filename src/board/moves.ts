/**
 * Moving a card between the kanban's columns (drag-and-drop, or the
 * keyboard): which of the board's actions a move is, from the card's status.
 * The same actions the buttons send (claim, done, block, release, reopen),
 * so a move goes through the same use case and writes the same one commit.
 * A move the model has no transition for is refused on the page, in the
 * board's words, before anything is sent. Pure: values in, values out.
 */
import type {Status} from '../core/task'

/** The kanban's column keys (pages.ts, COLUMNS). */
export type ColumnKey = 'ready' | 'waiting' | 'in_progress' | 'blocked' | 'done'

/** What dropping a card on a column does: an action to send, or why not (shown as is). */
export type Move = {action: 'claim' | 'done' | 'block' | 'release' | 'reopen'} | {refuse: string}

const BACK_TO_TODO = new Set<ColumnKey>(['ready', 'waiting'])

/** The move of a card in `status` dropped on column `to`; null: it is already there (nothing to do). */
export function moveFor(status: Status | string, to: ColumnKey): Move | null {
  const todo = BACK_TO_TODO.has(to)
  switch (status) {
    case 'todo':
      if (todo) return null
      return to === 'in_progress' ? {action: 'claim'} : to === 'done' ? {action: 'done'} : {action: 'block'}
    case 'in_progress':
      if (todo) return {action: 'release'}
      return to === 'in_progress' ? null : to === 'done' ? {action: 'done'} : {action: 'block'}
    case 'blocked':
      // Its holder resumes it by claiming it again; anyone the rulebook allows reopens it.
      if (todo) return {action: 'reopen'}
      return to === 'in_progress' ? {action: 'claim'} : to === 'done' ? {action: 'done'} : null
    case 'done':
    case 'failed':
      if (todo) return {action: 'reopen'}
      if (to === 'done') return status === 'done' ? null : {refuse: 'It failed: drag it to Ready to reopen it, then finish it'}
      return {refuse: `It is ${status}: drag it back to Ready first to reopen it`}
    case 'deferred':
      if (todo) return {action: 'reopen'}
      return {refuse: 'It is deferred: drag it to Ready first to bring it back'}
    case 'cancelled':
      return {refuse: 'It was cancelled, which is final: add a new card instead'}
    default:
      return {refuse: `No move for a ${status} card`}
  }
}

/** Every column's move for a card, as the card's data-moves attribute carries it (columns where it already is left out). */
export function movesOf(status: Status | string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const to of ['ready', 'waiting', 'in_progress', 'blocked', 'done'] as const) {
    const m = moveFor(status, to)
    if (m) out[to] = 'action' in m ? m.action : `!${m.refuse}`
  }
  return out
}
