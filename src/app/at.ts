/**
 * Resolving WHEN (core/when.ts) to a commit of the session's list: the
 * one entry point for `--at`, `diff`, `blame`, `revert --since/--until` and
 * `plan`. Reads commits only; never touches the index cache.
 */
import {NotFoundError, UsageError} from '../core/errors'
import {WHEN_FORMS, type When, parseWhen} from '../core/when'
import {commitAtOrBefore, commitOnRef, committerDate} from '../refstore/history'
import {git} from '../refstore/git-process'
import type {Session} from './session'

/** A resolved point in the list's history. */
export interface AtPoint {
  /** What was typed. */
  input: string
  commit: string
  /** The commit's committer date, ISO-8601. */
  date: string
}

/** The commit WHEN names on the session's list (exit 2 for bad text or an ambiguous prefix, 3 when there is none). */
export async function resolveAt(session: Session, text: string, flag = 'at'): Promise<AtPoint> {
  return resolveWhen(session, parseWhen(text, Date.parse(session.now()), flag), text, flag)
}

/** `resolveAt` of WHEN already parsed (`when`, from `text` as typed after `flag`): for a caller that needs the parsed value too. */
export async function resolveWhen(session: Session, when: When, text: string, flag = 'at'): Promise<AtPoint> {
  const {cwd} = session.store.repo
  const ref = session.store.ref
  if (when.kind === 'commit') {
    // The usual case, a whole id or a unique prefix of a commit of the list, through the batch reader
    // the command already runs (no process; one to check reachability, none for the tip itself).
    const quick = await commitThroughReader(session, when.prefix)
    if (quick) return {input: text, ...quick}
    const found = await commitOnRef(cwd, ref, when.prefix)
    if (found === 'ambiguous') throw new UsageError(`--${flag} ${text}: that prefix names several objects; type more of the commit id`, {flag, input: text}, 'ambiguous_commit')
    if (found === null) throw new NotFoundError('at_not_found', `--${flag} ${text}: no commit of list ${session.list} starts with "${when.prefix}" (${WHEN_FORMS})`, {flag, input: text, list: session.list})
    return {input: text, ...found}
  }
  const found = await commitAtOrBefore(cwd, ref, when.at)
  if (found === null) throw new NotFoundError('at_not_found', `--${flag} ${text}: list ${session.list} has no commit at or before ${new Date(when.at).toISOString()}`, {flag, input: text, list: session.list})
  return {input: text, ...found}
}

/**
 * The commit a prefix names, read through the session's batch reader, when
 * it is the list's tip or reachable from it; null otherwise (missing,
 * ambiguous, not a commit, not on the list: `commitOnRef` then decides, and
 * words the error). The date is the committer date as `git log --format=%cI`
 * writes it.
 */
async function commitThroughReader(session: Session, prefix: string): Promise<{commit: string; date: string} | null> {
  const store = session.store
  let obj: Awaited<ReturnType<typeof store.reader.read>>
  try {
    obj = await store.reader.read(`${prefix}^{commit}`)
  } catch {
    return null
  }
  if (!obj || obj.type !== 'commit' || obj.oversized) return null
  const date = committerDate(obj.content.toString('utf8'))
  if (date === null) return null
  if (obj.oid !== store.tip && (await git(['merge-base', '--is-ancestor', obj.oid, store.ref], {cwd: store.repo.cwd})).code !== 0) return null
  return {commit: obj.oid, date}
}
