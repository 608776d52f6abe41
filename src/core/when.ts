/**
 * WHEN: the point in a list's history that `--at`, `diff`, `blame`,
 * `revert --since/--until` and `plan` read. Three spellings, tried in this
 * order so one text never means two things:
 *
 *   1. a duration back from now: `2h`, `3d`, `1w`, `1d12h` (read first: `1000d`
 *      is a thousand days ago, though it could also be a commit prefix);
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

export type When =
  | {kind: 'time'; input: string; /** Milliseconds since the epoch. */ at: number}
  | {kind: 'commit'; input: string; /** Lower-case hexadecimal, 4..40 digits. */ prefix: string}

const COMMIT = /^[0-9a-f]{4,40}$/i

export const WHEN_FORMS = 'a commit of the list (any unique prefix of 4+ hex digits), a date (2026-11-30), a time (2026-11-30 14:00, ISO-8601) or a duration ago (2h, 3d, 1w)'

/** Read WHEN as typed after `flag` (for messages). Exit 2 `bad_when` when it is none of the forms. */
export function parseWhen(text: string, nowMs: number, flag = 'at'): When {
  const input = text.trim()
  const back = durationSeconds(input, false)
  if (back !== null) return {kind: 'time', input, at: nowMs - back * 1000}
  if (COMMIT.test(input)) return {kind: 'commit', input, prefix: input.toLowerCase()}
  const at = input ? parseTimePoint(input, nowMs) : null
  if (at !== null) return {kind: 'time', input, at}
  throw new UsageError(`--${flag} expects ${WHEN_FORMS}, not "${text}"`, {flag, input: text}, 'bad_when')
}
