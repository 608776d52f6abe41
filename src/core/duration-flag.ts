/**
 * Durations typed on the command line (`--lease 90s`, `30m`, `1h`, `1h30m`,
 * or plain seconds). Pure: text in, whole seconds out, or a
 * UsageError that names the flag and says what it expects.
 */
import {UsageError} from './errors'

const UNIT_SECONDS: Record<string, number> = {s: 1, m: 60, h: 3600, d: 86_400, w: 604_800}

/**
 * Whole seconds in a compound duration (`90s`, `30m`, `1h30m`, `2d`, `1w`;
 * `bare` also accepts a plain number of seconds), or null when `text` is not
 * one. The one reader of such durations: `--lease`, `config set`, `log --since`.
 */
export function durationSeconds(text: string, bare = true): number | null {
  const input = text.trim().toLowerCase()
  if (bare && /^\d+$/.test(input)) return Number(input)
  if (!/^(\d+[smhdw])+$/.test(input)) return null
  let seconds = 0
  for (const [, n, unit] of input.matchAll(/(\d+)([smhdw])/g)) seconds += Number(n) * UNIT_SECONDS[unit!]!
  return seconds
}

/** Seconds in `text` (`90`, `90s`, `30m`, `1h`, `2d`, `1h30m`); at least 1, at most `max`. */
export function parseDurationSeconds(text: string, flag = 'lease', max = Number.MAX_SAFE_INTEGER): number {
  const seconds = durationSeconds(text)
  if (seconds === null) {
    throw new UsageError(`--${flag} expects a duration such as 90s, 30m, 1h or 1h30m (a plain number is seconds), not "${text}"`, {flag, input: text})
  }
  return check(seconds, text, flag, max)
}

function check(seconds: number, text: string, flag: string, max: number): number {
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    throw new UsageError(`--${flag} must be at least 1 second, not "${text}"`, {flag, input: text})
  }
  if (seconds > max) {
    throw new UsageError(`--${flag} is at most ${max} seconds (${Math.floor(max / 86400)} days), not "${text}"`, {flag, input: text, max})
  }
  return seconds
}
