/**
 * Time travel: the read commands with `--at WHEN` (list, show, search,
 * graph, export, events; the board's `/?at=`). WHEN is resolved to a commit
 * of the list (app/at.ts), and the read runs on a session pinned there
 * (Session.pastAt): the snapshot is that commit's, brought there from the
 * index the live cache holds by the tree diff and never written back, and
 * the clock is the moment read (the time WHEN names, or the commit's own
 * time for a commit), so readiness, stale claims and leases are judged as
 * they stood then. The result gains `at: {input, commit, date}`.
 */
import {NotFoundError} from '../core/errors'
import {INIT_COMMIT} from '../core/store-layout'
import {parseWhen} from '../core/when'
import {type AtPoint, resolveWhen} from './at'
import type {Session} from './session'

/** The session reading the list as of WHEN, and the point resolved. */
export async function pastSession(session: Session, text: string): Promise<{past: Session; at: AtPoint}> {
  const when = parseWhen(text, Date.parse(session.now()))
  const at = await resolveWhen(session, when, text)
  // The root commit of every list is the fixed init commit, dated 1970 so every clone makes the same one: its
  // date is not when the list was made. A time that only it precedes is before anything happened on the list.
  if (when.kind === 'time' && Date.parse(at.date) === INIT_COMMIT.time * 1000) {
    throw new NotFoundError('at_not_found', `--at ${text}: list ${session.list} has no change at or before ${new Date(when.at).toISOString()} (it did not exist yet); name a later time, or its first commit by id`, {flag: 'at', input: text, list: session.list})
  }
  // A time is read as of that time (a claim that lapsed since the last commit before it shows stale); a commit as of its own time.
  const clock = when.kind === 'time' ? new Date(when.at).toISOString() : new Date(Date.parse(at.date)).toISOString()
  return {past: session.pastAt(at, clock), at}
}

/**
 * `read` on the list as of WHEN (`text`), its result with `at` added; on
 * the live list when `text` is undefined. The result object is kept (not
 * copied): a lazily written listing is known by it.
 */
export async function readAt<R extends object>(session: Session, text: string | undefined, read: (s: Session) => Promise<R>): Promise<R & {at?: AtPoint}> {
  if (text === undefined) return read(session)
  const {past, at} = await pastSession(session, text)
  return Object.assign(await read(past), {at})
}

/** The line that tells a person which state is shown (text output). */
export function atLine(at: AtPoint): string {
  return `viewing the list as of ${at.date} (commit ${at.commit.slice(0, 7)}${at.input.toLowerCase() !== at.commit.slice(0, at.input.length) ? `, --at ${at.input}` : ''})`
}
