/**
 * WHEN: the point in a list's history that `--at`, `diff`, `blame`,
 * `revert --since/--until` and `plan` read. Three spellings, tried in this
 * order so one text never means two things:
 *
 *   1. a duration back from now: `2h`, `3d`, `1w`, `1d12h` (read first while
 *      shorter than 7 characters: `1000d` is a thousand days ago, though it
 *      could also be a commit prefix; `3d3d3d3d3d` is a commit);
 *   2. a commit of the list: 4 to 40 hexadecimal digits, any unique prefix;
 *   3. a date (`2026-11-30`, local midnight) or a time (`2026-11-30 14:00`,
 *      `2026-11-30T14:00:00Z`, ISO-8601).
 *
 * Which commit a time names (the last one at or before it on the list's
 * first-parent line) is decided where the commits are read
 * (refstore/history.ts `commitAtOrBefore`). Pure: the clock is handed in.
 */
import {UsageError} from './errors'
import {durationSeconds} from './duration-flag'
import {parseTimePoint} from './history-event'
import {MIN_TIME_MS} from './task'

export type When =
  | {kind: 'time'; input: string; /** Milliseconds since the epoch. */ at: number}
  | {kind: 'commit'; input: string; /** Lower-case hexadecimal, 4..40 digits. */ prefix: string}

const COMMIT = /^[0-9a-f]{4,40}$/i
/** git's usual abbreviation of a commit id: a text this long that reads both ways is a commit. */
const COMMIT_ABBREV = 7

export const WHEN_FORMS = 'a commit of the list (any unique prefix of 4+ hex digits), a date (2026-11-30), a time (2026-11-30 14:00, ISO-8601) or a duration ago (2h, 3d, 1w)'

/** Read WHEN as typed after `flag` (for messages). Exit 2 `bad_when` when it is none of the forms. */
export function parseWhen(text: string, nowMs: number, flag = 'at'): When {
  const input = text.trim()
  const commit = COMMIT.test(input)
  // A text of both forms is a duration only as a person types one: short. From git's usual abbreviation (7) on it
  // is a commit: a prefix such as 3d3d3d3d3d is not fifteen days ago (and 9999999d is before any date there is).
  const back = commit && input.length >= COMMIT_ABBREV ? null : durationSeconds(input, false)
  if (back !== null) {
    const at = nowMs - back * 1000
    if (at < MIN_TIME_MS) throw new UsageError(`--${flag} ${text} reaches back before the year 0000: name a later point`, {flag, input: text}, 'bad_when')
    return {kind: 'time', input, at}
  }
  if (commit) return {kind: 'commit', input, prefix: input.toLowerCase()}
  const at = input ? parseTimePoint(input, nowMs) : null
  if (at !== null) return {kind: 'time', input, at}
  throw new UsageError(`--${flag} expects ${WHEN_FORMS}, not "${text}"`, {flag, input: text}, 'bad_when')
}
