import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {SEARCH_OPTIONS, exactFirst, topK} from '../../src/app/search'
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
