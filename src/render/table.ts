/**
 * Plain-text tables that fit the terminal: every column is as wide as its
 * widest cell except the one marked `flex`, which takes what is left and
 * truncates with …. Styling is applied after measuring, so colour codes
 * never break alignment.
 */
import {type Style, type Terminal, displayWidth, paint, truncate} from './terminal'

export interface Column<Row> {
  header: string
  cell: (row: Row) => string
  style?: (row: Row) => Style | undefined
  /** Takes the width the others leave (at least `min`); it shrinks last. */
  flex?: boolean
  /** When the table is too wide, columns with a `shrink` rank give up width first, lowest rank first, down to `min`. */
  shrink?: number
  /** Narrowest this column is cut to (default: its header's width; 8 for the flex column). */
  min?: number
}

/**
 * Make the widths add up to `room` when they can: columns with a shrink
 * rank give up width first (lowest rank first, down to their minimum), the
 * flex column last (down to its minimum). Rows are never wrapped; cells cut
 * to a narrower column end with ….
 */
function fitWidths<Row>(columns: ReadonlyArray<Column<Row>>, widths: number[], room: number): void {
  let over = widths.reduce((a, b) => a + b, 0) - room
  const order = columns
    .map((c, i) => ({i, rank: c.flex ? Number.MAX_SAFE_INTEGER : c.shrink}))
    .filter((x): x is {i: number; rank: number} => x.rank !== undefined)
    .sort((a, b) => a.rank - b.rank)
  for (const {i} of order) {
    if (over <= 0) return
    const c = columns[i]!
    const min = Math.min(widths[i]!, c.min ?? (c.flex ? 8 : displayWidth(c.header)))
    const cut = Math.min(widths[i]! - min, over)
    widths[i]! -= cut
    over -= cut
  }
}

export function renderTable<Row>(term: Terminal, columns: Array<Column<Row>>, rows: Row[]): string {
  const cells = rows.map((r) => columns.map((c) => c.cell(r).replace(/\s+/g, ' ')))
  const cellWidths = cells.map((row) => row.map(displayWidth))
  // A loop, not Math.max(...all): a spread of every row overflows the stack on a long list.
  const widths = columns.map((c) => displayWidth(c.header))
  for (const row of cellWidths) row.forEach((w, i) => (widths[i] = Math.max(widths[i]!, w)))
  const gap = 2
  if (Number.isFinite(term.width)) fitWidths(columns, widths, term.width - gap * (columns.length - 1))
  const line = (values: string[], valueWidths: number[], styles: Array<Style | undefined>): string =>
    values
      .map((v, i) => {
        const fits = valueWidths[i]! <= widths[i]!
        const text = fits ? v : truncate(v, widths[i]!)
        const padded = i === values.length - 1 ? text : text + ' '.repeat(Math.max(0, widths[i]! - (fits ? valueWidths[i]! : displayWidth(text))))
        const style = styles[i]
        return style ? paint(term, style, padded) : padded
      })
      .join(' '.repeat(gap))
      .trimEnd()
  const headers = columns.map((c) => c.header)
  const out = [line(headers, headers.map(displayWidth), columns.map(() => 'bold' as Style))]
  rows.forEach((row, r) => out.push(line(cells[r]!, cellWidths[r]!, columns.map((c) => c.style?.(row)))))
  return `${out.join('\n')}\n`
}
