/**
 * The two git questions of plans (`tasks plan …`, docs/history.md "Plans")
 * that the list store does not ask: the merge base of two commits, and
 * removing a plan's ref, only if it still points where the caller saw it.
 */
import {decodeCommit} from './git-objects'
import {git} from './git-process'
import type {ObjectReader} from './object-reader'

/** The best common ancestor of `a` and `b`, or null when they share none. */
export async function mergeBase(cwd: string, a: string, b: string): Promise<string | null> {
  const r = await git(['merge-base', a, b], {cwd})
  return r.code === 0 ? r.stdout.trim().split('\n')[0] || null : null
}

/** Delete `ref` if it still points at `oldOid`; false when it moved (nothing deleted). */
export async function deleteRefIf(cwd: string, ref: string, oldOid: string): Promise<boolean> {
  const r = await git(['update-ref', '-m', 'plan rm', '-d', ref, oldOid], {cwd})
  return r.code === 0
}

/** The root tree of `commit` (through the store's reader), or null when it is not a commit here. */
export async function rootTreeOf(reader: ObjectReader, commit: string): Promise<string | null> {
  const c = await reader.read(commit)
  return c && c.type === 'commit' ? decodeCommit(c.content).tree : null
}
