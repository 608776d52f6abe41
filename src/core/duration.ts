/**
 * Durations people type in settings (`30s`, `2m`, `1500ms`, `1h`; a bare
 * number is seconds), as milliseconds. Pure.
 */

const UNIT_MS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000}

/** Longest duration accepted: a day (anything longer is a typo, not a timeout). */
export const MAX_DURATION_MS = 86_400_000

/** Milliseconds for `text`, or null when it is not a duration (or longer than a day). */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text)
  if (!m) return null
  const ms = Math.round(Number(m[1]) * UNIT_MS[(m[2] ?? 's').toLowerCase()]!)
  return Number.isFinite(ms) && ms <= MAX_DURATION_MS ? ms : null
}

/** A duration for a message: `30s`, `2.5s`, `2m`, `1500ms` → `1.5s`. */
export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`
  const s = ms / 1000
  return `${Number.isInteger(s) ? s : s.toFixed(1)}s`
}
