/**
 * The full-text index `tasks search` reads in place, and its query
 * evaluator: MiniSearch's ranking (BM25+ per field, prefix and fuzzy
 * expansion with its weights, field boosts, AND / OR combination, the
 * "quality" factor) computed straight from flat arrays. Pure: the file
 * behind a `TextIndex` is refstore/search-cache.ts.
 *
 * Documents are tokenized as MiniSearch's `add` does with its defaults
 * (`updatedFlat`); the layout:
 * - documents numbered 0..docs-1 in task id order (so a tie on score
 *   breaks by number exactly as by id);
 * - the term dictionary, sorted by UTF-16 code units: all terms' code units
 *   in one Uint16Array and each term's start;
 * - postings per term and field: [doc, term frequency] pairs in one
 *   Uint32Array, in document order, term t's field f from
 *   `termFields[t*F+f]` to `termFields[t*F+f+1]` (pair indexes);
 * - each document's length in each field (MiniSearch's distinct-token count).
 *
 * A query reads only its terms' postings (a prefix's terms are contiguous,
 * so one range), scores into one Float64Array over the documents and
 * allocates nothing per document. test/unit/text-index.test.ts checks,
 * over random corpora, updates and queries, that the index is the one
 * MiniSearch builds (`flatFromPlain` of its serialized form) and that the
 * hits, their order and scores are MiniSearch's own `search()` results.
 */

import {partitionPoint} from './order'

/** MiniSearch's default tokenizer: split on Unicode spaces, newlines and punctuation. */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u

/** The terms of a query as MiniSearch searches them (its default tokenize and processTerm; empty terms dropped). */
export function queryTerms(query: string): string[] {
  return query
    .split(SPACE_OR_PUNCTUATION)
    .map((t) => t.toLowerCase())
    .filter((t) => t.length > 0)
}

/** The raw tokens of a text (MiniSearch's tokenizer, before lowercasing), empty ones included. */
export function rawTokens(text: string): string[] {
  return text.split(SPACE_OR_PUNCTUATION)
}

export interface TextIndex {
  /** BM25's document count (MiniSearch's documentCount). */
  readonly docCount: number
  /** Rows of the document tables (equal to docCount in a compacted index). */
  readonly docs: number
  /** Field names by field number. */
  readonly fields: readonly string[]
  readonly avgFieldLength: readonly number[]
  readonly termCount: number
  /** Every term's UTF-16 code units, concatenated in term order. */
  readonly termChars: Uint16Array
  /** termCount+1 offsets into termChars. */
  readonly termStart: Uint32Array
  /** docs × fields: the length of each document's field. */
  readonly fieldLength: Uint32Array
  /** Pair offsets of terms lo..hi-1: (hi-lo)×F+1 entries, absolute pair indexes. */
  termFields(lo: number, hi: number): Uint32Array
  /** Postings pairs [doc, tf, doc, tf, …] from pair index `from` to `to`. */
  pairs(from: number, to: number): Uint32Array
  /** The task id of a document number. */
  docId(doc: number): string
}

/** MiniSearch's serialized index (its AsPlainObject, version 2), the parts read or written here. */
export interface PlainIndex {
  documentCount: number
  nextId: number
  documentIds: Record<string, string>
  fieldIds: Record<string, number>
  fieldLength: Record<string, number[]>
  averageFieldLength: number[]
  storedFields: Record<string, unknown>
  dirtCount?: number
  index: Array<[string, Record<string, Record<string, number>>]>
  serializationVersion: number
}

/** The flat index held in memory (built from MiniSearch, or read whole from the cache to update it). */
export interface FlatIndex extends TextIndex {
  readonly allTermFields: Uint32Array
  readonly allPairs: Uint32Array
  readonly ids: readonly string[]
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

export function flatIndex(parts: {
  docCount: number
  fields: readonly string[]
  avgFieldLength: readonly number[]
  termChars: Uint16Array
  termStart: Uint32Array
  fieldLength: Uint32Array
  termFields: Uint32Array
  pairs: Uint32Array
  ids: readonly string[]
}): FlatIndex {
  const F = parts.fields.length
  return {
    docCount: parts.docCount,
    docs: parts.ids.length,
    fields: parts.fields,
    avgFieldLength: parts.avgFieldLength,
    termCount: parts.termStart.length - 1,
    termChars: parts.termChars,
    termStart: parts.termStart,
    fieldLength: parts.fieldLength,
    allTermFields: parts.termFields,
    allPairs: parts.pairs,
    ids: parts.ids,
    termFields: (lo, hi) => parts.termFields.subarray(lo * F, hi * F + 1),
    pairs: (from, to) => parts.pairs.subarray(from * 2, to * 2),
    docId: (doc) => parts.ids[doc]!,
  }
}

/** Where each of `lengths`' items starts when they are laid end to end, with the total last. */
export function startsOf(lengths: readonly number[]): Uint32Array {
  const out = new Uint32Array(lengths.length + 1)
  let at = 0
  lengths.forEach((n, i) => {
    out[i] = at
    at += n
  })
  out[lengths.length] = at
  return out
}

/** The terms (sorted) as one array of UTF-16 code units and each term's start in it. */
function packTerms(terms: readonly string[]): {termStart: Uint32Array; termChars: Uint16Array} {
  const termStart = startsOf(terms.map((t) => t.length))
  const termChars = new Uint16Array(termStart[terms.length]!)
  terms.forEach((t, i) => {
    const at = termStart[i]!
    for (let j = 0; j < t.length; j++) termChars[at + j] = t.charCodeAt(j)
  })
  return {termStart, termChars}
}

/**
 * MiniSearch's serialized index as a flat one. Postings of documents it no
 * longer has (it discards lazily) are dropped; documents are renumbered in
 * id order and terms sorted.
 */
export function flatFromPlain(plain: PlainIndex): FlatIndex {
  const fields: string[] = []
  for (const [name, id] of Object.entries(plain.fieldIds)) fields[id] = name
  const F = fields.length
  const live = Object.entries(plain.documentIds).sort((a, b) => byCodeUnits(a[1], b[1]))
  const docOf = new Map<string, number>()
  live.forEach(([short], n) => docOf.set(short, n))
  const fieldLength = new Uint32Array(live.length * F)
  live.forEach(([short], n) => {
    const lengths = plain.fieldLength[short] ?? []
    for (let f = 0; f < F; f++) fieldLength[n * F + f] = lengths[f] ?? 0
  })
  const entries = plain.index.slice().sort((a, b) => byCodeUnits(a[0], b[0]))
  const terms: string[] = []
  const termFields: number[] = [0]
  const pairs: number[] = []
  const posting: Array<[number, number]> = []
  for (const [term, byField] of entries) {
    const start = pairs.length
    const offsets: number[] = []
    for (let f = 0; f < F; f++) {
      posting.length = 0
      for (const [short, tf] of Object.entries(byField[String(f)] ?? {})) {
        const doc = docOf.get(short)
        if (doc !== undefined) posting.push([doc, tf])
      }
      posting.sort((a, b) => a[0] - b[0])
      for (const [doc, tf] of posting) pairs.push(doc, tf)
      offsets.push(pairs.length / 2)
    }
    if (pairs.length === start) continue // only discarded documents had it
    terms.push(term)
    termFields.push(...offsets)
  }
  const {termStart, termChars} = packTerms(terms)
  return flatIndex({
    docCount: plain.documentCount,
    fields,
    avgFieldLength: fields.map((_, f) => plain.averageFieldLength[f] ?? 0),
    termChars,
    termStart,
    fieldLength,
    termFields: Uint32Array.from(termFields),
    pairs: Uint32Array.from(pairs),
    ids: live.map(([, id]) => id),
  })
}

/** A document to index: its id and its fields' text, in the index's field order. */
export interface IndexDoc {
  id: string
  values: readonly string[]
}

/**
 * A document's terms as MiniSearch's `add` finds them with its default
 * tokenizer and term processing: per field, the length (the number of
 * distinct raw tokens, the empty one included) and each lowercased,
 * non-empty term's frequency.
 */
/** A copy of `a`, `length` long (larger), the rest zero. */
function grown<T extends Uint32Array | Int32Array>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length)
  b.set(a)
  return b
}

function analyze(values: readonly string[]): {lengths: number[]; terms: Map<string, number[]>} {
  const F = values.length
  const lengths: number[] = []
  const terms = new Map<string, number[]>()
  values.forEach((value, f) => {
    const tokens = value.split(SPACE_OR_PUNCTUATION)
    lengths.push(new Set(tokens).size)
    for (const token of tokens) {
      const term = token.toLowerCase()
      if (!term) continue
      let tf = terms.get(term)
      if (!tf) terms.set(term, (tf = new Array<number>(F).fill(0)))
      tf[f]!++
    }
  })
  return {lengths, terms}
}

/**
 * The index with documents removed and added (a changed document is removed
 * and added again; `old` null builds from nothing): what MiniSearch would
 * hold after the same `discard`s and `add`s, flattened. Documents keep id
 * order, so old postings are renumbered in place and merged with the new
 * documents' postings term by term; only the new documents are tokenized.
 * The average field lengths are recomputed over all documents (MiniSearch
 * keeps a running average: equal up to rounding).
 */
export function updatedFlat(old: FlatIndex | null, fields: readonly string[], remove: ReadonlySet<string>, add: readonly IndexDoc[]): FlatIndex {
  const F = fields.length
  if (old && (old.fields.length !== F || old.fields.some((f, i) => f !== fields[i]))) old = null
  const adding = new Map(add.map((d) => [d.id, d]))
  const keptOld: number[] = []
  if (old) for (let n = 0; n < old.docs; n++) if (!remove.has(old.ids[n]!) && !adding.has(old.ids[n]!)) keptOld.push(n)
  const addedIds = [...adding.keys()].sort(byCodeUnits)
  // New numbering: kept old documents and added ones, merged in id order.
  const ids: string[] = []
  const oldToNew = new Int32Array(old ? old.docs : 0).fill(-1)
  const addedNew = new Map<string, number>()
  {
    let i = 0
    let j = 0
    while (i < keptOld.length || j < addedIds.length) {
      const oldId = i < keptOld.length ? old!.ids[keptOld[i]!]! : null
      const newId = j < addedIds.length ? addedIds[j]! : null
      if (newId === null || (oldId !== null && oldId < newId)) {
        oldToNew[keptOld[i]!] = ids.length
        ids.push(oldId!)
        i++
      } else {
        addedNew.set(newId, ids.length)
        ids.push(newId)
        j++
      }
    }
  }
  const N = ids.length
  const fieldLength = new Uint32Array(N * F)
  for (const n of keptOld) fieldLength.set(old!.fieldLength.subarray(n * F, n * F + F), oldToNew[n]! * F)
  // The added documents' postings, by term, in document order: a list per term linked through flat typed arrays
  // (a pair's document, its term frequency in each field, the next pair of its term), not an array per pair:
  // a whole list has millions of pairs, and an object each would cost far more memory than the pairs' numbers.
  const fresh = new Map<string, number>()
  let firstPair = new Int32Array(1024)
  let lastPair = new Int32Array(1024)
  let pairDoc = new Uint32Array(4096)
  let pairNext = new Int32Array(4096)
  let pairTf = new Uint32Array(4096 * F)
  let pairCount = 0
  for (const id of addedIds) {
    const doc = addedNew.get(id)!
    const {lengths, terms} = analyze(adding.get(id)!.values)
    for (let f = 0; f < F; f++) fieldLength[doc * F + f] = lengths[f] ?? 0
    for (const [term, tf] of terms) {
      if (pairCount === pairDoc.length) {
        pairDoc = grown(pairDoc, pairCount * 2)
        pairNext = grown(pairNext, pairCount * 2)
        pairTf = grown(pairTf, pairCount * 2 * F)
      }
      const pair = pairCount++
      pairDoc[pair] = doc
      pairNext[pair] = -1
      for (let f = 0; f < F; f++) pairTf[pair * F + f] = tf[f]!
      const t = fresh.get(term)
      if (t === undefined) {
        const k = fresh.size
        if (k === firstPair.length) {
          firstPair = grown(firstPair, k * 2)
          lastPair = grown(lastPair, k * 2)
        }
        fresh.set(term, k)
        firstPair[k] = pair
        lastPair[k] = pair
      } else {
        pairNext[lastPair[t]!] = pair
        lastPair[t] = pair
      }
    }
  }
  const avgFieldLength: number[] = []
  for (let f = 0; f < F; f++) {
    let sum = 0
    for (let n = 0; n < N; n++) sum += fieldLength[n * F + f]!
    avgFieldLength.push(N === 0 ? 0 : sum / N)
  }
  // Merge the dictionaries in code-unit order; write each surviving term's postings.
  const freshTerms = [...fresh.keys()].sort(byCodeUnits)
  const oldTerms = old ? old.termCount : 0
  let pairs = new Uint32Array((old ? old.allPairs.length : 0) + add.length * 128 + 16)
  let used = 0
  const push = (doc: number, tf: number) => {
    if (used + 2 > pairs.length) pairs = grown(pairs, pairs.length * 2)
    pairs[used++] = doc
    pairs[used++] = tf
  }
  const terms: string[] = []
  const termFields: number[] = [0]
  let a = 0
  let b = 0
  while (a < oldTerms || b < freshTerms.length) {
    const oldTerm = a < oldTerms ? termAt(old!, a) : null
    const newTerm = b < freshTerms.length ? freshTerms[b]! : null
    const fromOld = oldTerm !== null && (newTerm === null || oldTerm <= newTerm)
    const fromNew = newTerm !== null && (oldTerm === null || newTerm <= oldTerm)
    const term = (fromOld ? oldTerm : newTerm)!
    const start = used
    const offsets: number[] = []
    const first = fromNew ? firstPair[fresh.get(newTerm!)!]! : -1
    for (let f = 0; f < F; f++) {
      let p = fromOld ? old!.allTermFields[a * F + f]! : 0
      const end = fromOld ? old!.allTermFields[a * F + f + 1]! : 0
      let q = first
      // Both lists are in (new) document order: merge them.
      for (;;) {
        while (p < end && oldToNew[old!.allPairs[p * 2]!]! === -1) p++
        while (q !== -1 && pairTf[q * F + f] === 0) q = pairNext[q]!
        if (p >= end && q === -1) break
        const od = p < end ? oldToNew[old!.allPairs[p * 2]!]! : Infinity
        const nd = q !== -1 ? pairDoc[q]! : Infinity
        if (od < nd) {
          push(od, old!.allPairs[p * 2 + 1]!)
          p++
        } else {
          push(nd, pairTf[q * F + f]!)
          q = pairNext[q]!
        }
      }
      offsets.push(used / 2)
    }
    if (fromOld) a++
    if (fromNew) b++
    if (used === start) continue // no document has it any more
    terms.push(term)
    termFields.push(...offsets)
  }
  const {termStart, termChars} = packTerms(terms)
  return flatIndex({docCount: N, fields, avgFieldLength, termChars, termStart, fieldLength, termFields: Uint32Array.from(termFields), pairs: pairs.slice(0, used), ids})
}

/** The flat index as MiniSearch's serialized form (to load it into MiniSearch and update it). */
export function plainFromFlat(flat: FlatIndex): PlainIndex {
  const F = flat.fields.length
  const documentIds: Record<string, string> = {}
  const fieldLength: Record<string, number[]> = {}
  for (let n = 0; n < flat.docs; n++) {
    documentIds[n] = flat.ids[n]!
    fieldLength[n] = Array.from(flat.fieldLength.subarray(n * F, n * F + F))
  }
  const index: PlainIndex['index'] = []
  for (let t = 0; t < flat.termCount; t++) {
    const byField: Record<string, Record<string, number>> = {}
    for (let f = 0; f < F; f++) {
      const from = flat.allTermFields[t * F + f]!
      const to = flat.allTermFields[t * F + f + 1]!
      if (from === to) continue
      const docs: Record<string, number> = {}
      for (let p = from; p < to; p++) docs[flat.allPairs[p * 2]!] = flat.allPairs[p * 2 + 1]!
      byField[f] = docs
    }
    index.push([termAt(flat, t), byField])
  }
  const fieldIds: Record<string, number> = {}
  flat.fields.forEach((name, f) => (fieldIds[name] = f))
  return {
    documentCount: flat.docCount,
    nextId: flat.docs,
    documentIds,
    fieldIds,
    fieldLength,
    averageFieldLength: [...flat.avgFieldLength],
    storedFields: {},
    dirtCount: 0,
    index,
    serializationVersion: 2,
  }
}

// ------------------------------------------------------------ dictionary

export function termAt(ix: TextIndex, t: number): string {
  return String.fromCharCode(...ix.termChars.subarray(ix.termStart[t]!, ix.termStart[t + 1]!))
}

/** Compare term t with q by code units: <0, 0, >0. */
function compareTerm(ix: TextIndex, t: number, q: string): number {
  const chars = ix.termChars
  const s = ix.termStart[t]!
  const len = ix.termStart[t + 1]! - s
  const n = Math.min(len, q.length)
  for (let i = 0; i < n; i++) {
    const d = chars[s + i]! - q.charCodeAt(i)
    if (d !== 0) return d
  }
  return len - q.length
}

/** The first term not below q. */
function lowerBound(ix: TextIndex, q: string): number {
  return partitionPoint(0, ix.termCount, (t) => compareTerm(ix, t, q) < 0)
}

function startsWith(ix: TextIndex, t: number, q: string): boolean {
  const s = ix.termStart[t]!
  if (ix.termStart[t + 1]! - s < q.length) return false
  for (let i = 0; i < q.length; i++) if (ix.termChars[s + i] !== q.charCodeAt(i)) return false
  return true
}

/** The terms that start with q: [lo, hi). */
function prefixRange(ix: TextIndex, q: string): [number, number] {
  const lo = lowerBound(ix, q)
  let a = lo
  let b = ix.termCount
  while (a < b) {
    const mid = (a + b) >>> 1
    if (startsWith(ix, mid, q)) a = mid + 1
    else b = mid
  }
  return [lo, a]
}

/** The first term at or after `from` whose first `len` code units differ from term t's. */
function afterSharedPrefix(ix: TextIndex, from: number, t: number, len: number): number {
  const chars = ix.termChars
  const ts = ix.termStart[t]!
  const shares = (u: number): boolean => {
    const s = ix.termStart[u]!
    if (ix.termStart[u + 1]! - s < len) return false
    for (let i = 0; i < len; i++) if (chars[s + i] !== chars[ts + i]) return false
    return true
  }
  let a = from
  let b = ix.termCount
  while (a < b) {
    const mid = (a + b) >>> 1
    if (shares(mid)) a = mid + 1
    else b = mid
  }
  return a
}

/**
 * The terms within Levenshtein distance maxD of q (code units), with their
 * distances: MiniSearch's banded matrix (fuzzySearch.ts), walked over the
 * sorted dictionary instead of its radix tree: consecutive terms share the
 * rows of their common prefix, and a prefix whose row is already beyond
 * maxD skips every term that has it.
 */
function fuzzyTerms(ix: TextIndex, q: string, maxD: number, out: (t: number, distance: number) => void): void {
  const n = q.length + 1
  const m = n + maxD
  const matrix = new Uint8Array(m * n).fill(maxD + 1)
  for (let j = 0; j < n; j++) matrix[j] = j
  for (let i = 1; i < m; i++) matrix[i * n] = i
  const qc = new Uint16Array(q.length)
  for (let j = 0; j < q.length; j++) qc[j] = q.charCodeAt(j)
  const chars = ix.termChars
  let prev = -1
  let validRows = 0 // rows 1..validRows hold the previous term's prefix
  let t = 0
  while (t < ix.termCount) {
    const s = ix.termStart[t]!
    const len = ix.termStart[t + 1]! - s
    // A term whose length is too far from q's is never within maxD: skip it, keeping the rows computed so far.
    if (len < q.length - maxD || len > q.length + maxD) {
      t++
      continue
    }
    let common = 0
    if (prev >= 0) {
      const ps = ix.termStart[prev]!
      const plen = ix.termStart[prev + 1]! - ps
      const lim = Math.min(validRows, len, plen)
      while (common < lim && chars[ps + common] === chars[s + common]) common++
    }
    let pruneAt = 0
    const rows = Math.min(len, m - 1)
    let i = common + 1
    for (; i <= rows; i++) {
      const c = chars[s + i - 1]!
      const row = n * i
      const prevRow = row - n
      let minDistance = matrix[row]!
      const jmin = Math.max(0, i - maxD - 1)
      const jmax = Math.min(n - 1, i + maxD)
      for (let j = jmin; j < jmax; j++) {
        const rpl = matrix[prevRow + j]! + (c !== qc[j] ? 1 : 0)
        const del = matrix[prevRow + j + 1]! + 1
        const ins = matrix[row + j]! + 1
        const dist = Math.min(rpl, del, ins)
        matrix[row + j + 1] = dist
        if (dist < minDistance) minDistance = dist
      }
      if (minDistance > maxD) {
        pruneAt = i
        break
      }
    }
    prev = t
    if (pruneAt) {
      validRows = pruneAt - 1
      t = afterSharedPrefix(ix, t + 1, t, pruneAt)
      continue
    }
    validRows = rows
    if (len <= m - 1) {
      const distance = matrix[len * n + n - 1]!
      if (distance <= maxD) out(t, distance)
      t++
    } else {
      // Longer than q by more than maxD: so is every term sharing these m-1 code units.
      t = afterSharedPrefix(ix, t + 1, t, m - 1)
    }
  }
}

// ------------------------------------------------------------ evaluation

export interface EvalOptions {
  /** Fields searched (default: all). */
  fields?: readonly string[]
  boost?: Record<string, number>
  prefix?: boolean
  fuzzy?: boolean | number
  maxFuzzy?: number
  weights?: {fuzzy?: number; prefix?: number}
  combineWith?: 'AND' | 'OR'
  bm25?: {k: number; b: number; d: number}
}

export interface Ranked {
  /** The matching documents, in document order. */
  docs: Uint32Array
  /** Final score by document number (MiniSearch's score × quality). */
  score: Float64Array
  /** The fields a matching document matched in: bit f for field number f (worked out on demand, for the hits shown). */
  fieldMask(doc: number): number
  /** The query's terms and the dictionary terms its fuzzy matching found (for snippets). */
  terms: string[]
  /** The best `top` documents (`evaluate`'s argument) in `sortedHits` order: picked while matching, not by a pass of their own. */
  top: number[]
}

const DEFAULT_BM25 = {k: 1.2, b: 0.7, d: 0.5}

/** One term's postings in one field, as scored: pairs [p0, p1) of `pairs`, in document order. */
interface Scored {
  pairs: Uint32Array
  p0: number
  p1: number
  f: number
}

/** Which query word each document matched (queries of several words): see `accumulate`. */
interface SpecCounts {
  /** The last query word (its position) a document was counted for. */
  stamp: Int32Array
  /** How many of the query's words each document matched. */
  count: Uint16Array
  /** Per document × distinct word: matched (only when a word repeats in the query). */
  seen: Uint8Array | null
  distinct: number
}

/** A posting's contribution for small term frequencies and field lengths, worked out once per pair of them (see `accumulate`). */
const TF_MEMO = 16
const LENGTH_MEMO = 256
const memo = new Float64Array(TF_MEMO * LENGTH_MEMO)

/**
 * Add one term's postings in one field to the scores: BM25+ as MiniSearch
 * computes it (calcBM25Score), times the weight; with several query words,
 * also note which word (`spec`, distinct word `u`) each document matched.
 * The loop a query spends its time in, and in a short-lived process it
 * runs mostly unoptimized, where every floating-point step allocates: a
 * posting's contribution depends only on its term frequency and the
 * field's length, so it is computed once per such pair (the same
 * expression, so the same value) and looked up for the other postings.
 */
function accumulate(score: Float64Array, fieldLength: Uint32Array, fields: number, docs: number, s: Scored, w: number, idf: number, k: number, b: number, d: number, avg: number, spec: number, u: number, specs: SpecCounts | null): void {
  const pairs = s.pairs
  const p1 = s.p1
  const f = s.f
  // calcBM25Score's terms that do not depend on the document, taken out of the loop (equal up to rounding).
  const wIdf = w * idf
  const k1 = k + 1
  const base = k * (1 - b)
  const perLength = (k * b) / avg
  memo.fill(Number.NaN)
  const stamp = specs === null ? null : specs.stamp
  const counts = specs === null ? null : specs.count
  const seen = specs === null ? null : specs.seen
  const distinct = specs === null ? 0 : specs.distinct
  for (let p = s.p0; p < p1; p += 2) {
    const doc = pairs[p]!
    if (doc >= docs) throw new Error('damaged search index: a posting names no document')
    const tf = pairs[p + 1]!
    const length = fieldLength[doc * fields + f]!
    // Slot 0 (a term frequency of 0, which no posting has) takes the pairs beyond the memo and is
    // always recomputed: one path for every posting, so optimized code never meets one it has not seen.
    const at = tf < TF_MEMO && length < LENGTH_MEMO ? tf * LENGTH_MEMO + length : 0
    let z = memo[at]!
    if (z !== z || at === 0) memo[at] = z = wIdf * (d + (tf * k1) / (tf + base + perLength * length))
    score[doc] = score[doc]! + z
    if (stamp !== null && stamp[doc] !== spec) {
      stamp[doc] = spec
      counts![doc] = counts![doc]! + 1
      if (seen !== null) seen[doc * distinct + u] = 1
    }
  }
}

/** Whether `doc` is among the postings (binary search: they are in document order). */
function posted(s: Scored, doc: number): boolean {
  let lo = 0
  let hi = (s.p1 - s.p0) / 2
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const at = s.pairs[s.p0 + mid * 2]!
    if (at === doc) return true
    if (at < doc) lo = mid + 1
    else hi = mid
  }
  return false
}

/**
 * The documents whose `field` holds every one of `terms` exactly (no prefix
 * or typo) and is at most `maxLength` long, in document order: only those
 * terms' postings in that field are read.
 */
export function docsWithAllTerms(ix: TextIndex, terms: readonly string[], field: string, maxLength = Number.POSITIVE_INFINITY): number[] {
  const f = ix.fields.indexOf(field)
  if (f === -1 || terms.length === 0) return []
  let out: number[] | null = null
  for (const q of new Set(terms)) {
    const t = lowerBound(ix, q)
    if (t >= ix.termCount || compareTerm(ix, t, q) !== 0) return []
    const tfs = ix.termFields(t, t + 1)
    const pairs = ix.pairs(tfs[f]!, tfs[f + 1]!)
    const docs: number[] = []
    if (out === null) {
      const F = ix.fields.length
      for (let p = 0; p < pairs.length; p += 2) if (ix.fieldLength[pairs[p]! * F + f]! <= maxLength) docs.push(pairs[p]!)
    } else {
      // Both in document order: merge.
      let i = 0
      for (let p = 0; p < pairs.length && i < out.length; p += 2) {
        const doc = pairs[p]!
        while (i < out.length && out[i]! < doc) i++
        if (out[i] === doc) docs.push(doc)
      }
    }
    out = docs
    if (out.length === 0) return out
  }
  return out ?? []
}

/**
 * Rank the documents for a query the way MiniSearch's `search(query, options)` does;
 * `top`: how many of the best to pick as well (`Ranked.top`).
 */
export function evaluate(ix: TextIndex, query: string, options: EvalOptions = {}, top = 0): Ranked {
  const N = ix.docs
  const F = ix.fields.length
  const {k, b, d} = options.bm25 ?? DEFAULT_BM25
  const prefixWeight = options.weights?.prefix ?? 0.375
  const fuzzyWeight = options.weights?.fuzzy ?? 0.45
  const maxFuzzy = options.maxFuzzy ?? 6
  const fieldNames = options.fields ?? ix.fields
  const searched: Array<{f: number; boost: number}> = []
  for (const name of fieldNames) {
    const f = ix.fields.indexOf(name)
    const boost = options.boost && Object.prototype.hasOwnProperty.call(options.boost, name) ? options.boost[name] || 1 : 1
    if (f !== -1) searched.push({f, boost})
  }
  const terms = queryTerms(query)
  const distinct = [...new Set(terms)]
  const S = terms.length
  const score = new Float64Array(N)
  // With one word, a document matches when it scored; with several, count the words each one matched.
  const specs: SpecCounts | null = S > 1 ? {stamp: new Int32Array(N).fill(-1), count: new Uint16Array(N), seen: distinct.length < terms.length ? new Uint8Array(N * distinct.length) : null, distinct: distinct.length} : null
  const extra: string[] = []
  const and = (options.combineWith ?? 'OR').toUpperCase() === 'AND'
  const scored: Scored[] = []

  const scoreTerm = (spec: number, u: number, termFields: Uint32Array, at: number, pairs: Uint32Array, base: number, weight: number): void => {
    for (const {f, boost} of searched) {
      const from = termFields[at + f]!
      const to = termFields[at + f + 1]!
      const df = to - from
      if (df === 0) continue
      const idf = Math.log(1 + (ix.docCount - df + 0.5) / (df + 0.5))
      const s: Scored = {pairs, p0: (from - base) * 2, p1: (to - base) * 2, f}
      scored.push(s)
      accumulate(score, ix.fieldLength, F, N, s, weight * boost, idf, k, b, d, ix.avgFieldLength[f]!, spec, u, specs)
    }
  }
  /** Score terms lo..hi-1 (contiguous in the dictionary) with weight(t), reading their postings in one range. */
  const scoreRange = (spec: number, u: number, lo: number, hi: number, weight: (t: number) => number): void => {
    if (hi <= lo) return
    const tfs = ix.termFields(lo, hi)
    const base = tfs[0]!
    const pairs = ix.pairs(base, tfs[(hi - lo) * F]!)
    for (let t = lo; t < hi; t++) {
      const w = weight(t)
      if (w > 0) scoreTerm(spec, u, tfs, (t - lo) * F, pairs, base, w)
    }
  }

  terms.forEach((q, spec) => {
    const u = distinct.indexOf(q)
    const qlen = q.length
    const termLen = (t: number) => ix.termStart[t + 1]! - ix.termStart[t]!
    let exact = -1
    const at = lowerBound(ix, q)
    if (at < ix.termCount && compareTerm(ix, at, q) === 0) exact = at
    let lo = exact
    let hi = exact === -1 ? -1 : exact + 1
    if (options.prefix) [lo, hi] = prefixRange(ix, q)
    // Exact and prefix matches: one contiguous range of the dictionary.
    if (lo !== -1)
      scoreRange(spec, u, lo, hi, (t) => {
        if (t === exact) return 1
        const len = termLen(t)
        return (prefixWeight * len) / (len + 0.3 * (len - qlen))
      })
    if (options.fuzzy) {
      const fuzzy = options.fuzzy === true ? 0.2 : options.fuzzy
      const maxD = fuzzy < 1 ? Math.min(maxFuzzy, Math.round(qlen * fuzzy)) : fuzzy
      if (maxD) {
        fuzzyTerms(ix, q, maxD, (t, distance) => {
          if (distance === 0) return
          if (options.prefix && t >= lo && t < hi) return // scored as a prefix match
          const len = termLen(t)
          const w = (fuzzyWeight * len) / (len + distance)
          extra.push(termAt(ix, t))
          scoreRange(spec, u, t, t + 1, () => w)
        })
      }
    }
  })
  // The matching documents, in order, each score times its "quality" (how many query words it matched).
  const all = new Uint32Array(N)
  let count = 0
  // The best `top` so far, best first, and the score a document must beat to join them once they are
  // full (documents come in increasing number, so one that only equals it ranks after all of them).
  const best: number[] = []
  let floor = Number.POSITIVE_INFINITY
  const pick = (doc: number, sc: number): void => {
    let i = best.length === top ? top - 1 : best.length
    while (i > 0 && score[best[i - 1]!]! < sc) {
      best[i] = best[i - 1]!
      i--
    }
    best[i] = doc
    if (best.length === top) floor = score[best[top - 1]!]!
  }
  if (specs === null) {
    // One word: a document matches when it scored, and its quality is 1.
    if (S === 1) {
      for (let doc = 0; doc < N; doc++) {
        const sc = score[doc]!
        if (sc > 0) {
          all[count++] = doc
          if (best.length < top || sc > floor) pick(doc, sc)
        }
      }
    }
  } else {
    const specCount = specs.count
    const seen = specs.seen
    const D = distinct.length
    for (let doc = 0; doc < N; doc++) {
      const matched = specCount[doc]!
      if (and ? matched !== S : matched === 0) continue
      all[count++] = doc
      let quality = D
      if (!and) {
        if (seen) {
          quality = 0
          for (let x = 0; x < D; x++) quality += seen[doc * D + x]!
        } else quality = matched
      }
      const sc = quality !== 1 ? (score[doc] = score[doc]! * quality) : score[doc]!
      if (best.length < top || sc > floor) pick(doc, sc)
    }
  }
  const docs = all.subarray(0, count)
  const fieldMask = (doc: number): number => {
    let mask = 0
    for (const s of scored) if ((mask & (1 << s.f)) === 0 && posted(s, doc)) mask |= 1 << s.f
    return mask
  }
  return {docs, score, fieldMask, terms: [...distinct, ...new Set(extra)], top: best}
}

/** The ranked documents in MiniSearch's order: score, highest first; then document number. */
export function sortedHits(r: Ranked): Uint32Array {
  return r.docs.slice().sort((a, b) => r.score[b]! - r.score[a]! || a - b)
}
