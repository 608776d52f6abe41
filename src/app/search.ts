/**
 * `tasks search QUERY`: ranked full-text search over titles, descriptions,
 * comments and tags, with MiniSearch (BM25, prefix and fuzzy matching).
 *
 * The index is cached under the git directory (refstore/search-cache.ts)
 * and brought forward from the ref's changes the way the task index is:
 * the task index already knows the tree id of every task's directory, so
 * only tasks whose directory changed since the cached commit are read from
 * git (body and comments) and re-indexed; removed tasks are discarded. A
 * missing or damaged cache is rebuilt from the whole list.
 *
 * The index stores no text: the snippets of the hits shown are read from
 * git at query time (a few cat-file reads through the session's reader).
 */
import type MiniSearchClass from 'minisearch'
import type {Options, SearchResult as MiniHit} from 'minisearch'
import {UsageError} from '../core/errors'
import {STATES, type State} from '../core/readiness'
import type {TaskView} from '../core/task-view'
import type {TaskMeta} from '../core/task'
import {checkTags} from '../core/validation'
import {type PlainIndex, type SearchCache, readSearchCache, writeSearchCache} from '../refstore/search-cache'
import type {Loaded} from '../refstore/list-store'
import {loadMiniSearch} from './lazy-libs'
import type {Session} from './session'
import {viewer} from './task-actions'

interface SearchDoc {
  id: string
  title: string
  body: string
  comments: string
  tags: string
}

const FIELDS = ['title', 'body', 'comments', 'tags'] as const
type Field = (typeof FIELDS)[number]

const OPTIONS: Options<SearchDoc> = {
  idField: 'id',
  fields: [...FIELDS],
  storeFields: [],
  searchOptions: {boost: {title: 4, tags: 2, body: 1, comments: 1}, prefix: true, fuzzy: 0.15, combineWith: 'AND'},
}

/** Read this many task directories from git at once while (re)indexing. */
const READ_WINDOW = 256

export interface SearchArgs {
  query: string
  status?: string[]
  tags?: string[]
  owner?: string
  limit?: number
}

export interface SearchHit {
  task: TaskView
  score: number
  /** The fields the query matched in: title, body, comments, tags. */
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
  results: SearchHit[]
  /** How the index was brought up to date: reused as is, updated (N tasks re-read) or rebuilt. */
  index: {state: 'current' | 'updated' | 'rebuilt'; reindexed: number; tasks: number}
}

const STATE_GROUPS: Record<string, readonly State[]> = {
  all: STATES,
  open: ['ready', 'waiting', 'reserved', 'todo', 'in_progress', 'stale', 'blocked'],
  todo: ['ready', 'waiting', 'reserved', 'todo'],
  in_progress: ['in_progress', 'stale'],
}

function wantedStates(values: readonly string[] | undefined): Set<State> | null {
  const parts = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)
  if (parts.length === 0) return null
  const out = new Set<State>()
  for (const part of parts) {
    const group = STATE_GROUPS[part] ?? ((STATES as readonly string[]).includes(part) ? [part as State] : null)
    if (!group) throw new UsageError(`"${part}" is not a state: use ${STATES.join(', ')}, or open or all`, {status: part}, 'bad_status')
    for (const st of group) out.add(st)
  }
  return out
}

async function docOf(session: Session, commit: string, meta: TaskMeta, dir: string): Promise<SearchDoc> {
  const detail = await session.store.readDetail(commit, meta.id, dir)
  return {id: meta.id, title: meta.title, body: detail.body, comments: detail.comments.map((c) => c.body).join('\n\n'), tags: meta.tags.join(' ')}
}

/** The words of a query as MiniSearch indexes them (its own tokenizer and term processing). */
function queryTerms(MiniSearch: typeof MiniSearchClass, query: string): string[] {
  const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[]
  const process = MiniSearch.getDefault('processTerm') as (term: string) => string | null | undefined | false
  return tokenize(query).map((t) => process(t)).filter((t): t is string => typeof t === 'string' && t.length > 0)
}

/**
 * The search index at the loaded commit. At the cached commit only the
 * shards of the query's words are loaded (prefix matching and small typos
 * still work; a typo in a word's first three letters is not found). When the
 * ref moved, the whole cached index is loaded, brought forward (tasks whose
 * directory changed are re-read, removed ones dropped) and written back; a
 * missing or damaged cache is rebuilt from the whole list.
 */
async function indexAt(session: Session, loaded: Loaded, query: string): Promise<{ms: MiniSearchClass<SearchDoc>; state: SearchOutput['index']}> {
  const cached = readSearchCache(session.store.repo.commonDir, session.list)
  try {
    return await indexFrom(session, loaded, query, cached)
  } finally {
    cached?.close()
  }
}

/**
 * The plain index with the per-document tables (ids, field lengths) cut down
 * to the documents the loaded terms point at. A query over a few shards
 * scores only those documents; turning all 10,000 rows into MiniSearch's
 * maps would cost more than the query. The document count and average
 * field lengths (BM25's collection figures) are kept as they are, so
 * scores do not change.
 */
function onlyPostedDocs(plain: PlainIndex): PlainIndex {
  const posted = new Set<string>()
  for (const [, fields] of plain.index) for (const docs of Object.values(fields as Record<string, Record<string, unknown>>)) for (const short of Object.keys(docs)) posted.add(short)
  // When the terms point at most documents (a common word), cutting the tables down saves nothing.
  if (posted.size * 2 > Number(plain.documentCount)) return plain
  const pick = (table: unknown): Record<string, unknown> => {
    const all = (table ?? {}) as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const short of posted) if (short in all) out[short] = all[short]
    return out
  }
  return {...plain, documentIds: pick(plain.documentIds), fieldLength: pick(plain.fieldLength), storedFields: pick(plain.storedFields)}
}

async function indexFrom(session: Session, loaded: Loaded, query: string, cached: SearchCache | null): Promise<{ms: MiniSearchClass<SearchDoc>; state: SearchOutput['index']}> {
  const MiniSearch = loadMiniSearch()
  const {commonDir} = session.store.repo
  const commit = loaded.index.commit
  if (cached && cached.commit === commit) {
    try {
      const prefixes = queryTerms(MiniSearch, query)
      const wanted = (shard: string) => prefixes.some((t) => shard.startsWith(t.slice(0, shard.length)) && (t.length >= shard.length || shard.startsWith(t)))
      const ms = MiniSearch.loadJS<SearchDoc>(onlyPostedDocs(cached.only(wanted)) as never, OPTIONS)
      return {ms, state: {state: 'current', reindexed: 0, tasks: ms.documentCount}}
    } catch {
      // damaged: rebuilt below
    }
  }
  let ms: MiniSearchClass<SearchDoc> | null = null
  let dirs: Record<string, string> = {}
  if (cached) {
    try {
      ms = MiniSearch.loadJS<SearchDoc>(cached.full() as never, OPTIONS)
      dirs = cached.dirs()
    } catch {
      ms = null
      dirs = {}
    }
  }
  const rebuilt = ms === null
  ms ??= new MiniSearch<SearchDoc>(OPTIONS)
  const next: Record<string, string> = {}
  const stale: Array<{meta: TaskMeta; dir: string}> = []
  for (const entry of loaded.snapshot.tasks.values()) {
    const meta = entry.meta
    const dir = (entry as {dir?: string}).dir
    if (!meta || typeof dir !== 'string') continue
    next[entry.id] = dir
    if (dirs[entry.id] !== dir) stale.push({meta, dir})
  }
  // Removed (or now unreadable) tasks leave the index.
  for (const id of Object.keys(dirs)) if (!(id in next) && ms.has(id)) ms.discard(id)
  for (let i = 0; i < stale.length; i += READ_WINDOW) {
    const docs = await Promise.all(stale.slice(i, i + READ_WINDOW).map((m) => docOf(session, commit, m.meta, m.dir)))
    for (const doc of docs) {
      if (ms.has(doc.id)) ms.replace(doc)
      else ms.add(doc)
    }
  }
  writeSearchCache(commonDir, session.list, commit, ms.toJSON() as never, next)
  return {ms, state: {state: rebuilt ? 'rebuilt' : 'updated', reindexed: stale.length, tasks: ms.documentCount}}
}

/** The tree id of a task's directory, when the snapshot's entry (from the index) has it. */
export function dirOf(snap: {tasks: ReadonlyMap<string, unknown>}, id: string): string | undefined {
  const dir = (snap.tasks.get(id) as {dir?: unknown} | undefined)?.dir
  return typeof dir === 'string' ? dir : undefined
}

const WORD = /[\p{L}\p{N}_]+/gu

/** An excerpt of `text` around the first word that starts with one of `terms` (case-insensitive); null when none does. */
export function snippetOf(text: string, terms: readonly string[], width = 160): string | null {
  const flat = text.replace(/\s+/g, ' ').trim()
  const lower = flat.toLowerCase()
  let at = -1
  for (const m of lower.matchAll(WORD)) {
    if (terms.some((t) => m[0].startsWith(t))) {
      at = m.index
      break
    }
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

export async function search(session: Session, args: SearchArgs): Promise<SearchOutput> {
  const query = args.query.trim()
  if (!query) throw new UsageError('search needs a query: words to look for in titles, descriptions and comments', {}, 'usage')
  const states = wantedStates(args.status)
  const tags = args.tags?.length ? checkTags(args.tags) : []
  const loaded = await session.store.load()
  const snap = loaded.snapshot
  const {ms, state} = await indexAt(session, loaded, query)
  const v = await viewer(session, snap)
  const owner = args.owner === '@me' ? (v.actor ?? '') : args.owner
  let hits: MiniHit[] = ms.search(query)
  // A query with several words: when no task has them all, fall back to any of them (ranked by how many match).
  if (hits.length === 0 && /\s/.test(query)) hits = ms.search(query, {combineWith: 'OR'})
  // Exact title matches come first. They are found by a title-only search of all the words: the exact
  // title is the shortest title holding them all, so BM25 ranks it at the top of that search; only its
  // best few are compared with the query (decoding every hit's card would cost more than the search).
  const exact = normalizeTitle(query)
  const exactIds = new Set<string>()
  for (const h of ms.search(query, {fields: ['title'], prefix: false, fuzzy: false, combineWith: 'AND'}).slice(0, 50)) {
    const title = snap.tasks.get(String(h.id))?.meta?.title
    if (title !== undefined && normalizeTitle(title) === exact) exactIds.add(String(h.id))
  }
  const filtered = states !== null || tags.length > 0 || owner !== undefined
  const rows: Array<{view: TaskView | null; id: string; hit: MiniHit; exact: boolean}> = []
  for (const hit of hits) {
    const id = String(hit.id)
    // Without filters only the hits shown need their card (a common word may match thousands).
    let view: TaskView | null = null
    if (filtered) {
      const meta = snap.tasks.get(id)?.meta
      if (!meta) continue
      view = v.view(meta)
      if (states && !states.has(view.state)) continue
      if (!tags.every((t) => view!.tags.includes(t))) continue
      if (owner !== undefined && view.owner !== owner) continue
    }
    rows.push({view, id, hit, exact: exactIds.has(id)})
  }
  // Then MiniSearch's score (BM25 with the title boosted); then id for a stable order.
  rows.sort((a, b) => Number(b.exact) - Number(a.exact) || b.hit.score - a.hit.score || (a.id < b.id ? -1 : 1))
  const limit = args.limit ?? 20
  const page: Array<{view: TaskView; hit: MiniHit}> = []
  for (const r of rows) {
    if (page.length >= limit) break
    const meta = r.view ? null : snap.tasks.get(r.id)?.meta
    if (!r.view && !meta) continue // indexed, but no longer a readable card
    page.push({view: r.view ?? v.view(meta!), hit: r.hit})
  }
  const results: SearchHit[] = []
  for (const {view, hit} of page) {
    const fields = [...new Set(Object.values(hit.match).flat())].filter((f): f is Field => (FIELDS as readonly string[]).includes(f))
    fields.sort((a, b) => FIELDS.indexOf(a) - FIELDS.indexOf(b))
    const terms = hit.terms.map((t) => t.toLowerCase())
    let snippet: SearchHit['snippet'] = null
    const textFields = fields.filter((f) => f !== 'tags')
    if (textFields.some((f) => f !== 'title')) {
      const detail = await session.store.readDetail(loaded.index.commit, view.id, dirOf(snap, view.id))
      const texts: Record<Field, string> = {title: view.title, body: detail.body, comments: detail.comments.map((c) => c.body).join('\n\n'), tags: ''}
      for (const f of textFields) {
        const text = snippetOf(texts[f], terms)
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
    results.push({task: view, score: Math.round(hit.score * 1000) / 1000, fields, snippet})
  }
  return {list: session.list, commit: loaded.index.commit, query, total: rows.length, results, index: state}
}
