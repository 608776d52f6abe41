/** Tables fitted to the terminal: widths in display columns, truncation of the flex column, and long lists. */
import {describe, expect, it} from 'vitest'
import {type Column, renderTable} from '../../src/render/table'
import {displayWidth, truncate} from '../../src/render/terminal'

interface Row {
  id: string
  title: string
}
const columns: Array<Column<Row>> = [
  {header: 'ID', cell: (r) => r.id},
  {header: 'TITLE', cell: (r) => r.title, flex: true},
  {header: 'END', cell: () => 'x'},
]

describe('terminal text', () => {
  it('measures wide characters as two columns and truncates by columns', () => {
    expect(displayWidth('abc')).toBe(3)
    expect(displayWidth('日本語')).toBe(6)
    expect(displayWidth('a日b')).toBe(4)
    expect(truncate('日本語テキスト', 7)).toBe('日本語…')
    expect(displayWidth(truncate('日本語テキスト', 7))).toBeLessThanOrEqual(7)
    expect(truncate('short', 10)).toBe('short')
  })
})

describe('renderTable', () => {
  it('aligns columns by display width and fits the flex column to the terminal', () => {
    const rows = [
      {id: 'tsk-a', title: 'plain title that is rather long'},
      {id: 'tsk-bbbbbb', title: '日本語のタイトル'},
    ]
    const text = renderTable({color: false, width: 30}, columns, rows)
    const lines = text.trimEnd().split('\n')
    expect(lines).toHaveLength(3)
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(30)
    // The last column starts at the same display column on every line.
    const endAt = lines.map((l) => displayWidth(l.slice(0, l.lastIndexOf(l.startsWith('ID') ? 'END' : 'x'))))
    expect(new Set(endAt).size).toBe(1)
    expect(lines[1]).toContain('…')
  })

  it('renders a list longer than a function call can take arguments', () => {
    const rows = Array.from({length: 200_000}, (_, i) => ({id: `tsk-${i}`, title: `t${i}`}))
    const text = renderTable({color: false, width: Number.POSITIVE_INFINITY}, columns, rows)
    expect(text.split('\n')).toHaveLength(200_002)
  })
})
