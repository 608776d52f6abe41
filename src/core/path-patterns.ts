/**
 * `allowed_paths` in config.yaml: the paths, outside the file kinds the
 * tool writes, that the server guard lets onto a list's ref (docs/verify.md,
 * "Files the guard does not judge"). A pattern is matched against the whole
 * path, segment by segment:
 *
 * - `*` is any run of characters within one segment, `?` one character
 *   (neither crosses a `/`);
 * - a segment `**` is any number of segments, none included
 *   (`notes/**` is everything under notes/, `**\/*.md` any .md file);
 * - a pattern ending in `/` is everything under that directory (`notes/`
 *   is `notes/**`);
 * - anything else is itself.
 *
 * The matcher never backtracks beyond the last star (per segment, and per
 * `**` over segments), so its cost is bounded by the lengths of the path and
 * the pattern times each other, whatever the pattern: a list's config cannot
 * make the guard spin. Pure.
 */

/** Most patterns a list may hold, and the longest pattern (bytes): schemas/config.schema.json holds the same. */
export const MAX_PATH_PATTERNS = 64
export const MAX_PATH_PATTERN_BYTES = 256

/** Why `pattern` is not one (a message), or null when it is. */
export function pathPatternProblem(pattern: string): string | null {
  if (pattern === '') return 'a pattern is not empty'
  if (Buffer.byteLength(pattern) > MAX_PATH_PATTERN_BYTES) return `a pattern is at most ${MAX_PATH_PATTERN_BYTES} bytes`
  if (/[\u0000-\u001f\u007f]/.test(pattern)) return 'a pattern has no control characters'
  if (pattern.startsWith('/')) return 'a pattern is relative to the top of the list (no leading /)'
  const segments = (pattern.endsWith('/') ? pattern.slice(0, -1) : pattern).split('/')
  if (segments.some((s) => s === '')) return 'a pattern has no empty segment (//)'
  if (segments.some((s) => s === '.' || s === '..')) return 'a pattern has no . or .. segment'
  return null
}

/** One segment against one segment pattern (`*`, `?`, literal), by the two-pointer wildcard match. */
function segmentMatches(pattern: string, text: string): boolean {
  let p = 0
  let t = 0
  let star = -1
  let mark = 0
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === text[t])) {
      p++
      t++
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++
      mark = t
    } else if (star !== -1) {
      p = star + 1
      t = ++mark
    } else return false
  }
  while (p < pattern.length && pattern[p] === '*') p++
  return p === pattern.length
}

/** Whether `path` (a file's path on the ref) matches `pattern`. */
export function pathMatches(pattern: string, path: string): boolean {
  const pat = (pattern.endsWith('/') ? `${pattern}**` : pattern).split('/')
  const segs = path.split('/')
  // The same two-pointer match over segments, `**` being the star.
  let p = 0
  let s = 0
  let star = -1
  let mark = 0
  while (s < segs.length) {
    if (p < pat.length && pat[p] !== '**' && segmentMatches(pat[p]!, segs[s]!)) {
      p++
      s++
    } else if (p < pat.length && pat[p] === '**') {
      star = p++
      mark = s
    } else if (star !== -1) {
      p = star + 1
      s = ++mark
    } else return false
  }
  while (p < pat.length && pat[p] === '**') p++
  return p === pat.length
}

/** Whether any of `patterns` allows `path`. */
export function pathAllowed(patterns: readonly string[], path: string): boolean {
  return patterns.some((p) => pathMatches(p, path))
}
