/**
 * The two git questions of plans (`tasks plan …`, docs/history.md "Plans")
 * that the list store does not ask: the merge base of two commits, and
 * removing a plan's ref, only if it still points where the caller saw it.
 */
import {rmSync} from 'node:fs'
import {listRef} from '../core/store-layout'
import {decodeCommit} from './git-objects'
import {git} from './git-process'
import {searchCachePath} from './search-cache'
import {cachePath, deltaPath} from './task-index'
import type {ObjectReader} from './object-reader'

/** The best common ancestor of `a` and `b`, or null when they share none. */
export async function mergeBase(cwd: string, a: string, b: string): Promise<string | null> {
  const r = await git(['merge-base', a, b], {cwd})
  return r.code === 0 ? r.stdout.trim().split('\n')[0] || null : null
}

/**
 * Delete list `list`'s ref if it still points at `oldOid`, and the caches
 * kept for it (the index, its delta, the search index): derived data of a
 * list that is gone. False when the ref moved (nothing deleted).
 */
export async function deleteListRef(repo: {cwd: string; commonDir: string}, list: string, oldOid: string): Promise<boolean> {
  const r = await git(['update-ref', '-m', 'plan rm', '-d', listRef(list), oldOid], {cwd: repo.cwd})
  if (r.code !== 0) return false
  for (const file of [cachePath(repo.commonDir, list), deltaPath(repo.commonDir, list), searchCachePath(repo.commonDir, list)]) rmSync(file, {force: true})
  return true
}

/** The root tree of `commit` (through the store's reader), or null when it is not a commit here. */
export async function rootTreeOf(reader: ObjectReader, commit: string): Promise<string | null> {
  const c = await reader.read(commit)
  return c && c.type === 'commit' ? decodeCommit(c.content).tree : null
}
