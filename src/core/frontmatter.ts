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

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_]*):(?: (.+))?$/

/**
 * The canonical form only: `key: <JSON scalar or [] or flow>` lines and
 * `key:` followed by `  - <JSON>` items. Every such line is also YAML with
 * the same meaning (JSON is YAML 1.2). Returns null for anything else, so
 * the caller falls back to the YAML parser, which also reports errors.
 */
export function parseCanonical(text: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = Object.create(null)
  const lines = text.split('\n')
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (line === '') {
      i++
      continue
    }
    const m = KEY_LINE.exec(line)
    if (!m || m[1]! in out) return null
    const key = m[1]!
    if (FORBIDDEN_KEYS.has(key)) return null
    if (m[2] === undefined) {
      const items: unknown[] = []
      i++
      while (i < lines.length && lines[i]!.startsWith('  - ')) {
        try {
          items.push(JSON.parse(lines[i]!.slice(4)))
        } catch {
          return null
        }
        i++
      }
      if (items.length === 0) return null
      out[key] = items
      continue
    }
    try {
      out[key] = JSON.parse(m[2])
    } catch {
      return null
    }
    i++
  }
  return {...out}
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
