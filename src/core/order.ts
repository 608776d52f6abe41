/** Orders shared by the core and the store's tables. Pure. */
import type {TaskMeta} from './task'

/** Merge two lists, each sorted by `cmp`, into one sorted list; of two equal elements `a`'s comes first. */
export function mergeSorted<T>(a: readonly T[], b: readonly T[], cmp: (x: T, y: T) => number): T[] {
  if (b.length === 0) return [...a]
  if (a.length === 0) return [...b]
  const out: T[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) out.push(cmp(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!)
  while (i < a.length) out.push(a[i++]!)
  while (j < b.length) out.push(b[j++]!)
  return out
}

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

/**
 * The first index in [lo, hi) at which `before(i)` is false, for a `before`
 * that holds on a prefix of the range and not after it (a binary search:
 * `before` is asked about log2(hi - lo) indices).
 */
export function partitionPoint(lo: number, hi: number, before: (i: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(mid)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Statuses `next` may hand out: todo, and in progress with an expired lease. */
// Issue 33: deferred items are queued too, so one whose deferral ran out is found (isReady judges it by its wake time).
export const QUEUED: ReadonlySet<string> = new Set(['todo', 'in_progress', 'deferred'])
