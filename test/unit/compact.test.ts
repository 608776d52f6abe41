/**
 * The compact encoder and reader (src/render/compact.ts): any text survives
 * a cell, a scalar or a text block exactly, rows split where the encoder
 * put their separators, and empty columns are left out of a table's head.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {CompactWriter, decodeCell, encodeCell, parseCompact, splitRow} from '../../src/render/compact'

const anyText = fc.string({unit: 'binary', maxLength: 60})

describe('compact cells', () => {
  it('encode → split → decode gives back every cell of a row', () => {
    fc.assert(
      fc.property(fc.array(anyText.filter((s) => s !== ''), {minLength: 1, maxLength: 6}), (cells) => {
        const line = cells.map((c) => encodeCell(c)).join('|')
        expect(line).not.toMatch(/[\n\r]/)
        expect(splitRow(line).map(decodeCell)).toEqual(cells)
      }),
    )
  })

  it('absent values are empty; true is y; lists join with commas', () => {
    expect([null, undefined, false, '', []].map((v) => encodeCell(v as never))).toEqual(['', '', '', '', ''])
    expect(encodeCell(true)).toBe('y')
    expect(encodeCell(['a', 'b', 3])).toBe('a,b,3')
    expect(encodeCell('a|b\\c\nd\u001b')).toBe('a\\|b\\\\c\\nd\\u{1b}')
  })
})

describe('compact documents', () => {
  it('scalars, tables and text blocks read back exactly', () => {
    fc.assert(
      fc.property(anyText, anyText, fc.array(fc.tuple(anyText, fc.option(anyText)), {maxLength: 5}), (scalar, text, rows) => {
        const w = new CompactWriter().comment('test doc').scalar('s', scalar).text('body', text)
        w.table('rows', [['a', (r: [string, string | null]) => r[0]], ['b', (r: [string, string | null]) => r[1]]], rows)
        const doc = parseCompact(w.toString())
        if (scalar !== '') expect(doc.scalars.s).toBe(scalar)
        else expect(doc.scalars.s).toBeUndefined()
        if (text.trim() !== '') expect(doc.texts.body).toBe(text.replace(/\n+$/, ''))
        const back = doc.tables.rows ?? []
        expect(back).toHaveLength(rows.length)
        back.forEach((r, i) => {
          expect(r.a ?? '').toBe(rows[i]![0])
          expect(r.b ?? null).toBe(rows[i]![1] || null)
        })
      }),
    )
  })

  it('a column empty in every row is not in the head', () => {
    const w = new CompactWriter().table('t', [['x', (r: {x: number}) => r.x], ['never', () => null]], [{x: 1}, {x: 2}])
    expect(w.toString()).toBe('t[2]{x}:\n1\n2\n')
  })

  it('refuses a document whose head announces more lines than follow', () => {
    expect(() => parseCompact('t[3]{x}:\n1\n')).toThrow(/announces 3/)
  })
})

describe('compact text cannot drive a terminal', () => {
  it('escape sequences and bidi controls are written as \\u{…} and read back exactly', () => {
    const hostile = 'a\u001b[2Jb\u202ec\u0007'
    const doc = new CompactWriter().scalar('s', hostile).text('t', hostile).toString()
    expect(doc).not.toMatch(/[\u001b\u202e\u0007]/)
    const back = parseCompact(doc)
    expect(back.scalars.s).toBe(hostile)
    expect(back.texts.t).toBe(hostile)
  })
})
