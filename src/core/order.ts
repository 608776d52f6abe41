/** Orders shared by the core and the store's tables. Pure. */
import type {TaskMeta} from './task'

/** Code-unit order: locale-independent and much faster than localeCompare. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The ordering `next` uses: priority, then creation time, then id. The index
 * cache stores the queue in this order: changing it means a new cache version
 * (CACHE_VERSION in src/refstore/task-index.ts).
 */
export function compareForNext(a: TaskMeta, b: TaskMeta): number {
  return a.priority - b.priority || cmp(a.created_at, b.created_at) || cmp(a.id, b.id)
}

/** Statuses `next` may hand out: todo, and in progress with an expired lease. */
export const QUEUED: ReadonlySet<string> = new Set(['todo', 'in_progress'])
