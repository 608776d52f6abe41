/**
 * Markdown-with-frontmatter files: a `---` line, YAML, a `---` line, then the
 * body as plain text. The splitter is deliberately small: the frontmatter ends
 * at the first line that is exactly `---`, and everything after it is body
 * text, so a body containing `---` or YAML never changes structure.
 *
 * Serialisation is deterministic (given key order, double-quoted strings, no
 * line folding, LF, one trailing newline) so the same state always hashes to
 * the same blob. Parsing uses the `yaml` package with YAML 1.2 core schema
 * (no timestamps or octal coercion) and rejects duplicate keys.
 */
import {yaml} from './yaml-loader'

export interface SplitFile {
  frontmatter: string
  body: string
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

/** Parse frontmatter YAML into a plain object, or return an error message. */
export function parseFrontmatterYaml(yamlText: string): {fields: Record<string, unknown>} | {error: string} {
  const doc = yaml().parseDocument(yamlText, {schema: 'core', uniqueKeys: true, prettyErrors: false})
  if (doc.errors.length > 0) return {error: `invalid YAML: ${doc.errors[0]!.message.split('\n')[0]}`}
  const value: unknown = doc.toJS({maxAliasCount: 0})
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {error: 'frontmatter is not a mapping of keys to values'}
  }
  return {fields: value as Record<string, unknown>}
}

/**
 * Serialise an ordered record of frontmatter values and a body. Keys with
 * `undefined` values are left out. The body is normalised to LF and ends with
 * exactly one newline (an empty body writes nothing after the closing line).
 */
export function serialiseFrontmatter(fields: ReadonlyArray<[string, unknown]>, body: string): string {
  const record: Record<string, unknown> = {}
  for (const [k, v] of fields) if (v !== undefined) record[k] = v
  const yamlText = yaml().stringify(record, {
    defaultStringType: 'QUOTE_DOUBLE',
    defaultKeyType: 'PLAIN',
    lineWidth: 0,
    minContentWidth: 0,
    indent: 2,
    indentSeq: true,
    doubleQuotedAsJSON: true,
    flowCollectionPadding: false,
  })
  return `---\n${yamlText}---\n${normaliseBody(body)}`
}

/** LF line endings, no trailing blank lines, one final newline (or nothing at all). */
export function normaliseBody(body: string): string {
  const lf = body.replace(/\r\n?/g, '\n').replace(/\s+$/, '')
  return lf.length === 0 ? '' : `${lf}\n`
}
