import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import MiniSearch, {type Options, type SearchOptions} from 'minisearch'
import {type EvalOptions, type FlatIndex, type PlainIndex, docsWithAllTerms, evaluate, flatFromPlain, plainFromFlat, queryTerms, sortedHits, updatedFlat} from '../../src/core/text-index'
import {readSearchCache, writeSearchCache} from '../../src/refstore/search-cache'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/**
 * The search evaluator must rank exactly as MiniSearch does: over random
 * corpora and random queries, the same documents, in the same order (ties
 * aside), with scores equal within 1e-9 relative, for every option
 * `tasks search` uses (and more: OR, no prefix, other fuzziness, field
 * subsets, boosts, discarded documents).
 */

interface Doc {
  id: string
  title: string
  body: string
  comments: string
  tags: string
}
const FIELDS = ['title', 'body', 'comments', 'tags']

// A small vocabulary, so words repeat across documents, share prefixes and sit within small edit distances.
const WORDS = ['lease', 'leases', 'leased', 'release', 'renewal', 'renew', 'list', 'lists', 'listing', 'test', 'tests', 'the', 'a', 'on', 'fix', 'fixes', 'Fix', 'parse', 'parsing', 'parser', 'pars', 'émile', 'Émile', 'naïve', 'kafka', 'kafkaesque', 'x', 'yaml', 'yml', 'abcdefghijkl', 'abcdefghijxl', 'ab']
const SEPARATORS = [' ', '  ', ', ', '. ', '\n', '-', '/', "'", ' (', ') ', '`', ':']

const text = fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), {maxLength: 14}).map((parts) => parts.map(([w, s]) => w + s).join(''))
const docs = fc.uniqueArray(fc.record({id: fc.stringMatching(/^t[0-9a-z]{1,5}$/), title: text, body: text, comments: text, tags: text}), {minLength: 1, maxLength: 40, selector: (d) => d.id})
const typo = fc.tuple(fc.constantFrom(...WORDS), fc.nat(), fc.constantFrom('', 'e', 'z', 'é')).map(([w, i, c]) => {
  const at = i % (w.length + 1)
  return w.slice(0, at) + c + w.slice(at + 1)
})
const word = fc.oneof(fc.constantFrom(...WORDS), typo, fc.constantFrom(...WORDS).map((w) => w.slice(0, 3)))
const query = fc.array(fc.tuple(word, fc.constantFrom(' ', ', ', ' - ')), {minLength: 1, maxLength: 4}).map((ps) => ps.map(([w, s]) => w + s).join(''))
const options: fc.Arbitrary<EvalOptions> = fc.record({
  prefix: fc.boolean(),
  fuzzy: fc.constantFrom<EvalOptions['fuzzy']>(false, 0.15, 0.2, 0.35, true, 1, 2),
  combineWith: fc.constantFrom<'AND' | 'OR'>('AND', 'OR'),
  fields: fc.option(fc.subarray(FIELDS, {minLength: 1}), {nil: undefined}),
  boost: fc.constantFrom<Record<string, number> | undefined>(undefined, {title: 4, tags: 2, body: 1, comments: 1}, {body: 3}),
})

const MS_OPTIONS: Options<Doc> = {idField: 'id', fields: FIELDS, storeFields: []}

function miniSearchOptions(o: EvalOptions): SearchOptions {
  const out: SearchOptions = {prefix: o.prefix, fuzzy: o.fuzzy, combineWith: o.combineWith}
  if (o.fields) out.fields = [...o.fields]
  if (o.boost) out.boost = o.boost
  return out
}

/** Our hits against MiniSearch's: same ids, scores within 1e-9 relative, and ours in non-increasing score order. */
function expectSameRanking(reference: MiniSearch<Doc>, flat: ReturnType<typeof flatFromPlain>, q: string, o: EvalOptions): void {
  const want = reference.search(q, miniSearchOptions(o))
  // The best hits picked while matching are the front of the full ranking, whatever their number.
  const best = q.length % 7
  const ranked = evaluate(flat, q, o, best)
  expect(ranked.top).toEqual([...sortedHits(ranked)].slice(0, best))
  const got = [...sortedHits(ranked)].map((doc) => ({id: flat.docId(doc), score: ranked.score[doc]!}))
  expect(got.map((h) => h.id).sort()).toEqual(want.map((h) => String(h.id)).sort())
  const wantScore = new Map(want.map((h) => [String(h.id), h.score]))
  for (const h of got) {
    const w = wantScore.get(h.id)!
    expect(Math.abs(h.score - w)).toBeLessThanOrEqual(1e-9 * Math.max(Math.abs(w), 1e-300))
  }
  // Same order: MiniSearch's order, where two scores are not equal within the tolerance, is ours.
  for (let i = 1; i < want.length; i++) {
    const a = want[i - 1]!
    const b = want[i]!
    if (a.score - b.score > 1e-9 * a.score) {
      const ia = got.findIndex((h) => h.id === String(a.id))
      const ib = got.findIndex((h) => h.id === String(b.id))
      expect(ia).toBeLessThan(ib)
    }
  }
  // The fields each hit matched in are MiniSearch's.
  for (const h of want) {
    const doc = flat.ids.indexOf(String(h.id))
    const mask = ranked.fieldMask(doc)
    const fields = FIELDS.filter((_, f) => mask & (1 << f))
    expect(fields.sort()).toEqual([...new Set(Object.values(h.match).flat())].sort())
  }
}

describe('text index: the same ranking as MiniSearch', () => {
  it('tokenizes queries as MiniSearch does', () => {
    const tokenize = MiniSearch.getDefault('tokenize') as (s: string) => string[]
    const process = MiniSearch.getDefault('processTerm') as (s: string) => string
    fc.assert(
      fc.property(fc.oneof(query, fc.string(), fc.string({unit: 'binary'})), (q) => {
        expect(queryTerms(q)).toEqual(tokenize(q).map(process).filter((t) => !!t))
      }),
      {numRuns: 300},
    )
  })

  it('returns the same hits, order and scores as MiniSearch.search over random corpora and queries', () => {
    fc.assert(
      fc.property(docs, fc.array(fc.tuple(query, options), {minLength: 1, maxLength: 6}), (corpus, queries) => {
        const ms = new MiniSearch<Doc>(MS_OPTIONS)
        ms.addAll(corpus)
        const flat = flatFromPlain(ms.toJSON() as unknown as PlainIndex)
        for (const [q, o] of queries) {
          expectSameRanking(ms, flat, q, o)
          // The exact-title candidates: the documents a title-only, exact-words AND search finds.
          const titleOnly = ms.search(q, {fields: ['title'], prefix: false, fuzzy: false, combineWith: 'AND'})
          const all = docsWithAllTerms(flat, queryTerms(q), 'title')
          expect(all.map((doc) => flat.docId(doc)).sort()).toEqual(titleOnly.map((h) => String(h.id)).sort())
          // With a length limit: the same documents, those with a title that short.
          const limit = q.length % 5
          expect(docsWithAllTerms(flat, queryTerms(q), 'title', limit)).toEqual(all.filter((doc) => flat.fieldLength[doc * FIELDS.length + FIELDS.indexOf('title')]! <= limit))
        }
      }),
      {numRuns: 250},
    )
  })

  it('matches a MiniSearch built from the remaining documents after some were discarded or replaced', () => {
    fc.assert(
      fc.property(docs, fc.array(fc.nat()), fc.array(fc.tuple(query, options), {minLength: 1, maxLength: 4}), (corpus, drops, queries) => {
        const ms = new MiniSearch<Doc>({...MS_OPTIONS, autoVacuum: false})
        ms.addAll(corpus)
        const gone = new Set(drops.map((i) => corpus[i % corpus.length]!.id))
        if (gone.size === corpus.length) gone.delete(corpus[0]!.id)
        for (const id of gone) ms.discard(id)
        // Round trip through MiniSearch's own loader, as an update does.
        const flat = flatFromPlain(MiniSearch.loadJS<Doc>(plainFromFlat(flatFromPlain(ms.toJSON() as unknown as PlainIndex)) as never, MS_OPTIONS).toJSON() as unknown as PlainIndex)
        const reference = new MiniSearch<Doc>(MS_OPTIONS)
        reference.addAll(corpus.filter((d) => !gone.has(d.id)))
        for (const [q, o] of queries) expectSameRanking(reference, flat, q, o)
      }),
      {numRuns: 150},
    )
  })

  it('builds and updates the same index MiniSearch builds (own tokenizing, incremental update)', () => {
    const valuesOf = (d: Doc) => FIELDS.map((f) => d[f as keyof Doc])
    const sameIndex = (got: FlatIndex, want: FlatIndex) => {
      expect(got.ids).toEqual(want.ids)
      expect(got.docCount).toBe(want.docCount)
      expect(Array.from(got.fieldLength)).toEqual(Array.from(want.fieldLength))
      expect(Array.from(got.termStart)).toEqual(Array.from(want.termStart))
      expect(Array.from(got.termChars)).toEqual(Array.from(want.termChars))
      expect(Array.from(got.allTermFields)).toEqual(Array.from(want.allTermFields))
      expect(Array.from(got.allPairs)).toEqual(Array.from(want.allPairs))
      got.avgFieldLength.forEach((avg, f) => expect(Math.abs(avg - want.avgFieldLength[f]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, avg)))
    }
    fc.assert(
      fc.property(docs, fc.array(fc.nat()), fc.array(fc.tuple(fc.nat(), text)), docs, fc.array(fc.tuple(query, options), {minLength: 1, maxLength: 3}), (corpus, drops, edits, more, queries) => {
        const built = updatedFlat(null, FIELDS, new Set(), corpus.map((d) => ({id: d.id, values: valuesOf(d)})))
        const ms = new MiniSearch<Doc>(MS_OPTIONS)
        ms.addAll(corpus)
        sameIndex(built, flatFromPlain(ms.toJSON() as unknown as PlainIndex))
        // Remove some, change some, add some.
        const byId = new Map(corpus.map((d) => [d.id, d]))
        const removed = new Set(drops.map((i) => corpus[i % corpus.length]!.id))
        for (const id of removed) byId.delete(id)
        const changed: Doc[] = []
        for (const [i, body] of edits) {
          const d = corpus[i % corpus.length]!
          if (removed.has(d.id)) continue
          const next = {...d, body}
          byId.set(d.id, next)
          changed.push(next)
        }
        const added = more.filter((d) => !byId.has(d.id) && !removed.has(d.id))
        for (const d of added) byId.set(d.id, d)
        const updated = updatedFlat(built, FIELDS, removed, [...changed, ...added].map((d) => ({id: d.id, values: valuesOf(d)})))
        const reference = new MiniSearch<Doc>(MS_OPTIONS)
        reference.addAll([...byId.values()])
        sameIndex(updated, flatFromPlain(reference.toJSON() as unknown as PlainIndex))
        for (const [q, o] of queries) expectSameRanking(reference, updated, q, o)
      }),
      {numRuns: 150},
    )
  })

  it('reads the same index back from the cache file (postings read in place)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'text-index-'))
    try {
      fc.assert(
        fc.property(docs, fc.array(fc.tuple(query, options), {minLength: 1, maxLength: 4}), (corpus, queries) => {
          const ms = new MiniSearch<Doc>(MS_OPTIONS)
          ms.addAll(corpus)
          const flat = flatFromPlain(ms.toJSON() as unknown as PlainIndex)
          // Each document's facts: a status code and five texts (title, body, comments, checks, evidence; some empty, some not ASCII).
          const status = Uint8Array.from(flat.ids, (_, n) => n % 6)
          const texts = flat.ids.flatMap((id, n) => [Buffer.from(`title ${id}`), Buffer.from(n % 3 ? `body of ${id} — é` : ''), Buffer.from(n % 2 ? '' : `comments of ${id}`), Buffer.from(n % 2 ? `check of ${id}` : ''), Buffer.from(n % 4 ? '' : `evidence of ${id} ✓`)])
          writeSearchCache(dir, 'main', 'c0ffee', flat, {status, texts}, {a: 'b'})
          const cache = readSearchCache(dir, 'main')!
          try {
            expect(cache.commit).toBe('c0ffee')
            expect(cache.dirs()).toEqual({a: 'b'})
            expect([...cache.status()]).toEqual([...status])
            flat.ids.forEach((_, n) => {
              expect(cache.text(n, 0, 5)).toEqual([0, 1, 2, 3, 4].map((x) => texts[5 * n + x]!.toString()))
              expect(cache.text(n, 1, 5)).toEqual([1, 2, 3, 4].map((x) => texts[5 * n + x]!.toString()))
              expect(cache.text(n, 0, 1)).toEqual([texts[5 * n]!.toString()])
            })
            const facts = cache.facts()
            expect([...facts.status]).toEqual([...status])
            expect(facts.texts.map((t) => Buffer.from(t).toString())).toEqual(texts.map((t) => t.toString()))
            const onDisk = cache.index()
            for (const [q, o] of queries) {
              const a = evaluate(flat, q, o)
              const b = evaluate(onDisk, q, o)
              expect([...sortedHits(b)].map((d) => onDisk.docId(d))).toEqual([...sortedHits(a)].map((d) => flat.docId(d)))
              for (const doc of a.docs) expect(b.score[doc]).toBe(a.score[doc])
            }
            expect(plainFromFlat(cache.full())).toEqual(plainFromFlat(flat))
          } finally {
            cache.close()
          }
        }),
        {numRuns: 60},
      )
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
