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
  const cellWidths = cells.map((row) => row.map(displayWidth))
  // A loop, not Math.max(...all): a spread of every row overflows the stack on a long list.
  const widths = columns.map((c) => displayWidth(c.header))
  for (const row of cellWidths) row.forEach((w, i) => (widths[i] = Math.max(widths[i]!, w)))
  const gap = 2
  const fixed = widths.reduce((sum, w, i) => sum + (columns[i]!.flex ? 0 : w), 0) + gap * (columns.length - 1)
  const flexIndex = columns.findIndex((c) => c.flex)
  if (flexIndex >= 0 && Number.isFinite(term.width)) {
    widths[flexIndex] = Math.max(8, Math.min(widths[flexIndex]!, term.width - fixed))
  }
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
