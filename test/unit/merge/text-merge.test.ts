import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {matchLines, mergeText, renderConflict, splitLines} from '../../../src/merge/text-merge'
import {conflictMarkerLine} from '../../../src/core/frontmatter'
import {editedLines} from './arbitraries'

const L = (...lines: string[]): string => lines.map((l) => `${l}\n`).join('')

/** Reference LCS length by dynamic programming, for small inputs. */
function lcsLength(a: string[], b: string[]): number {
  const dp = Array.from({length: a.length + 1}, () => new Array<number>(b.length + 1).fill(0))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) dp[i]![j] = a[i - 1] === b[j - 1] ? dp[i - 1]![j - 1]! + 1 : Math.max(dp[i - 1]![j]!, dp[i]![j - 1]!)
  }
  return dp[a.length]![b.length]!
}

/** Texts over a small alphabet of lines, so that sides share and repeat lines. */
const lineArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', '', '---', 'x y')
const linesArb = fc.array(lineArb, {maxLength: 14})
const textArb = fc.tuple(linesArb, fc.boolean()).map(([ls, trailing]) => (ls.length === 0 ? '' : ls.join('\n') + (trailing ? '\n' : '')))
const tripleArb = linesArb.chain((base) => fc.tuple(fc.constant(base), editedLines(base, lineArb, 4), editedLines(base, lineArb, 4)))
const toText = (ls: string[]): string => ls.map((l) => `${l}\n`).join('')

const count = (lines: string[], l: string): number => lines.filter((x) => x === l).length

describe('splitLines', () => {
  it('keeps terminators so that joining gives the text back', () => {
    expect(splitLines('')).toEqual([])
    expect(splitLines('a')).toEqual(['a'])
    expect(splitLines('a\n\nb')).toEqual(['a\n', '\n', 'b'])
    fc.assert(fc.property(fc.string(), (s) => splitLines(s).join('') === s))
  })
})

describe('matchLines (Myers)', () => {
  it('finds a longest common subsequence (property, against DP)', () => {
    fc.assert(
      fc.property(linesArb, linesArb, (a, b) => {
        const m = matchLines(a, b)
        let last = -1
        let n = 0
        for (let i = 0; i < a.length; i++) {
          if (m[i] === -1) continue
          expect(m[i]!).toBeGreaterThan(last)
          expect(b[m[i]!]).toBe(a[i])
          last = m[i]!
          n++
        }
        expect(n).toBe(lcsLength(a, b))
      }),
      {numRuns: 500},
    )
  })

  it('handles large texts quickly', () => {
    const a = Array.from({length: 20000}, (_, i) => `line ${i}`)
    const b = a.filter((_, i) => i % 7 !== 0).map((l, i) => (i % 11 === 0 ? `${l} changed` : l))
    const t = Date.now()
    const m = matchLines(a, b)
    expect(Date.now() - t).toBeLessThan(5000)
    // Every line of b that was not changed is matched; changed lines are not in a.
    expect([...m].filter((x) => x >= 0).length).toBe(b.filter((_, i) => i % 11 !== 0).length)
  })
})

describe('mergeText', () => {
  it('merges non-overlapping changes on both sides', () => {
    const base = L('one', 'two', 'three', 'four', 'five')
    const ours = L('ONE', 'two', 'three', 'four', 'five')
    const theirs = L('one', 'two', 'three', 'four', 'FIVE', 'six')
    expect(mergeText(base, ours, theirs)).toEqual({clean: true, text: L('ONE', 'two', 'three', 'four', 'FIVE', 'six')})
  })

  it('takes an identical change on both sides once', () => {
    const base = L('a', 'b', 'c')
    const both = L('a', 'B', 'c', 'd')
    expect(mergeText(base, both, both)).toEqual({clean: true, text: both})
    expect(mergeText(base, L('a', 'B', 'c'), L('a', 'B', 'c', 'd'))).toEqual({clean: true, text: L('a', 'B', 'c', 'd')})
  })

  it('merges a deletion on one side with an edit elsewhere on the other', () => {
    expect(mergeText(L('a', 'b', 'c', 'd'), L('a', 'c', 'd'), L('a', 'b', 'c', 'D'))).toEqual({clean: true, text: L('a', 'c', 'D')})
  })

  it('reports overlapping different changes as a conflict with both texts whole and the regions, never markers', () => {
    const r = mergeText(L('a', 'b', 'c'), L('a', 'X', 'c'), L('a', 'Y', 'c'))
    expect(r).toEqual({
      clean: false,
      ours: L('a', 'X', 'c'),
      theirs: L('a', 'Y', 'c'),
      regions: [
        {conflict: false, text: 'a\n'},
        {conflict: true, base: 'b\n', ours: 'X\n', theirs: 'Y\n'},
        {conflict: false, text: 'c\n'},
      ],
    })
    expect(JSON.stringify(r)).not.toMatch(/<<<<<<<|>>>>>>>|=======/)
  })

  it('keeps merging after a conflict: the regions hold every clean edit and every conflict', () => {
    const r = mergeText(L('a', 'b', 'c', 'd', 'e', 'f', 'g'), L('A', 'b', 'X', 'd', 'e', 'f', 'P'), L('a', 'b', 'Y', 'd', 'E', 'f', 'Q'))
    expect(r.clean).toBe(false)
    if (r.clean) return
    expect(renderConflict(r.regions, {ours: 'ours', theirs: 'theirs'})).toBe(
      L('A', 'b', '<<<<<<< ours', 'X', '=======', 'Y', '>>>>>>> theirs', 'd', 'E', 'f', '<<<<<<< ours', 'P', '=======', 'Q', '>>>>>>> theirs'),
    )
    // A last line without a newline does not glue onto a marker.
    const end = mergeText('a\nb', 'a\nX', 'a\nY')
    expect(end.clean).toBe(false)
    if (!end.clean) expect(renderConflict(end.regions, {ours: 'o', theirs: 't'})).toBe(L('a', '<<<<<<< o', 'X', '=======', 'Y', '>>>>>>> t'))
  })

  it('rendered conflicts keep every line either side added, between complete markers (property)', () => {
    fc.assert(
      fc.property(tripleArb, ([bl, ol, tl]) => {
        const [b, o, t] = [toText(bl), toText(ol), toText(tl)]
        const r = mergeText(b, o, t)
        if (r.clean) return
        const out = renderConflict(r.regions, {ours: 'ours', theirs: 'theirs'})
        // Every line a side added is there (lines only one side kept may go: the other deleted them).
        const outLines = out.split('\n')
        for (const side of [ol, tl]) for (const line of side) if (!(bl as string[]).includes(line)) expect(outLines).toContain(line)
        expect(conflictMarkerLine(out)).not.toBeNull()
      }),
      {numRuns: 500},
    )
  })

  it('conflictMarkerLine finds a complete block only', () => {
    expect(conflictMarkerLine(L('x', '<<<<<<< ours', 'a', '=======', 'b', '>>>>>>> theirs'))).toBe(2)
    expect(conflictMarkerLine(L('<<<<<<<', '=======', '>>>>>>>'))).toBe(1)
    expect(conflictMarkerLine(L('<<<<<<< ours', 'a', '=======', 'b'))).toBeNull()
    expect(conflictMarkerLine(L(' <<<<<<< ours', 'a', '=======', 'b', '>>>>>>> theirs'))).toBeNull()
    expect(conflictMarkerLine(L('<<<<<<<< eight', '=======', '>>>>>>> theirs'))).toBeNull()
    expect(conflictMarkerLine(L('>>>>>>> theirs', '=======', '<<<<<<< ours'))).toBeNull()
  })

  it('conflicts on two different insertions at the same place, and on edit next to edit', () => {
    expect(mergeText(L('a', 'b'), L('a', 'x', 'b'), L('a', 'y', 'b')).clean).toBe(false)
    expect(mergeText('', 'mine\n', 'yours\n').clean).toBe(false)
  })

  it('handles a missing final newline and CR characters as text', () => {
    expect(mergeText('a\nb', 'A\nb', 'a\nb')).toEqual({clean: true, text: 'A\nb'})
    expect(mergeText('a\nb\nc', 'A\nb\nc', 'a\nb\nC')).toEqual({clean: true, text: 'A\nb\nC'})
    expect(mergeText('a\r\nm\r\nb\r\n', 'a\r\nm\r\nB\r\n', 'A\r\nm\r\nb\r\n')).toEqual({clean: true, text: 'A\r\nm\r\nB\r\n'})
    // Edits on adjacent lines with no unchanged line between them conflict, as in git.
    expect(mergeText('a\nb\n', 'a\nB\n', 'A\nb\n').clean).toBe(false)
  })

  it('is deterministic (property)', () => {
    fc.assert(fc.property(textArb, textArb, textArb, (b, o, t) => {
      expect(mergeText(b, o, t)).toEqual(mergeText(b, o, t))
    }))
  })

  it('returns the side when merged with itself or with an unchanged base (property)', () => {
    fc.assert(
      fc.property(textArb, textArb, (b, x) => {
        expect(mergeText(b, x, x)).toEqual({clean: true, text: x})
        expect(mergeText(b, b, x)).toEqual({clean: true, text: x})
        expect(mergeText(b, x, b)).toEqual({clean: true, text: x})
      }),
    )
    // Same with lines that do not end in newlines mixed in, past the shortcuts.
    fc.assert(
      fc.property(tripleArb, ([b, o]) => {
        const base = toText(b)
        const x = toText(o)
        expect(mergeText(base, base, x)).toEqual({clean: true, text: x})
      }),
    )
  })

  it('is symmetric: swapping the sides gives the same clean text (property)', () => {
    fc.assert(
      fc.property(tripleArb, ([b, o, t]) => {
        const r1 = mergeText(toText(b), toText(o), toText(t))
        const r2 = mergeText(toText(b), toText(t), toText(o))
        expect(r1.clean).toBe(r2.clean)
        if (r1.clean && r2.clean) expect(r1.text).toBe(r2.text)
      }),
      {numRuns: 500},
    )
  })

  it('loses no line either side added: a clean merge keeps every added copy (property)', () => {
    let clean = 0
    fc.assert(
      fc.property(tripleArb, ([b, o, t]) => {
        const r = mergeText(toText(b), toText(o), toText(t))
        if (!r.clean) {
          expect(r.ours).toBe(toText(o))
          expect(r.theirs).toBe(toText(t))
          return
        }
        clean++
        const merged = splitLines(r.text).map((l) => l.slice(0, -1))
        for (const side of [o, t]) {
          for (const line of new Set(side)) expect(count(merged, line)).toBeGreaterThanOrEqual(count(side, line) - count(b, line))
        }
      }),
      {numRuns: 1000},
    )
    expect(clean).toBeGreaterThan(100)
  })

  it('a clean merge keeps both sides’ changes: merging the result with either side changes nothing more (property)', () => {
    let clean = 0
    fc.assert(
      fc.property(tripleArb, ([b, o, t]) => {
        const r = mergeText(toText(b), toText(o), toText(t))
        if (!r.clean) return
        clean++
        // Re-merging ours into the result, with ours as base, gives the result again.
        expect(mergeText(toText(o), r.text, toText(o))).toEqual({clean: true, text: r.text})
      }),
    )
    expect(clean).toBeGreaterThan(10)
  })
})

describe('mergeText: size', () => {
  it('merges a whole rewrite of a 64 KiB description quickly', () => {
    const base = Array.from({length: 3000}, (_, i) => `original line ${i} of the description`).join('\n') + '\n'
    const ours = Array.from({length: 3000}, (_, i) => `rewritten line ${i} by alice`).join('\n') + '\n'
    const theirs = base.replace('original line 10 ', 'edited line 10 ')
    const t = Date.now()
    expect(mergeText(base, ours, theirs).clean).toBe(false)
    expect(Date.now() - t).toBeLessThan(2000)
  })

  it('merges texts of more lines than a function call can take arguments', () => {
    const base = Array.from({length: 200_000}, (_, i) => `line ${i}\n`)
    const ours = [...base]
    ours[10] = 'ours\n'
    const theirs = [...base]
    theirs[150_000] = 'theirs\n'
    const r = mergeText(base.join(''), ours.join(''), theirs.join(''))
    expect(r.clean).toBe(true)
    const expected = [...ours]
    expected[150_000] = 'theirs\n'
    expect(r.clean && r.text).toBe(expected.join(''))
  })

  it('copes with a pathological text of two repeated lines', () => {
    let seed = 1
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31)
    const mk = () => Array.from({length: 8000}, () => (rnd() < 0.5 ? 'a\n' : 'b\n')).join('')
    const t = Date.now()
    mergeText(mk(), mk(), mk())
    expect(Date.now() - t).toBeLessThan(20000)
  })
})
