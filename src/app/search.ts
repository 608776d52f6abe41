/**
 * `tasks search QUERY`: ranked full-text search over titles, descriptions,
 * comments, tags, and the text and evidence of checks, ranked exactly as MiniSearch ranks (BM25+ per field,
 * the title boosted, prefix and fuzzy matching): core/text-index.ts
 * tokenizes, indexes and scores with MiniSearch's rules, and a property test
 * holds its index and its hits, order and scores equal to MiniSearch's own.
 *
 * The index is cached under the git directory as flat arrays
 * (refstore/search-cache.ts) that a query reads in place: only its words'
 * postings, no per-document objects. It is brought forward from the ref's
 * changes the way the task index is: the task index already knows the tree
 * id of every task's directory, so only tasks whose directory changed since
 * the cached commit are read from git (body and comments) and indexed
 * again; removed tasks are dropped. A missing or damaged cache is rebuilt
 * from the whole list.
 *
 * Beside the terms, the index keeps each card's stored status and its
 * title, description and comments, all from the same directory the terms
 * came from: a `--status` filter reads one byte per hit instead of the
 * task index's open rows or every hit's card, the exact-title check reads
 * titles and the snippets of the hits shown their texts from the file, not
 * from the cards or git.
 *
 * Pages: at most `limit` hits (20 on the command line, 50 over MCP, never
 * more than the list's `list_limit`; the command line's `--limit 0` is
 * every hit), and `next_cursor` for the rest. A cursor names the query and
 * filters it was taken with (a digest) and the hits before the next page;
 * with any other query it is refused (`bad_cursor`, exit 2).
 *
 * Other kinds of record (the coordination sessions of issue 32, item 1)
 * join the index as documents of their own: a document id that is not a
 * task id, its texts in the same fields (title, body, comments), and a
 * hit that says which kind it is; `docOf` is where a record's texts are
 * gathered, `SearchHit` where its kind would be reported.
 */
import {createHash} from 'node:crypto'
import {UsageError} from '../core/errors'
import {ME} from '../core/flag-values'
import {partitionPoint} from '../core/order'
import {STATES, type State, openRowStateAt, statesNamed} from '../core/readiness'
import {openRowColumns, tablesOf} from '../core/snapshot'
import type {TaskView} from '../core/task-view'
import type {TaskMeta} from '../core/task'
import {type EvalOptions, type FlatIndex, type IndexDoc, type Ranked, type TextIndex, docsWithAllTerms, evaluate, queryTerms, rawTokens, updatedFlat} from '../core/text-index'
import {checkTags} from '../core/validation'
import {type DocFacts, type SearchCache, STORED_STATUS_ORDER, TEXTS_PER_DOC, TEXT_BODY, TEXT_EVIDENCE, TEXT_TITLE, readSearchCache, statusCode, writeSearchCache} from '../refstore/search-cache'
import type {Loaded} from '../refstore/list-store'
import type {Session} from './session'
import {viewer} from './task-results'
import {resolveSessionFilter} from './work-session-actions'

interface SearchDoc {
  id: string
  title: string
  body: string
  comments: string
  tags: string
  /** The texts of the card's checks (every one, superseded too), joined by a blank line. */
  checks: string
  /** The evidence recorded on its checks, joined by a blank line. */
  evidence: string
  status: string
}

const FIELDS = ['title', 'body', 'comments', 'tags', 'checks', 'evidence'] as const
type Field = (typeof FIELDS)[number]

/** How a query is run, as MiniSearch search options (the evaluator computes MiniSearch's ranking for them). */
export const SEARCH_OPTIONS = {boost: {title: 4, tags: 2, body: 1, comments: 1, checks: 1, evidence: 1}, prefix: true, fuzzy: 0.15, combineWith: 'AND'} as const satisfies EvalOptions

/** Read this many task directories from git at once while (re)indexing. */
const READ_WINDOW = 256

export interface SearchArgs {
  query: string
  status?: string[]
  tags?: string[]
  owner?: string
  /** Only the tasks of this coordination session (id or prefix). */
  session?: string
  /** Hits on a page (default 20, `defaultLimit` when given); never more than the list's `list_limit`; 0: every hit when `unbounded`, else `list_limit`. */
  limit?: number
  defaultLimit?: number
  unbounded?: boolean
  /** The `next_cursor` of the previous page of the same query and filters. */
  cursor?: string
}

export interface SearchHit {
  task: TaskView
  score: number
  /** The fields the query matched in: title, body, comments, tags, checks (a check's text), evidence (a check's evidence). */
  fields: Field[]
  /** A short excerpt around the first match, from the best field that matched (null when only fuzzy matching found it). */
  snippet: {field: Field; text: string} | null
}

export interface SearchOutput {
  list: string
  commit: string
  query: string
  /** Hits after filters (before limit). */
  total: number
  /** Hits before this page (the cursor's position). */
  offset: number
  /** Pass as `--cursor` for the next page; null when this page reaches the end. */
  next_cursor: string | null
  results: SearchHit[]
  /** How the index was brought up to date: reused as is, updated (N tasks re-read) or rebuilt. */
  index: {state: 'current' | 'updated' | 'rebuilt'; reindexed: number; tasks: number}
}


async function docOf(session: Session, commit: string, meta: TaskMeta, dir: string): Promise<SearchDoc> {
  const [detail, read] = await Promise.all([session.store.readDetail(commit, meta.id, dir), session.store.readChecks(commit, [meta.id], new Map([[meta.id, dir]]))])
  const checks = read.checks.get(meta.id) ?? []
  return {
    id: meta.id,
    title: meta.title,
    body: detail.body,
    comments: detail.comments.map((c) => c.body).join('\n\n'),
    tags: meta.tags.join(' '),
    checks: checks.map((c) => c.text).join('\n\n'),
    evidence: checks.flatMap((c) => (c.evidence ? [c.evidence] : [])).join('\n\n'),
    status: meta.status,
  }
}

interface Indexed {
  index: TextIndex
  state: SearchOutput['index']
  /** Each document's stored status (`STORED_STATUS_ORDER`). */
  status(): Uint8Array
  /** A document's texts `from` to `to` - 1 (`TEXT_TITLE`, `TEXT_BODY`, `TEXT_COMMENTS`). */
  text(doc: number, from: number, to: number): string[]
}

/**
 * The search index at the loaded commit, and how it got there. At the
 * cached commit the file is searched in place. When the ref moved, the
 * cached index is read whole and brought forward (tasks whose directory
 * changed are read and indexed again, removed ones dropped) and written
 * back; a missing or damaged cache is rebuilt from the whole list. The
 * caller evaluates queries while the cache is open (`use`), since postings
 * are read from the file on demand.
 */
async function withIndex<T>(session: Session, loaded: Loaded, use: (ix: Indexed) => T): Promise<T> {
  const cached = readSearchCache(session.store.repo.commonDir, session.list)
  try {
    if (cached && cached.commit === loaded.index.commit) {
      try {
        const index = cached.index()
        return use({index, state: {state: 'current', reindexed: 0, tasks: index.docCount}, status: () => cached.status(), text: (doc, from, to) => cached.text(doc, from, to)})
      } catch {
        // damaged: rebuilt below
      }
    }
    return use(await updatedIndex(session, loaded, cached))
  } finally {
    cached?.close()
  }
}

async function updatedIndex(session: Session, loaded: Loaded, cached: SearchCache | null): Promise<Indexed> {
  const {commonDir} = session.store.repo
  const commit = loaded.index.commit
  let old: FlatIndex | null = null
  let oldFacts: DocFacts | null = null
  let dirs: Record<string, string> = {}
  if (cached) {
    try {
      old = cached.full()
      oldFacts = cached.facts()
      dirs = cached.dirs()
    } catch {
      old = null
      dirs = {}
    }
  }
  const rebuilt = old === null
  if (rebuilt) dirs = {}
  const next: Record<string, string> = {}
  const stale: Array<{meta: TaskMeta; dir: string}> = []
  for (const entry of loaded.snapshot.tasks.values()) {
    const meta = entry.meta
    const dir = (entry as {dir?: string}).dir
    if (!meta || typeof dir !== 'string') continue
    next[entry.id] = dir
    if (dirs[entry.id] !== dir) stale.push({meta, dir})
  }
  // Removed (or now unreadable) tasks leave the index; changed ones are indexed again.
  const removed = new Set(Object.keys(dirs).filter((id) => !(id in next)))
  const docs: IndexDoc[] = []
  const fresh = new Map<string, SearchDoc>()
  for (let i = 0; i < stale.length; i += READ_WINDOW) {
    for (const d of await Promise.all(stale.slice(i, i + READ_WINDOW).map((m) => docOf(session, commit, m.meta, m.dir)))) {
      docs.push({id: d.id, values: FIELDS.map((f) => d[f])})
      fresh.set(d.id, d)
    }
  }
  const flat = updatedFlat(old, FIELDS, removed, docs)
  const facts = factsOf(flat, fresh, old && oldFacts ? {ids: old.ids, facts: oldFacts} : null)
  // Facts that do not line up with the old index (it cannot happen with an intact file): index everything again.
  if (!facts) return updatedIndex(session, loaded, null)
  // A past state (--at) is indexed in memory from the live cache and never written: the cache keeps describing the tip.
  if (!session.at) writeSearchCache(commonDir, session.list, commit, flat, facts, next)
  return {
    index: flat,
    state: {state: rebuilt ? 'rebuilt' : 'updated', reindexed: stale.length, tasks: flat.docCount},
    status: () => facts.status,
    text: (doc, from, to) => facts.texts.slice(doc * TEXTS_PER_DOC + from, doc * TEXTS_PER_DOC + to).map((t) => Buffer.from(t.buffer, t.byteOffset, t.byteLength).toString('utf8')),
  }
}

/**
 * The facts of every document of `flat` (in its order): those read again
 * from `fresh`, the others carried over from the old index's facts (both
 * in id order, so one walk); null when a kept document is not in the old index.
 */
function factsOf(flat: FlatIndex, fresh: ReadonlyMap<string, SearchDoc>, old: {ids: readonly string[]; facts: DocFacts} | null): DocFacts | null {
  const status = new Uint8Array(flat.docs)
  const texts: Uint8Array[] = []
  let j = 0
  for (let n = 0; n < flat.docs; n++) {
    const id = flat.ids[n]!
    const d = fresh.get(id)
    if (d) {
      status[n] = statusCode(d.status)
      texts.push(Buffer.from(d.title, 'utf8'), Buffer.from(d.body, 'utf8'), Buffer.from(d.comments, 'utf8'), Buffer.from(d.checks, 'utf8'), Buffer.from(d.evidence, 'utf8'))
      continue
    }
    if (!old) return null
    while (j < old.ids.length && old.ids[j]! < id) j++
    if (old.ids[j] !== id) return null
    status[n] = old.facts.status[j]!
    for (let x = 0; x < TEXTS_PER_DOC; x++) texts.push(old.facts.texts[j * TEXTS_PER_DOC + x]!)
  }
  return {status, texts}
}

/** The tree id of a task's directory, when the snapshot's entry (from the index) has it. */
export function dirOf(snap: {tasks: ReadonlyMap<string, unknown>}, id: string): string | undefined {
  const dir = (snap.tasks.get(id) as {dir?: unknown} | undefined)?.dir
  return typeof dir === 'string' ? dir : undefined
}

const WORD_CHARS = /^[\p{L}\p{N}_]+$/u
const WORD_CHAR = /^[\p{L}\p{N}_]$/u

/** The last terms filtered for snippets, and the result (a page's snippets all look for the same terms). */
let usableFor: {terms: readonly string[]; usable: string[]} | null = null

/** The terms that can begin a word (a run of letters, digits and `_`): one holding any other character never does. */
function wordTerms(terms: readonly string[]): string[] {
  if (usableFor?.terms !== terms) usableFor = {terms, usable: terms.filter((t) => WORD_CHARS.test(t))}
  return usableFor.usable
}

/** Whether the code point that ends just before `i` is a letter, digit or `_`. */
function wordCharBefore(s: string, i: number): boolean {
  if (i === 0) return false
  const c = s.charCodeAt(i - 1)
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f
  if (c >= 0xdc00 && c <= 0xdfff && i >= 2) {
    const h = s.charCodeAt(i - 2)
    if (h >= 0xd800 && h <= 0xdbff) return WORD_CHAR.test(s.slice(i - 2, i))
  }
  return WORD_CHAR.test(s[i - 1]!)
}

/** Where the first word of `lower` that starts with one of `terms` (each all word characters) begins, or -1. */
function firstWordStart(lower: string, terms: readonly string[]): number {
  let best = -1
  for (const t of terms) {
    for (let from = 0; ; ) {
      const i = lower.indexOf(t, from)
      if (i === -1 || (best !== -1 && i >= best)) break
      if (!wordCharBefore(lower, i)) {
        best = i
        break
      }
      from = i + 1
    }
  }
  return best
}

/** An excerpt of `text` around the first word that starts with one of `terms` (case-insensitive); null when none does. */
export function snippetOf(text: string, terms: readonly string[], width = 160): string | null {
  const flat = text.replace(/\s+/g, ' ').trim()
  const lower = flat.toLowerCase()
  let at = -1
  if (terms.includes('')) {
    // Every word starts with the empty term: the first word.
    at = lower.search(/[\p{L}\p{N}_]/u)
  } else {
    // Each term's occurrences (a native search) until one starts a word, not a walk over every word before it.
    at = firstWordStart(lower, wordTerms(terms))
  }
  if (at === -1) return null
  const start = Math.max(0, at - Math.floor(width / 3))
  const end = Math.min(flat.length, start + width)
  // Start and end on word boundaries when cut.
  let s = start
  if (s > 0) {
    const sp = flat.indexOf(' ', s)
    if (sp !== -1 && sp < at) s = sp + 1
  }
  let e = end
  if (e < flat.length) {
    const sp = flat.lastIndexOf(' ', e)
    if (sp > at) e = sp
  }
  return `${s > 0 ? '…' : ''}${flat.slice(s, e)}${e < flat.length ? '…' : ''}`
}

function normalizeTitle(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim()
}

/** Compare two hits: exact title match first, then score (highest first), then document number (= id order). */
function before(a: number, b: number, exact: ReadonlySet<number>, score: Float64Array): boolean {
  const ea = exact.has(a)
  if (ea !== exact.has(b)) return ea
  const d = score[a]! - score[b]!
  return d !== 0 ? d > 0 : a < b
}

/** Pages up to this many hits are picked by insertion (most hits cost one comparison); larger ones by a sort. */
const TOP_BY_INSERTION = 1000

/** The best `k` of `docs` (in document order) in order: a bounded insertion, where most hits fall below the k-th and cost one comparison. */
export function topK(docs: ArrayLike<number>, k: number, exact: ReadonlySet<number>, score: Float64Array): number[] {
  // A large share of the hits (a deep page, or every hit): one sort, not an insertion each.
  if (k > TOP_BY_INSERTION && k * 4 >= docs.length) return Array.from(docs).sort((a, b) => (before(a, b, exact, score) ? -1 : before(b, a, exact, score) ? 1 : 0)).slice(0, k)
  const top: number[] = []
  const noExact = exact.size === 0
  // The k-th score once there are k (without exact titles, a document must beat it to join).
  let floor = Number.POSITIVE_INFINITY
  for (let i0 = 0; i0 < docs.length; i0++) {
    const doc = docs[i0]!
    if (top.length === k) {
      // Documents come in increasing number, so an equal score never goes before.
      if (noExact ? !(score[doc]! > floor) : !before(doc, top[k - 1]!, exact, score)) continue
    }
    let i = top.length === k ? k - 1 : top.length
    while (i > 0 && before(doc, top[i - 1]!, exact, score)) {
      top[i] = top[i - 1]!
      i--
    }
    top[i] = doc
    if (top.length === k) floor = score[top[k - 1]!]!
  }
  return top
}

/**
 * The hits in page order from the evaluator's best ones (`Ranked.top`, at
 * least the page and the exact titles long): the exact titles among the
 * hits first, then the others, each part by score (then document number).
 */
export function exactFirst(ranked: Ranked, exact: ReadonlySet<number>): number[] {
  if (exact.size === 0) return ranked.top
  const {docs, score} = ranked
  const isHit = (doc: number): boolean => docs[partitionPoint(0, docs.length, (i) => docs[i]! < doc)] === doc
  const first = [...exact].filter(isHit).sort((a, b) => score[b]! - score[a]! || a - b)
  return [...first, ...ranked.top.filter((doc) => !exact.has(doc))]
}

/** The states a card with each stored status (`STORED_STATUS_ORDER`) can be in. */
const STATES_OF_STATUS: ReadonlyArray<readonly State[]> = STORED_STATUS_ORDER.map((status) => {
  if (status === 'todo') return ['ready', 'waiting', 'reserved', 'todo']
  if (status === 'in_progress') return ['in_progress', 'stale']
  // Issue 33: a deferred card whose time has come is todo again (its state is worked out from its open row).
  if (status === 'deferred') return ['deferred', 'ready', 'waiting', 'reserved', 'todo']
  return (STATES as readonly string[]).includes(status) ? [status as State] : []
})

/** Per status code: 0 no card with it is in `states`, 1 every one is, 2 it depends on the card (its state must be worked out). */
function statusPasses(states: ReadonlySet<State>): Uint8Array {
  return Uint8Array.from(STATES_OF_STATUS, (group) => {
    const n = group.filter((st) => states.has(st)).length
    return n === 0 ? 0 : n === group.length ? 1 : 2
  })
}

/** The fields whose text the index keeps beside the title (`TEXT_BODY` … `TEXT_EVIDENCE`, in this order). */
const STORED_TEXT_FIELDS = ['body', 'comments', 'checks', 'evidence'] as const
const BEYOND_TITLE = STORED_TEXT_FIELDS.reduce((m, f) => m | (1 << FIELDS.indexOf(f)), 0)

/** What a cursor is bound to: the query and the filters, as a short digest. */
function queryDigest(query: string, args: SearchArgs): string {
  return createHash('sha256').update(JSON.stringify([query, args.status ?? [], args.tags ?? [], args.owner ?? null, args.session ?? null])).digest('base64url').slice(0, 12)
}

function encodeSearchCursor(digest: string, offset: number): string {
  return Buffer.from(JSON.stringify(['search', digest, offset])).toString('base64url')
}

/** The hits before the page a cursor continues at; a cursor of another query or filters is refused. */
function decodeSearchCursor(text: string, digest: string): number {
  const bad = (why: string) => new UsageError(`--cursor ${JSON.stringify(text)} ${why}; pass the next_cursor of the previous page of the same search`, {cursor: text}, 'bad_cursor')
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    throw bad('is not a search cursor')
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== 'search' || typeof parsed[1] !== 'string' || !Number.isSafeInteger(parsed[2]) || (parsed[2] as number) < 0) throw bad('is not a search cursor')
  if (parsed[1] !== digest) throw bad('was taken with another query or other filters')
  return parsed[2] as number
}

export async function search(session: Session, args: SearchArgs): Promise<SearchOutput> {
  const query = args.query.trim()
  if (!query) throw new UsageError('search needs a query: words to look for in titles, descriptions and comments', {}, 'usage')
  const states = statesNamed(args.status)
  const tags = args.tags?.length ? checkTags(args.tags) : []
  const loaded = await session.store.load()
  const snap = loaded.snapshot
  const v = await viewer(session, snap)
  const owner = args.owner === ME ? (v.actor ?? '') : args.owner
  const workSession = args.session === undefined ? undefined : await resolveSessionFilter(session, loaded, args.session)
  const filtered = states !== null || tags.length > 0 || owner !== undefined || workSession !== undefined
  const digest = queryDigest(query, args)
  const offset = args.cursor === undefined ? 0 : decodeSearchCursor(args.cursor, digest)
  const listLimit = snap.config.list_limit
  // The page: at most list_limit hits; --limit 0 on the command line is every hit.
  const pageSize = args.limit === 0 ? (args.unbounded ? Number.POSITIVE_INFINITY : listLimit) : Math.min(args.limit ?? args.defaultLimit ?? 20, listLimit)
  const passes = states ? statusPasses(states) : null
  // Without tags, the open rows of the task index decide the cards whose state depends on more than
  // their status (todo or in progress, when only some of their states are wanted), or every open
  // card when an owner is asked for too: ids of the rows that pass.
  let openIds: Set<string> | null = null
  const ownerFromRows = owner !== undefined && states !== null && [...states].every((st) => st !== 'done' && st !== 'cancelled' && st !== 'failed')
  if (passes && tags.length === 0 && (owner === undefined ? passes.includes(2) : ownerFromRows)) {
    openIds = new Set()
    const nowMs = Date.parse(v.now)
    const cols = openRowColumns(tablesOf(snap).openRows())
    const ready = [false]
    for (let i = 0; i < cols.length; i++) {
      if (owner !== undefined) {
        const o = cols.owner(i)
        if (o === '' || o !== owner) continue
      } else if (passes[statusCode(cols.status(i))] !== 2) continue
      if (states!.has(openRowStateAt(cols, i, v.actor, nowMs, snap.config, ready))) openIds.add(cols.id(i))
    }
  }
  const metaOf = (id: string): TaskMeta | null => snap.tasks.get(id)?.meta ?? null
  const picked = await withIndex(session, loaded, ({index, state, status, text}) => {
    const exact = exactTitles(index, query, (doc) => text(doc, TEXT_TITLE, TEXT_TITLE + 1)[0])
    // Without filters the evaluator picks the best hits as it finds them (enough to fill the page whatever exact titles it holds).
    const limit = Math.min(offset + pageSize, index.docCount)
    const best = filtered || limit > TOP_BY_INSERTION ? 0 : limit + exact.size
    let ranked: Ranked = evaluate(index, query, SEARCH_OPTIONS, best)
    // A query with several words: when no task has them all, fall back to any of them (ranked by how many match).
    if (ranked.docs.length === 0 && /\s/.test(query)) ranked = evaluate(index, query, {...SEARCH_OPTIONS, combineWith: 'OR'}, best)
    let total = 0
    let page: Array<{doc: number; meta: TaskMeta}> = []
    if (filtered) {
      const kept: number[] = []
      // The stored status rules out (or in) most hits with one byte each.
      const codes = passes ? status() : null
      if (tags.length === 0 && owner === undefined && workSession === undefined) {
        for (let i = 0; i < ranked.docs.length; i++) {
          const doc = ranked.docs[i]!
          const pass = passes![codes![doc]!]!
          if (pass === 1 || (pass === 2 && openIds!.has(index.docId(doc)))) kept.push(doc)
        }
      } else if (openIds && ownerFromRows && workSession === undefined) {
        for (let i = 0; i < ranked.docs.length; i++) {
          const doc = ranked.docs[i]!
          if (passes![codes![doc]!] !== 0 && openIds.has(index.docId(doc))) kept.push(doc)
        }
      } else {
        // Every other hit's card decides whether it counts (its state, not its whole view).
        for (let i = 0; i < ranked.docs.length; i++) {
          const doc = ranked.docs[i]!
          if (codes && passes![codes[doc]!] === 0) continue
          const meta = snap.tasks.get(index.docId(doc))?.meta
          if (!meta) continue
          if (!tags.every((t) => meta.tags.includes(t))) continue
          if (owner !== undefined && (meta.owner ?? null) !== owner) continue
          if (workSession !== undefined && meta.work_session !== workSession) continue
          if (states && !states.has(v.state(meta).state)) continue
          kept.push(doc)
        }
      }
      total = kept.length
      page = topK(kept, limit, exact, ranked.score).flatMap((doc) => {
        const meta = metaOf(index.docId(doc))
        return meta ? [{doc, meta}] : []
      })
    } else {
      // Without filters only the hits shown need their card (a common word may match thousands).
      total = ranked.docs.length
      const first = best > 0 ? exactFirst(ranked, exact).slice(0, limit) : topK(ranked.docs, limit, exact, ranked.score)
      for (const doc of first) {
        const meta = metaOf(index.docId(doc))
        if (meta) page.push({doc, meta}) // else: indexed, but no longer a readable card
      }
      // Some were no longer readable cards: rank further down.
      for (let k = limit * 4; page.length < limit && first.length < ranked.docs.length; k = Math.max(k * 4, ranked.docs.length)) {
        const top = topK(ranked.docs, k, exact, ranked.score)
        page = []
        for (const doc of top) {
          if (page.length >= limit) break
          const meta = metaOf(index.docId(doc))
          if (meta) page.push({doc, meta}) // else: indexed, but no longer a readable card
        }
        if (page.length >= limit || top.length < k) break
      }
    }
    // The fields each hit shown matched in, and its texts when a snippet may come from them (read while the file is open).
    page = page.slice(offset)
    const masks = page.map(({doc}) => ranked.fieldMask(doc))
    const texts = page.map(({doc}, i) => (masks[i]! & BEYOND_TITLE ? text(doc, TEXT_BODY, TEXT_EVIDENCE + 1) : null))
    return {ranked, total, state, page, masks, texts}
  })
  const {ranked, total, state, page, masks, texts} = picked
  const terms = ranked.terms
  const results: SearchHit[] = []
  for (const [i, {doc, meta}] of page.entries()) {
    const view = v.view(meta)
    const mask = masks[i]!
    const fields = FIELDS.filter((_, f) => mask & (1 << f))
    let snippet: SearchHit['snippet'] = null
    const textFields = fields.filter((f) => f !== 'tags')
    const stored = texts[i]
    if (stored) {
      const byField: Record<Field, string> = {title: view.title, body: stored[0]!, comments: stored[1]!, checks: stored[2]!, evidence: stored[3]!, tags: ''}
      for (const f of textFields) {
        const text = snippetOf(byField[f], terms)
        if (text !== null) {
          snippet = {field: f, text}
          if (f !== 'title') break
        }
      }
      // Prefer the body or comment excerpt when the title also matched: it says more than the title shown beside it.
    } else if (fields.includes('title')) {
      const text = snippetOf(view.title, terms)
      snippet = text === null ? null : {field: 'title', text}
    }
    results.push({task: view, score: Math.round(ranked.score[doc]! * 1000) / 1000, fields, snippet})
  }
  const shown = offset + results.length
  const nextCursor = results.length > 0 && shown < total ? encodeSearchCursor(digest, shown) : null
  return {list: session.list, commit: loaded.index.commit, query, total, offset, next_cursor: nextCursor, results, index: state}
}

/**
 * The documents whose title is the query (case and spacing aside). Such a
 * title holds every word of the query and has at most as many distinct
 * tokens as the query has tokens (two more for a title with spaces or
 * punctuation at its ends), so only the titles of that length holding all
 * the words (shortest first, at most 50) are compared with the query.
 */
function exactTitles(index: TextIndex, query: string, titleOf: (doc: number) => string | undefined): Set<number> {
  const out = new Set<number>()
  const title = index.fields.indexOf('title')
  const terms = queryTerms(query)
  if (title === -1 || terms.length === 0) return out
  const maxLength = rawTokens(query).length + 2
  const F = index.fields.length
  const candidates = docsWithAllTerms(index, terms, 'title', maxLength)
  candidates.sort((a, b) => index.fieldLength[a * F + title]! - index.fieldLength[b * F + title]! || a - b)
  const want = normalizeTitle(query)
  for (const doc of candidates.slice(0, 50)) {
    const t = titleOf(doc)
    if (t !== undefined && normalizeTitle(t) === want) out.add(doc)
  }
  return out
}
