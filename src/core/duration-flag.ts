/**
 * Durations typed on the command line (`--lease 90s`, `30m`, `1h`, `1h30m`,
 * or plain seconds as before). Pure: text in, whole seconds out, or a
 * UsageError that names the flag and says what it expects.
 */
import {UsageError} from './errors'

const UNIT_SECONDS: Record<string, number> = {s: 1, m: 60, h: 3600, d: 86400}

/** Seconds in `text` (`90`, `90s`, `30m`, `1h`, `2d`, `1h30m`); at least 1. */
export function parseDurationSeconds(text: string, flag = 'lease'): number {
  const input = text.trim().toLowerCase()
  const fail = (): never => {
    throw new UsageError(`--${flag} expects a duration such as 90s, 30m, 1h or 1h30m (a plain number is seconds), not "${text}"`, {flag, input: text})
  }
  if (/^\d+$/.test(input)) return check(Number(input), text, flag)
  if (!/^(\d+[smhd])+$/.test(input)) fail()
  let seconds = 0
  for (const [, n, unit] of input.matchAll(/(\d+)([smhd])/g)) seconds += Number(n) * UNIT_SECONDS[unit!]!
  return check(seconds, text, flag)
}

function check(seconds: number, text: string, flag: string): number {
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    throw new UsageError(`--${flag} must be at least 1 second, not "${text}"`, {flag, input: text})
  }
  return seconds
}
