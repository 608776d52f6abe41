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
  flex?: boolean
}

export function renderTable<Row>(term: Terminal, columns: Array<Column<Row>>, rows: Row[]): string {
  const cells = rows.map((r) => columns.map((c) => c.cell(r).replace(/\s+/g, ' ')))
  const widths = columns.map((c, i) => Math.max(displayWidth(c.header), ...cells.map((row) => displayWidth(row[i]!))))
  const gap = 2
  const fixed = widths.reduce((sum, w, i) => sum + (columns[i]!.flex ? 0 : w), 0) + gap * (columns.length - 1)
  const flexIndex = columns.findIndex((c) => c.flex)
  if (flexIndex >= 0 && Number.isFinite(term.width)) {
    widths[flexIndex] = Math.max(8, Math.min(widths[flexIndex]!, term.width - fixed))
  }
  const line = (values: string[], styles: Array<Style | undefined>): string =>
    values
      .map((v, i) => {
        const text = truncate(v, widths[i]!)
        const padded = i === values.length - 1 ? text : text + ' '.repeat(Math.max(0, widths[i]! - displayWidth(text)))
        const style = styles[i]
        return style ? paint(term, style, padded) : padded
      })
      .join(' '.repeat(gap))
      .trimEnd()
  const out = [line(columns.map((c) => c.header), columns.map(() => 'bold' as Style))]
  rows.forEach((row, r) => out.push(line(cells[r]!, columns.map((c) => c.style?.(row)))))
  return `${out.join('\n')}\n`
}
