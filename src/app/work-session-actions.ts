/**
 * Use cases of coordination sessions (`tasks session …`; docs/model.md,
 * "Coordination sessions"): read the session records of the ref (they are
 * not in the task index: there are few of them, read from the tree when a
 * command needs them), run the pure ops of core/ops/work-sessions.ts
 * through the transaction, and answer with the session as people and
 * agents read it. Named apart from ./session.ts (one invocation's context).
 */
import {UsageError} from '../core/errors'
import {ME, splitValues} from '../core/flag-values'
import type {Snapshot} from '../core/snapshot'
import {FINISHED, type Status, type TaskMeta} from '../core/task'
import * as ops from '../core/ops/work-sessions'
import {
  SESSIONS_DIR,
  SESSION_CHECKPOINTS_DIR,
  SESSION_FILE,
  SESSION_STATES,
  type SessionCheckpoint,
  type WorkSession,
  isSessionId,
  newestFirst,
  parseSessionCheckpoint,
  parseSessionFile,
  sessionClaimLive,
  sessionDir,
} from '../core/work-session'
import type {ListStore, Loaded} from '../refstore/list-store'
import type {Session} from './session'
import {type Op, type Prepare, mutate} from './transaction'

/** A session as `--json` shows it (schemas/output/session.schema.json, "session"): every key present, null when unset. */
export interface SessionView {
  id: string
  title: string
  state: WorkSession['state']
  description: string
  strategy: string
  owner: string | null
  epoch: number
  claimed_at: string | null
  lease_expires: string | null
  claim_live: boolean
  revision: number
  revised_at: string | null
  revised_by: string | null
  revise_reason: string | null
  summary: string | null
  cancel_reason: string | null
  closed_at: string | null
  created_at: string
  created_by: string
  updated_at: string
  updated_by: string
}

export interface SessionBroken {
  path: string
  error: string
}

export function sessionView(s: WorkSession, now: string, config: Snapshot['config']): SessionView {
  return {
    id: s.id,
    title: s.title,
    state: s.state,
    description: s.description,
    strategy: s.strategy,
    owner: s.owner ?? null,
    epoch: s.epoch,
    claimed_at: s.claimed_at ?? null,
    lease_expires: s.lease_expires ?? null,
    claim_live: sessionClaimLive(s, now, config),
    revision: s.revision,
    revised_at: s.revised_at ?? null,
    revised_by: s.revised_by ?? null,
    revise_reason: s.revise_reason ?? null,
    summary: s.summary ?? null,
    cancel_reason: s.cancel_reason ?? null,
    closed_at: s.closed_at ?? null,
    created_at: s.created_at,
    created_by: s.created_by,
    updated_at: s.updated_at,
    updated_by: s.updated_by,
  }
}

const TREE_MODE = '40000'

/** Every session record of the list at `rootTree` (sessions/<xx>/<id>/session.md), and the files that do not read. */
export async function readSessions(store: ListStore, rootTree: string): Promise<{sessions: Map<string, WorkSession>; broken: SessionBroken[]}> {
  const sessions = new Map<string, WorkSession>()
  const broken: SessionBroken[] = []
  const shards = await store.treeAt(rootTree, SESSIONS_DIR)
  if (!shards) return {sessions, broken}
  for (const shard of shards.filter((e) => e.mode === TREE_MODE)) {
    const dirs = await store.treeAt(rootTree, `${SESSIONS_DIR}/${shard.name}`)
    for (const dir of (dirs ?? []).filter((e) => e.mode === TREE_MODE && isSessionId(e.name))) {
      const path = `${SESSIONS_DIR}/${shard.name}/${dir.name}`
      const texts = await store.readFilesIn(rootTree, path, [SESSION_FILE])
      const text = texts.get(SESSION_FILE)
      if (text === undefined) {
        broken.push({path: `${path}/${SESSION_FILE}`, error: 'missing or not a readable file'})
        continue
      }
      const parsed = parseSessionFile(text, dir.name)
      if (parsed.ok) sessions.set(dir.name, parsed.value)
      else broken.push({path: `${path}/${SESSION_FILE}`, error: parsed.error})
    }
  }
  return {sessions, broken}
}

/** The checkpoints of one session, newest first. */
export async function readCheckpoints(store: ListStore, rootTree: string, id: string): Promise<{checkpoints: SessionCheckpoint[]; broken: SessionBroken[]}> {
  const dir = `${sessionDir(id)}/${SESSION_CHECKPOINTS_DIR}`
  const entries = await store.treeAt(rootTree, dir)
  const names = (entries ?? []).filter((e) => e.name.endsWith('.md')).map((e) => e.name)
  const texts = await store.readFilesIn(rootTree, dir, names)
  const checkpoints: SessionCheckpoint[] = []
  const broken: SessionBroken[] = []
  for (const name of names) {
    const text = texts.get(name)
    const parsed = text === undefined ? {ok: false as const, error: 'not a readable file'} : parseSessionCheckpoint(text, id, name.slice(0, -3))
    if (parsed.ok) checkpoints.push(parsed.value)
    else broken.push({path: `${dir}/${name}`, error: parsed.error})
  }
  return {checkpoints: checkpoints.sort(newestFirst), broken}
}

/** A Prepare that hands the op the snapshot with the sessions of the tree it is about to run on. */
export function prepareSessions(before?: Prepare): Prepare {
  return async (store: ListStore, loaded: Loaded) => {
    const snap = (before ? await before(store, loaded) : undefined) ?? loaded.snapshot
    return {...snap, sessions: (await readSessions(store, loaded.index.rootTree)).sessions}
  }
}

export interface SessionChangeResult {
  session: SessionView
  checkpoint: SessionCheckpoint | null
  already_owned?: boolean
  took_over_from?: string | null
  commit: string | null
}

async function run(session: Session, op: Op<ops.SessionChange>): Promise<SessionChangeResult> {
  const done = await mutate(session, op, prepareSessions())
  const r = done.result
  return {
    session: sessionView(r.session, session.now(), done.after.config),
    checkpoint: r.checkpoint,
    ...(r.already_owned !== undefined ? {already_owned: r.already_owned} : {}),
    ...(r.took_over_from !== undefined ? {took_over_from: r.took_over_from} : {}),
    commit: done.commit,
  }
}

export const create = (s: Session, a: {title: string; description: string; strategy: string}) => run(s, (snap, ctx) => ops.createSession(snap, ctx, a))
export const claim = (s: Session, a: {id: string; lease?: number}) => run(s, (snap, ctx) => ops.claimSession(snap, ctx, {id: a.id, leaseSeconds: a.lease}))
export const heartbeat = (s: Session, a: {id: string; epoch?: number; lease?: number}) => run(s, (snap, ctx) => ops.heartbeatSession(snap, ctx, {id: a.id, epoch: a.epoch, leaseSeconds: a.lease}))
export const checkpoint = (s: Session, a: {id: string; summary: string; next: string; epoch?: number; lease?: number}) =>
  run(s, (snap, ctx) => ops.checkpointSession(snap, ctx, {id: a.id, summary: a.summary, next: a.next, epoch: a.epoch, leaseSeconds: a.lease}))
export const revise = (s: Session, a: {id: string; description?: string; strategy?: string; ifRevision?: number; reason: string; epoch?: number}) => run(s, (snap, ctx) => ops.reviseSession(snap, ctx, a))
export const release = (s: Session, a: {id: string; summary: string; next: string; epoch?: number}) => run(s, (snap, ctx) => ops.releaseSession(snap, ctx, a))
export const complete = (s: Session, a: {id: string; summary: string; epoch?: number}) => run(s, (snap, ctx) => ops.completeSession(snap, ctx, a))
export const cancel = (s: Session, a: {id: string; reason: string}) => run(s, (snap, ctx) => ops.cancelSession(snap, ctx, a))
export const takeover = (s: Session, a: {id: string; reason: string; lease?: number}) => run(s, (snap, ctx) => ops.takeoverSession(snap, ctx, {id: a.id, reason: a.reason, leaseSeconds: a.lease}))

// ------------------------------------------------------------------ reads

export interface SessionTaskBrief {
  id: string
  title: string
  status: Status
  owner: string | null
  parent: string | null
}

/** Tasks of a session per status (every status present, 0 when none), and how many are not yet finished. */
export type SessionCounts = Record<Status, number> & {total: number; open: number}

function countsOf(tasks: readonly TaskMeta[]): SessionCounts {
  const c: SessionCounts = {todo: 0, in_progress: 0, blocked: 0, done: 0, cancelled: 0, deferred: 0, failed: 0, total: tasks.length, open: 0}
  for (const t of tasks) {
    c[t.status]++
    if (!FINISHED.has(t.status)) c.open++
  }
  return c
}

export interface SessionShow {
  list: string
  commit: string
  session: SessionView
  /** Newest first. */
  checkpoints: SessionCheckpoint[]
  tasks: SessionTaskBrief[]
  counts: SessionCounts
  broken: SessionBroken[]
}

/** `session show ID`: the session, its checkpoints newest first, its tasks and their counts. */
export async function show(session: Session, {id}: {id: string}): Promise<SessionShow> {
  const loaded = await session.store.load()
  const {sessions, broken} = await readSessions(session.store, loaded.index.rootTree)
  const snap: Snapshot = {...loaded.snapshot, sessions}
  const s = ops.findSession(snap, id)
  const cps = await readCheckpoints(session.store, loaded.index.rootTree, s.id)
  const tasks = ops.tasksOfSession(snap, s.id)
  return {
    list: session.list,
    commit: loaded.index.commit,
    session: sessionView(s, session.now(), snap.config),
    checkpoints: cps.checkpoints,
    tasks: tasks.map((t) => ({id: t.id, title: t.title, status: t.status, owner: t.owner ?? null, parent: t.parent ?? null})),
    counts: countsOf(tasks),
    broken: [...broken.filter((b) => b.path.includes(`/${s.id}/`)), ...cps.broken],
  }
}

export interface SessionRow extends SessionView {
  counts: SessionCounts
}

export interface SessionList {
  list: string
  commit: string
  sessions: SessionRow[]
  total: number
  limit: number | null
  next_cursor: string | null
  broken: SessionBroken[]
}

/** Rows newest first (created_at, then id), each with its task counts. */
function rowsOf(snap: Snapshot, picked: readonly WorkSession[], now: string): SessionRow[] {
  const byId = new Map<string, TaskMeta[]>()
  for (const e of snap.tasks.values()) {
    const ws = e.meta?.work_session
    if (ws) (byId.get(ws) ?? byId.set(ws, []).get(ws)!).push(e.meta!)
  }
  return picked.map((s) => ({...sessionView(s, now, snap.config), counts: countsOf(byId.get(s.id) ?? [])}))
}

const newest = (a: WorkSession, b: WorkSession): number => (a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** The cursor of a list page: the last row's creation time and id (keyset: rows added between pages are never repeated). */
function encodeCursor(s: WorkSession): string {
  return Buffer.from(JSON.stringify([s.created_at, s.id])).toString('base64url')
}

function decodeCursor(text: string): [string, string] {
  try {
    const v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return [v[0], v[1]]
  } catch {
    // below
  }
  throw new UsageError(`"${text}" is not a cursor of \`session list\` (pass the next_cursor of a page)`, {cursor: text}, 'bad_cursor')
}

/** The states `--state` names (each, or comma-separated; `active`: open and in_progress; `all`). */
function statesWanted(values: readonly string[] | undefined): Set<string> {
  const out = new Set<string>()
  for (const v of splitValues(values)) {
    if (v === 'all') SESSION_STATES.forEach((s) => out.add(s))
    else if (v === 'active') ['open', 'in_progress'].forEach((s) => out.add(s))
    else if ((SESSION_STATES as readonly string[]).includes(v)) out.add(v)
    else throw new UsageError(`"${v}" is not a session state: use ${SESSION_STATES.join(', ')}, active or all`, {state: v}, 'bad_status')
  }
  return out.size > 0 ? out : new Set(['open', 'in_progress'])
}

export const DEFAULT_SESSION_PAGE = 50

/** `session list`: sessions newest first, filtered by state (default: active ones) and owner, a page at a time. */
export async function list(session: Session, args: {state?: string[]; owner?: string; limit?: number; after?: string}): Promise<SessionList> {
  const loaded = await session.store.load()
  const {sessions, broken} = await readSessions(session.store, loaded.index.rootTree)
  const states = statesWanted(args.state)
  let owner = args.owner
  if (owner === ME) owner = await session.actor()
  const limit = args.limit === undefined ? DEFAULT_SESSION_PAGE : args.limit === 0 ? null : args.limit
  const after = args.after === undefined ? null : decodeCursor(args.after)
  const matching = [...sessions.values()].filter((s) => states.has(s.state) && (owner === undefined || s.owner === owner)).sort(newest)
  const from = after ? matching.findIndex((s) => s.created_at < after[0] || (s.created_at === after[0] && s.id < after[1])) : 0
  const rest = from === -1 ? [] : matching.slice(from)
  const page = limit === null ? rest : rest.slice(0, limit)
  const snap = loaded.snapshot
  return {
    list: session.list,
    commit: loaded.index.commit,
    sessions: rowsOf(snap, page, session.now()),
    total: matching.length,
    limit,
    next_cursor: limit !== null && rest.length > page.length && page.length > 0 ? encodeCursor(page[page.length - 1]!) : null,
    broken,
  }
}

export interface SessionHit {
  session: SessionRow
  score: number
  /** Where the words were found: title, description, strategy, checkpoints. */
  fields: string[]
}

export interface SessionSearch {
  list: string
  commit: string
  query: string
  total: number
  results: SessionHit[]
}

const SEARCH_WEIGHTS = {title: 4, description: 1, strategy: 1, checkpoints: 1} as const

/**
 * `session search QUERY`: the sessions (any state unless --state) whose
 * title, description, strategy or checkpoints hold every word of the query
 * (case-insensitive, a word may be the start of a longer one), ranked by
 * where and how often they occur, a bounded window (--limit, default 20).
 */
export async function search(session: Session, args: {query: string; state?: string[]; limit?: number}): Promise<SessionSearch> {
  const terms = args.query.toLowerCase().split(/[^\p{L}\p{N}_-]+/u).filter(Boolean)
  if (terms.length === 0) throw new UsageError('session search needs a query: words to look for in titles, descriptions, strategies and checkpoints', {}, 'usage')
  const loaded = await session.store.load()
  const {sessions} = await readSessions(session.store, loaded.index.rootTree)
  const states = args.state?.length ? statesWanted(args.state) : new Set<string>(SESSION_STATES)
  const hits: Array<{s: WorkSession; score: number; fields: string[]}> = []
  for (const s of sessions.values()) {
    if (!states.has(s.state)) continue
    const cps = await readCheckpoints(session.store, loaded.index.rootTree, s.id)
    const texts: Record<keyof typeof SEARCH_WEIGHTS, string> = {
      title: s.title,
      description: s.description,
      strategy: s.strategy,
      checkpoints: cps.checkpoints.map((c) => `${c.summary}\n${c.next ?? ''}`).join('\n'),
    }
    const words = Object.fromEntries(Object.entries(texts).map(([k, t]) => [k, t.toLowerCase().split(/[^\p{L}\p{N}_-]+/u).filter(Boolean)])) as Record<keyof typeof SEARCH_WEIGHTS, string[]>
    let score = 0
    const fields = new Set<string>()
    let all = true
    for (const term of terms) {
      let found = false
      for (const k of Object.keys(SEARCH_WEIGHTS) as Array<keyof typeof SEARCH_WEIGHTS>) {
        const n = words[k].filter((w) => w.startsWith(term)).length
        if (n > 0) {
          found = true
          fields.add(k)
          score += SEARCH_WEIGHTS[k] * (1 + Math.log(n))
        }
      }
      if (!found) all = false
    }
    if (all) hits.push({s, score: Math.round(score * 1000) / 1000, fields: [...fields]})
  }
  hits.sort((a, b) => b.score - a.score || newest(a.s, b.s))
  const limit = args.limit === undefined ? 20 : args.limit === 0 ? hits.length : args.limit
  const rows = rowsOf(loaded.snapshot, hits.slice(0, limit).map((h) => h.s), session.now())
  return {
    list: session.list,
    commit: loaded.index.commit,
    query: args.query,
    total: hits.length,
    results: hits.slice(0, limit).map((h, i) => ({session: rows[i]!, score: h.score, fields: h.fields})),
  }
}

/** The id a `--session` filter of `list`/`search` names (an id or unique prefix of a session; exit 3 when none). */
export async function resolveSessionFilter(session: Session, loaded: Loaded, input: string): Promise<string> {
  const {sessions} = await readSessions(session.store, loaded.index.rootTree)
  return ops.findSession({...loaded.snapshot, sessions}, input).id
}

/**
 * The Prepare of `add`: the sessions are read when the task names one
 * (--session) or TASKS_SESSION holds a session id; else nothing is read.
 */
export function prepareForAdd(explicit: string | undefined, fromEnv: string | undefined): Prepare | undefined {
  if (explicit === undefined && !(fromEnv !== undefined && isSessionId(fromEnv.trim()))) return undefined
  return prepareSessions()
}
