import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {SEARCH_OPTIONS, exactFirst, snippetOf, topK} from '../../src/app/search'
import {evaluate, updatedFlat} from '../../src/core/text-index'

/**
 * The page `tasks search` shows without filters comes from the best hits
 * the evaluator picks while matching (`Ranked.top`) and the exact titles
 * put first; it must be the page a full sort of every hit gives (exact
 * titles first, then score, highest first, then document number), over
 * random corpora, queries, exact-title sets (some not hits) and page sizes.
 */

const WORDS = ['lease', 'leases', 'release', 'renewal', 'list', 'lists', 'test', 'the', 'then', 'fix', 'parse', 'parser', 'x']
const text = fc.array(fc.constantFrom(...WORDS), {maxLength: 8}).map((ws) => ws.join(' '))
const corpus = fc.uniqueArray(fc.record({id: fc.stringMatching(/^t[0-9a-z]{1,4}$/), title: text, body: text, comments: text, tags: text}), {minLength: 1, maxLength: 60, selector: (d) => d.id})
const query = fc.array(fc.constantFrom(...WORDS, 'lis', 'tes', 'relese'), {minLength: 1, maxLength: 3}).map((ws) => ws.join(' '))
const FIELDS = ['title', 'body', 'comments', 'tags']

/** The old way: every hit sorted. */
function fullPage(docs: ArrayLike<number>, exact: ReadonlySet<number>, score: Float64Array, limit: number): number[] {
  return Array.from(docs)
    .sort((a, b) => Number(exact.has(b)) - Number(exact.has(a)) || score[b]! - score[a]! || a - b)
    .slice(0, limit)
}

describe('search page', () => {
  it('is the page a full sort gives, from the best hits picked while matching or by topK', () => {
    fc.assert(
      fc.property(corpus, query, fc.integer({min: 1, max: 25}), fc.array(fc.nat(), {maxLength: 6}), fc.boolean(), (docs, q, limit, exactPicks, or) => {
        const flat = updatedFlat(null, FIELDS, new Set(), docs.map((d) => ({id: d.id, values: FIELDS.map((f) => d[f as keyof typeof d])})))
        const exact = new Set(exactPicks.map((n) => n % flat.docs))
        const options = or ? {...SEARCH_OPTIONS, combineWith: 'OR' as const} : SEARCH_OPTIONS
        const ranked = evaluate(flat, q, options, limit + exact.size)
        const want = fullPage(ranked.docs, exact, ranked.score, limit)
        expect(exactFirst(ranked, exact).slice(0, limit)).toEqual(want)
        expect(topK(ranked.docs, limit, exact, ranked.score)).toEqual(want)
        expect(topK(ranked.docs, limit, new Set(), ranked.score)).toEqual(fullPage(ranked.docs, new Set(), ranked.score, limit))
      }),
      {numRuns: 300},
    )
  })
})

/** snippetOf's first match as it was found before: a walk over every word. */
function firstWordWalk(text: string, terms: readonly string[]): number {
  const lower = text.replace(/\s+/g, ' ').trim().toLowerCase()
  for (const m of lower.matchAll(/[\p{L}\p{N}_]+/gu)) if (terms.some((t) => m[0].startsWith(t))) return m.index
  return -1
}

describe('snippets', () => {
  it('cut around the first word starting with a term, found in one search as by walking every word', () => {
    const piece = fc.constantFrom('lease', 'Lease', 'LEASE', 're', 'release', 'leased', 'é', 'É', 'naïve', 'İstanbul', 'ß', '𝒜bc', '😀', '_x', 'x_', '42', 'a1', ' ', '  ', '\n', '\t', '-', '.', ',', '(', ')', '$', '+', "'", '…')
    const textArb = fc.array(piece, {maxLength: 40}).map((ps) => ps.join(''))
    const term = fc.oneof(fc.constantFrom('lease', 're', 'é', 'naïve', 'i̇stanbul', 'ß', '𝒜b', '_x', 'x', '42', 'a1', 'le$', 'a+b', '😀', 'ss', ''), fc.string({maxLength: 3}))
    fc.assert(
      fc.property(textArb, fc.array(term, {minLength: 1, maxLength: 4}), (text, terms) => {
        const at = firstWordWalk(text, terms)
        const got = snippetOf(text, terms, 20)
        if (at === -1) expect(got).toBeNull()
        else {
          // The excerpt is the one cut around that word (the cutting itself is unchanged).
          const flat = text.replace(/\s+/g, ' ').trim()
          const start = Math.max(0, at - 6)
          let s = start
          if (s > 0) {
            const sp = flat.indexOf(' ', s)
            if (sp !== -1 && sp < at) s = sp + 1
          }
          let e = Math.min(flat.length, start + 20)
          if (e < flat.length) {
            const sp = flat.lastIndexOf(' ', e)
            if (sp > at) e = sp
          }
          expect(got).toBe(`${s > 0 ? '…' : ''}${flat.slice(s, e)}${e < flat.length ? '…' : ''}`)
        }
      }),
      {numRuns: 2000},
    )
  })
})
