/**
 * Markdown-with-frontmatter files: a `---` line, YAML, a `---` line, then the
 * body as plain text. The splitter is deliberately small: the frontmatter ends
 * at the first line that is exactly `---`, and everything after it is body
 * text, so a body containing `---` or YAML never changes structure.
 *
 * Serialisation is deterministic (given key order, double-quoted strings, no
 * line folding, LF, one trailing newline) so the same state always hashes to
 * the same blob. Parsing uses the `yaml` package with YAML 1.2 core schema
 * (no timestamps or octal coercion) and rejects duplicate keys, anchors,
 * aliases, tags and merge keys (yaml-loader.ts).
 */
import {FORBIDDEN_KEYS, parseYamlStrictly, yaml} from './yaml-loader'

export interface SplitFile {
  frontmatter: string
  body: string
}

/**
 * The line number (1-based) where a complete git conflict block starts: a
 * `<<<<<<<` line, later a `=======` line, later a `>>>>>>>` line, each at the
 * start of a line and followed by a space or the end of the line. Null when
 * there is none. A file holding one was committed with a merge unresolved.
 */
export function conflictMarkerLine(text: string): number | null {
  if (!text.includes('<<<<<<<')) return null
  const lines = text.split('\n')
  let start = -1
  let middle = false
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '')
    if (/^<{7}(?: |$)/.test(line)) {
      if (start === -1) start = i
      middle = false
    } else if (start !== -1 && /^={7}$/.test(line)) middle = true
    else if (start !== -1 && middle && /^>{7}(?: |$)/.test(line)) return start + 1
  }
  return null
}

/** Split a file into its frontmatter text and body, or return an error message. */
export function splitFrontmatter(text: string): SplitFile | {error: string} {
  const src = text.replace(/\r\n/g, '\n')
  if (!src.startsWith('---\n')) return {error: 'file does not start with a --- frontmatter line'}
  const end = src.indexOf('\n---\n', 3)
  const endAtEof = src.endsWith('\n---') && end === -1 ? src.length - 4 : -1
  if (end === -1 && endAtEof === -1) return {error: 'frontmatter is not closed by a --- line'}
  const stop = end !== -1 ? end : endAtEof
  const frontmatter = src.slice(4, stop + 1)
  const body = end !== -1 ? src.slice(end + 5) : ''
  return {frontmatter, body}
}

/**
 * Parse frontmatter YAML into a plain object, or return an error message.
 * Files written by git-tasks (see serialiseFrontmatter) are read by a small
 * exact parser without loading the YAML library; anything else (a file
 * edited by hand, comments, other quoting) goes to the full YAML parser.
 */
export function parseFrontmatterYaml(yamlText: string): {fields: Record<string, unknown>} | {error: string} {
  const fast = parseCanonical(yamlText)
  if (fast) return {fields: fast}
  const parsed = parseYamlStrictly(yamlText)
  if ('error' in parsed) return parsed
  const value = parsed.value
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {error: 'frontmatter is not a mapping of keys to values'}
  }
  return {fields: value as Record<string, unknown>}
}

/**
 * The canonical form only: `key: <JSON scalar or [] or flow>` lines and
 * `key:` followed by `  - <JSON>` items. Every such line is also YAML with
 * the same meaning (JSON is YAML 1.2). Returns null for anything else, so
 * the caller falls back to the YAML parser, which also reports errors.
 *
 * A cold index build parses every card's frontmatter (100,000 at a time), so
 * this is a scanner over the text, not a regular expression a line: a key is
 * `[A-Za-z_][A-Za-z0-9_]*` followed by `:` and the end of the line (a list)
 * or `: ` and a non-empty value that holds no carriage return and no line
 * or paragraph separator (the serialiser escapes those).
 * The result is an ordinary object built in place (a null-prototype object
 * copied at the end cost more than the parsing).
 */
export function parseCanonical(text: string): Record<string, unknown> | null {
  // Rare: then each key line's value is checked for them (list items are JSON.parse's alone to judge).
  const odd = NOT_CANONICAL_CHARS.test(text)
  const out: Record<string, unknown> = {}
  const n = text.length
  let at = 0
  while (at < n) {
    let end = text.indexOf('\n', at)
    if (end === -1) end = n
    if (end === at) {
      at++
      continue
    }
    if (!isKeyStart(text.charCodeAt(at))) return null
    let k = at + 1
    while (k < end && isKeyChar(text.charCodeAt(k))) k++
    if (k === end || text.charCodeAt(k) !== COLON) return null
    const key = text.slice(at, k)
    if (Object.hasOwn(out, key) || FORBIDDEN_KEYS.has(key)) return null
    if (k + 1 === end) {
      const items: unknown[] = []
      at = end + 1
      while (at < n && text.startsWith('  - ', at)) {
        let e = text.indexOf('\n', at)
        if (e === -1) e = n
        const item = jsonValue(text.slice(at + 4, e))
        if (item === NOT_JSON) return null
        items.push(item)
        at = e + 1
      }
      if (items.length === 0) return null
      out[key] = items
      continue
    }
    if (text.charCodeAt(k + 1) !== SPACE || k + 2 === end) return null
    const valueText = text.slice(k + 2, end)
    if (odd && NOT_CANONICAL_CHARS.test(valueText)) return null
    const value = jsonValue(valueText)
    if (value === NOT_JSON) return null
    out[key] = value
    at = end + 1
  }
  return out
}

const COLON = 0x3a
const SPACE = 0x20
/** Characters a regular expression's `.` does not match: a key line's value holding one is not canonical. */
const NOT_CANONICAL_CHARS = /[\r\u2028\u2029]/
/** A JSON string with nothing to unescape: the text between the quotes is the value. */
const PLAIN_STRING = /^"[^"\\\x00-\x1f]*"$/
const SMALL_INT = /^(?:0|[1-9][0-9]{0,8})$/
const NOT_JSON = Symbol('not JSON')

function isKeyStart(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
}

function isKeyChar(c: number): boolean {
  return isKeyStart(c) || (c >= 0x30 && c <= 0x39)
}

/** The value of one JSON text (the common shapes without JSON.parse), or NOT_JSON. */
function jsonValue(text: string): unknown {
  const c = text.charCodeAt(0)
  if (c === 0x22) {
    if (PLAIN_STRING.test(text)) return text.slice(1, -1)
  } else if (c >= 0x30 && c <= 0x39) {
    if (SMALL_INT.test(text)) return Number(text)
  } else if (text === '[]') return []
  try {
    return JSON.parse(text) as unknown
  } catch {
    return NOT_JSON
  }
}

/** JSON text of a string, with the two line separators JSON leaves raw escaped too. */
function quote(s: string): string {
  return JSON.stringify(s).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
}

function scalarText(v: string | number | boolean | null): string {
  return typeof v === 'string' ? quote(v) : String(v)
}

/**
 * Serialise an ordered record of frontmatter values and a body. Keys with
 * `undefined` values are left out. Strings are double-quoted JSON, numbers
 * plain, lists of scalars one `  - item` per line (`[]` when empty), no line
 * folding: deterministic, so the same state always gives the same blob.
 * Values of any other shape (unknown keys a person added) are written by the
 * YAML library with the same style. The body is normalised to LF and ends
 * with exactly one newline (an empty body writes nothing after the closing
 * line).
 */
export function serialiseFrontmatter(fields: ReadonlyArray<[string, unknown]>, body: string): string {
  let out = '---\n'
  for (const [k, v] of fields) {
    if (v === undefined) continue
    if (isScalar(v) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      out += `${k}: ${scalarText(v)}\n`
    } else if (Array.isArray(v) && v.every(isScalar) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      out += v.length === 0 ? `${k}: []\n` : `${k}:\n${v.map((item) => `  - ${scalarText(item)}\n`).join('')}`
    } else {
      out += yaml().stringify({[k]: v}, YAML_STYLE)
    }
  }
  return `${out}---\n${normaliseBody(body)}`
}

/** The YAML library's options matching the canonical style, for values it writes. */
export const YAML_STYLE = {
  defaultStringType: 'QUOTE_DOUBLE',
  defaultKeyType: 'PLAIN',
  lineWidth: 0,
  minContentWidth: 0,
  indent: 2,
  indentSeq: true,
  doubleQuotedAsJSON: true,
  flowCollectionPadding: false,
} as const

/** LF line endings, no trailing blank lines, one final newline (or nothing at all). */
export function normaliseBody(body: string): string {
  const lf = body.replace(/\r\n?/g, '\n').replace(/\s+$/, '')
  return lf.length === 0 ? '' : `${lf}\n`
}
