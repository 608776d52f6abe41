/**
 * The board's catalogue (`GET /api/tasks`): the list's cards as small rows,
 * newest first (by creation time, the id breaking ties, as Graphit's
 * catalogue), a page at a time. The cursor is opaque and bound to the
 * request: it names the last row of its page and the query, states and
 * page size it was taken with, so a changed request is refused (400
 * `bad_cursor`) instead of silently skipping or repeating rows. Creation
 * times never change, so the pages of one request cover every row that
 * existed when the first was read exactly once, even while cards change.
 * Pure: values in, values out.
 */
import {createHash} from 'node:crypto'
import {UsageError} from '../core/errors'
import {type State, statesNamed} from '../core/readiness'
import type {TaskView} from '../core/task-view'

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 500
/** The parameters /api/tasks reads (any other is a 400; `token` is the board's own). */
const PARAMETERS = new Set(['query', 'status', 'page_size', 'cursor', 'token'])

export interface CatalogueQuery {
  query: string
  /** The states asked for (statuses, states or the groups open/all), or null: every card. */
  states: ReadonlySet<State> | null
  status: string[]
  pageSize: number
  cursor: string | null
}

/** One card in the catalogue. */
export interface CatalogueRow {
  id: string
  short_id: string
  title: string
  status: string
  state: string
  priority: number
  owner: string | null
  assignee: string | null
  tags: string[]
  parent: string | null
  created_at: string
  created_by: string
  updated_at: string
  updated_by: string
  revision: number
}

export interface CataloguePage {
  list: string
  commit: string
  rows: CatalogueRow[]
  /** Cards matching the query and states (every page of this request together). */
  total: number
  page_size: number
  /** Pass as `cursor` (with the same query, status and page_size) for the next page; null on the last. */
  next_cursor: string | null
}

/** Read and check the address's parameters (exit-2 errors: the board answers 400). */
export function catalogueQuery(params: URLSearchParams): CatalogueQuery {
  for (const key of params.keys()) {
    if (!PARAMETERS.has(key)) throw new UsageError(`unknown parameter "${key.slice(0, 64)}": use query, status, page_size, cursor`, {parameter: key.slice(0, 64)}, 'bad_request')
  }
  for (const key of ['query', 'page_size', 'cursor']) {
    if (params.getAll(key).length > 1) throw new UsageError(`"${key}" is given more than once`, {parameter: key}, 'bad_request')
  }
  const query = (params.get('query') ?? '').trim()
  if (query.length > 500) throw new UsageError('the query is longer than 500 characters', {parameter: 'query'}, 'bad_request')
  const status = params.getAll('status').filter((s) => s.trim() !== '')
  const states = statesNamed(status)
  const sizeText = params.get('page_size')
  let pageSize = DEFAULT_PAGE_SIZE
  if (sizeText !== null && sizeText !== '') {
    if (!/^\d{1,6}$/.test(sizeText) || Number(sizeText) < 1 || Number(sizeText) > MAX_PAGE_SIZE) {
      throw new UsageError(`page_size must be a whole number from 1 to ${MAX_PAGE_SIZE}, not "${sizeText.slice(0, 32)}"`, {page_size: sizeText.slice(0, 32)}, 'bad_page_size')
    }
    pageSize = Number(sizeText)
  }
  const cursor = params.get('cursor')
  return {query, states, status: [...(states ?? [])].sort(), pageSize, cursor: cursor === '' ? null : cursor}
}

/** What a cursor is bound to: the request less the cursor. */
function binding(q: CatalogueQuery): string {
  return createHash('sha256').update(JSON.stringify([q.query.toLowerCase(), q.status, q.pageSize])).digest('base64url').slice(0, 16)
}

function encodeCursor(q: CatalogueQuery, last: CatalogueRow): string {
  return Buffer.from(JSON.stringify([1, last.created_at, last.id, binding(q)])).toString('base64url')
}

function decodeCursor(q: CatalogueQuery, text: string): {created: string; id: string} {
  const refuse = (why: string) => new UsageError(`the cursor is not one this catalogue gave for this request (${why}); pass the next_cursor of the previous page with the same query, status and page_size`, {cursor: text.slice(0, 200)}, 'bad_cursor')
  let parsed: unknown
  try {
    parsed = /^[A-Za-z0-9_-]{1,2000}$/.test(text) ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) : null
  } catch {
    parsed = null
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== 1 || typeof parsed[1] !== 'string' || typeof parsed[2] !== 'string') throw refuse('it does not decode')
  if (parsed[3] !== binding(q)) throw refuse('it was taken with another query, status or page_size')
  return {created: parsed[1], id: parsed[2]}
}

function rowOf(t: TaskView): CatalogueRow {
  return {
    id: t.id,
    short_id: t.short_id,
    title: t.title,
    status: t.status,
    state: t.state,
    priority: t.priority,
    owner: t.owner,
    assignee: t.assignee,
    tags: t.tags,
    parent: t.parent,
    created_at: t.created_at,
    created_by: t.created_by,
    updated_at: t.updated_at,
    updated_by: t.updated_by,
    revision: t.revision,
  }
}

/** Newest first: later creation first, then the greater id. */
function newer(a: {created_at: string; id: string}, b: {created_at: string; id: string}): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

function matches(t: TaskView, words: string[]): boolean {
  if (words.length === 0) return true
  const hay = `${t.id} ${t.short_id} ${t.title} ${t.tags.map((x) => `#${x}`).join(' ')} ${t.owner ?? ''} ${t.assignee ?? ''}`.toLowerCase()
  return words.every((w) => hay.includes(w))
}

/** One page of the catalogue over every card of the list (`rows`: the list with finished cards). */
export function cataloguePage(list: string, commit: string, rows: readonly TaskView[], q: CatalogueQuery): CataloguePage {
  const after = q.cursor === null ? null : decodeCursor(q, q.cursor)
  const words = q.query.toLowerCase().split(/\s+/).filter(Boolean)
  const all = rows.filter((t) => (q.states === null || q.states.has(t.state)) && matches(t, words)).sort(newer)
  let start = 0
  if (after) {
    const key = {created_at: after.created, id: after.id}
    start = all.findIndex((t) => newer(t, key) > 0)
    if (start === -1) start = all.length
  }
  const page = all.slice(start, start + q.pageSize).map(rowOf)
  const more = start + page.length < all.length
  return {list, commit, rows: page, total: all.length, page_size: q.pageSize, next_cursor: more && page.length ? encodeCursor(q, page[page.length - 1]!) : null}
}
