/**
 * Resolving WHEN (core/when.ts) to a commit of the session's list: the
 * one entry point for `--at`, `diff`, `blame`, `revert --since/--until` and
 * `plan`. Reads commits only; never touches the index cache.
 */
import {NotFoundError, UsageError} from '../core/errors'
import {WHEN_FORMS, parseWhen} from '../core/when'
import {commitAtOrBefore, commitOnRef} from '../refstore/history'
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
  const when = parseWhen(text, Date.parse(session.now()), flag)
  const {cwd} = session.store.repo
  const ref = session.store.ref
  if (when.kind === 'commit') {
    const found = await commitOnRef(cwd, ref, when.prefix)
    if (found === 'ambiguous') throw new UsageError(`--${flag} ${text}: that prefix names several objects; type more of the commit id`, {flag, input: text}, 'ambiguous_commit')
    if (found === null) throw new NotFoundError('at_not_found', `--${flag} ${text}: no commit of list ${session.list} starts with "${when.prefix}" (${WHEN_FORMS})`, {flag, input: text, list: session.list})
    return {input: text, ...found}
  }
  const found = await commitAtOrBefore(cwd, ref, when.at)
  if (found === null) throw new NotFoundError('at_not_found', `--${flag} ${text}: list ${session.list} has no commit at or before ${new Date(when.at).toISOString()}`, {flag, input: text, list: session.list})
  return {input: text, ...found}
}
