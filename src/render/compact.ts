/**
 * The compact output format (`--format compact`, docs/compact.md): a
 * token-lean, line-oriented text that a model reads as easily as JSON and a
 * program parses back exactly. Four kinds of line:
 *
 *   # comment                       a note for the reader; parsers skip it
 *   key: value                      one scalar (absent when null, empty or false)
 *   name[N]{f1,f2,…}:               a table head, then N rows `v1|v2|…`
 *   name[N]:                        a text block head, then N lines of text
 *
 * Field names appear once per table; a column that is empty in every row is
 * left out of the head; an empty cell is "absent" (null, empty list, false).
 * Cells and scalars escape `\` `|` and line breaks; text block lines escape
 * only `\` (and control characters), so Markdown reads as itself.
 *
 * Pure: values in, text out (and back). Used by every read command that
 * offers compact output; new commands build their documents with
 * `CompactWriter` and need no other code here.
 */

/** What a cell or scalar may hold before encoding. */
export type CompactValue = string | number | boolean | null | undefined | readonly (string | number)[]

/** Control characters (C0 but tab and line feed, DEL, C1) and the bidi controls: escaped, so compact text cannot drive a terminal either. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)
}

/** A cell or scalar value as text: lists joined by `,`, true as `y`, absent as ``. */
export function encodeCell(value: CompactValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (value === true) return 'y'
  if (typeof value === 'number') return String(value)
  if (Array.isArray(value)) return value.map((v) => encodeCell(v)).join(',')
  const text = value as string
  return escapeControls(text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t'))
}

/** The text of a cell, scalar or text-block line, escapes undone. */
export function decodeCell(text: string): string {
  return text.replace(/\\(u\{([0-9a-f]+)\}|.)/g, (_m, esc: string, hex: string | undefined) => {
    if (hex !== undefined) return String.fromCodePoint(Number.parseInt(hex, 16))
    return esc === 'n' ? '\n' : esc === 'r' ? '\r' : esc === 't' ? '\t' : esc
  })
}

/** Split a row at unescaped `|`, keeping escapes for decodeCell. */
export function splitRow(line: string): string[] {
  const cells: string[] = []
  let current = ''
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (ch === '\\' && i + 1 < line.length) {
      current += ch + line[i + 1]!
      i++
    } else if (ch === '|') {
      cells.push(current)
      current = ''
    } else current += ch
  }
  cells.push(current)
  return cells
}

function isEmpty(value: CompactValue): boolean {
  return encodeCell(value) === ''
}

/** Builds one compact document, section by section. */
export class CompactWriter {
  private readonly lines: string[] = []

  /** `# text`: what the document is, for the reader. */
  comment(text: string): this {
    this.lines.push(`# ${text.replace(/\n/g, ' ')}`)
    return this
  }

  /** `key: value`, left out when the value is absent (null, empty, false). */
  scalar(key: string, value: CompactValue): this {
    const cell = encodeCell(value)
    if (cell !== '') this.lines.push(`${key}: ${cell}`)
    return this
  }

  /**
   * `name[N]{fields}:` and one row per record, in `fields` order; columns
   * empty in every row are dropped. Nothing at all when there are no rows.
   */
  table<T>(name: string, fields: ReadonlyArray<readonly [string, (row: T) => CompactValue]>, rows: readonly T[]): this {
    if (rows.length === 0) return this
    const cells = rows.map((r) => fields.map(([, get]) => encodeCell(get(r))))
    const keep = fields.map((_, i) => cells.some((c) => c[i] !== ''))
    const names = fields.filter((_, i) => keep[i]).map(([n]) => n)
    this.lines.push(`${name}[${rows.length}]{${names.join(',')}}:`)
    for (const c of cells) this.lines.push(c.filter((_, i) => keep[i]).join('|'))
    return this
  }

  /** `name[N]:` and the text's N lines; nothing when the text is empty or only whitespace. */
  text(name: string, text: string | null | undefined): this {
    if (!text || text.trim() === '') return this
    const lines = text.replace(/\n+$/, '').split('\n')
    this.lines.push(`${name}[${lines.length}]:`)
    for (const l of lines) this.lines.push(escapeControls(l.replace(/\\/g, '\\\\').replace(/\r/g, '\\r')))
    return this
  }

  toString(): string {
    return this.lines.length ? `${this.lines.join('\n')}\n` : ''
  }
}

/** A parsed compact document: scalars, tables (rows as field → raw decoded text) and text blocks. */
export interface CompactDocument {
  comments: string[]
  scalars: Record<string, string>
  tables: Record<string, Array<Record<string, string>>>
  texts: Record<string, string>
}

/**
 * Read a compact document back. Values stay text (the consumer knows each
 * field's type: a number, a list split at `,`, `y` for true); absent cells
 * are missing keys. Throws on a malformed document.
 */
export function parseCompact(doc: string): CompactDocument {
  const out: CompactDocument = {comments: [], scalars: {}, tables: {}, texts: {}}
  const lines = doc.replace(/\n$/, '').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line === '') continue
    if (line.startsWith('# ')) {
      out.comments.push(line.slice(2))
      continue
    }
    const head = /^([a-z_][a-z0-9_]*)\[(\d+)\](?:\{([a-z0-9_,]*)\})?:$/.exec(line)
    if (head) {
      const [, name, count, fields] = head
      const n = Number(count)
      const body = lines.slice(i + 1, i + 1 + n)
      if (body.length !== n) throw new Error(`compact: ${name} announces ${n} lines, ${body.length} follow`)
      i += n
      if (fields === undefined) {
        out.texts[name!] = body.map(decodeCell).join('\n')
        continue
      }
      const names = fields.split(',')
      out.tables[name!] = body.map((row) => {
        const cells = splitRow(row)
        if (cells.length !== names.length) throw new Error(`compact: a row of ${name} has ${cells.length} cells, the head names ${names.length}`)
        const record: Record<string, string> = {}
        names.forEach((f, j) => {
          if (cells[j] !== '') record[f] = decodeCell(cells[j]!)
        })
        return record
      })
      continue
    }
    const scalar = /^([a-z_][a-z0-9_]*): (.*)$/.exec(line)
    if (!scalar) throw new Error(`compact: line ${i + 1} is neither a comment, a scalar nor a head: ${line.slice(0, 60)}`)
    out.scalars[scalar[1]!] = decodeCell(scalar[2]!)
  }
  return out
}
