/**
 * What the terminal allows: colour only on a TTY and never with NO_COLOR
 * set (https://no-color.org), and the width to fit tables into (the TTY's
 * columns, else $COLUMNS, else no limit when piped).
 */
export interface Terminal {
  color: boolean
  width: number
}

export function detectTerminal(stream: NodeJS.WriteStream = process.stdout): Terminal {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== ''
  const color = !noColor && stream.isTTY === true && process.env.TERM !== 'dumb'
  const columns = stream.isTTY ? stream.columns : Number(process.env.COLUMNS)
  return {color, width: Number.isFinite(columns) && columns! > 0 ? columns! : Number.POSITIVE_INFINITY}
}

const CODES = {bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39]} as const
export type Style = keyof typeof CODES

export function paint(term: Terminal, style: Style, text: string): string {
  if (!term.color || text === '') return text
  const [open, close] = CODES[style]
  return `\u001b[${open}m${text}\u001b[${close}m`
}

/**
 * Text from the ref (a path someone pushed, a reason quoting it) with
 * control characters shown as `\xNN`, so it cannot move the cursor or
 * recolour a terminal.
 */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

/** Display width of plain text (code points; wide CJK counts 2). */
export function displayWidth(text: string): number {
  // Printable ASCII, by far the common case, is one column a character.
  if (PRINTABLE_ASCII.test(text)) return text.length
  let w = 0
  for (const ch of text) {
    const cp = ch.codePointAt(0)!
    w += cp >= 0x1100 && (cp <= 0x115f || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0x1f300 && cp <= 0x1faff)) ? 2 : 1
  }
  return w
}

/** Cut text to `width` columns, ending with … when cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  if (width <= 1) return width === 1 ? '…' : ''
  let out = ''
  let w = 0
  for (const ch of text) {
    const cw = displayWidth(ch)
    if (w + cw > width - 1) break
    out += ch
    w += cw
  }
  return `${out}…`
}

export type Part = readonly [text: string, style: Style | null]

/** Parts cut together to `width` columns (… when cut), then painted: a colour code is never cut in two. */
export function paintedLine(term: Terminal, width: number, parts: readonly Part[]): string {
  const out: string[] = []
  let room = parts.reduce((n, [t]) => n + displayWidth(t), 0) > width ? width : Number.POSITIVE_INFINITY
  for (const [text, style] of parts) {
    const w = displayWidth(text)
    // The part that reaches the edge is cut with … (also when it fills the line exactly: more was to come).
    const t = w >= room ? truncate(`${text}…`, room) : text
    out.push(style ? paint(term, style, t) : t)
    room -= w
    if (room <= 0) break
  }
  return out.join('')
}
