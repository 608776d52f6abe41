/**
 * Titles as the same-title check compares them: the canonical form (what
 * `add` and the fallback idempotency key of batch and MCP creates compare)
 * and its 32-bit hash, which every open row carries (`OpenRow`, the index
 * cache file's open rows line) so that the check reads the frontmatter only
 * of the rows whose hash matches. Pure.
 */

/** A title as the fallback idempotency key compares it: case folded, every run of whitespace one space, trimmed. */
export function canonicalTitle(title: string): string {
  return title.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim()
}

/**
 * A 32-bit hash (FNV-1a over the UTF-16 code units, as a signed 32-bit
 * integer) of a canonical title. Different titles can share a hash: a match
 * is only a candidate, confirmed by comparing the titles themselves.
 */
export function hashOfCanonical(canonical: string): number {
  let h = 0x811c9dc5 | 0
  for (let i = 0; i < canonical.length; i++) h = Math.imul(h ^ canonical.charCodeAt(i), 0x01000193)
  return h | 0
}

/** The hash of a title's canonical form (`hashOfCanonical(canonicalTitle(title))`). */
export function titleHash(title: string): number {
  return hashOfCanonical(canonicalTitle(title))
}
