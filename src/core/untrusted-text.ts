/**
 * Text written by agents and remote collaborators (titles, descriptions,
 * comments, notes, actor names, tags) is untrusted: printed raw, an escape
 * sequence in it could recolour a terminal, set its title, clear the screen,
 * or (with bidi overrides) make one id look like another. This module says
 * which characters are dangerous and how a person is shown them. JSON
 * output is never changed: it carries the exact text.
 *
 * Dangerous: C0 controls other than newline and tab (ESC among them), DEL,
 * C1 controls (U+0080–U+009F, which some terminals treat as ESC + letter),
 * and the bidi embedding, override and isolate controls (U+202A–U+202E,
 * U+2066–U+2069). Pure: no I/O.
 */

const DANGEROUS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
const DANGEROUS_ALL = new RegExp(DANGEROUS.source, 'g')

/** The first dangerous character in `text` as `U+XXXX`, or null. */
export function dangerousCharacter(text: string): string | null {
  const m = DANGEROUS.exec(text)
  return m ? codePoint(m[0]) : null
}

function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}

/**
 * `text` made safe for a terminal: each dangerous character becomes a
 * visible stand-in, C0 controls and DEL in caret notation (ESC is `^[`, as
 * `cat -v` shows it), the others as `<U+XXXX>`. Newlines and tabs stay.
 */
export function neutralize(text: string): string {
  if (!DANGEROUS.test(text)) return text
  return text.replace(DANGEROUS_ALL, (ch) => {
    const cp = ch.codePointAt(0)!
    if (cp < 0x20) return `^${String.fromCharCode(cp + 0x40)}`
    if (cp === 0x7f) return '^?'
    return `<${codePoint(ch)}>`
  })
}

/** A copy of a JSON-like value with every string neutralized (what human renderers are given). */
export function neutralizeDeep<T>(value: T): T {
  if (typeof value === 'string') return neutralize(value) as T
  if (Array.isArray(value)) return value.map((v) => neutralizeDeep(v)) as T
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = neutralizeDeep(v)
    return out as T
  }
  return value
}
