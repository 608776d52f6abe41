/**
 * `tasks export` and `tasks import`: the use cases around the pure document
 * format and import op of core/interchange.ts. Export reads every card's
 * description and comments through the session's reader; import reads the
 * file, turns it into records (a git-tasks document or a Taskwarrior
 * export), reads the existing cards it names, and runs one op through the
 * transaction: one commit, or none when the list already holds it all.
 */
import {closeSync, constants, existsSync, fstatSync, openSync, realpathSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {InvalidError, NotPermittedError, UsageError} from '../core/errors'
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  IMPORT_MAX_BYTES,
  type ExistingDetails,
  type ExportDocument,
  type ExportedTask,
  type ImportRecord,
  type ImportResultItem,
  exportedTask,
  importTasks,
  checkRecord,
  recordsOfDocument,
  recordsOfTaskwarrior,
} from '../core/interchange'
import {childIds, lookup} from '../core/snapshot'
import {serialiseCheck, sortChecks} from '../core/check'
import {neutralize} from '../core/untrusted-text'
import {decodeUtf8} from '../core/validation'
import type {TaskMeta} from '../core/task'
import {loadCliProgress} from './lazy-libs'
import {dirOf} from './search'
import type {Session} from './session'
import {readCapped} from './bounded-read'
import {mutate} from './transaction'
import {readCardCommits, readHistory} from '../refstore/history'
import {specRevisions} from '../core/spec-revisions'
import {taskDir} from '../core/ids'

const READ_WINDOW = 256

export async function exportDocument(session: Session, {ids}: {ids: string[]}): Promise<ExportDocument> {
  const loaded = await session.store.load()
  const snap = loaded.snapshot
  const metas: TaskMeta[] = []
  if (ids.length) {
    const seen = new Set<string>()
    // Each card named with its sub-items, theirs, and so on: a parent travels with its whole subtree.
    const take = (m: TaskMeta): void => {
      if (seen.has(m.id)) return
      metas.push(m)
      seen.add(m.id)
      for (const child of childIds(snap, m.id)) {
        const c = snap.tasks.get(child)?.meta
        if (c) take(c)
      }
    }
    for (const input of ids) take(lookup(snap, input))
  } else {
    for (const e of snap.tasks.values()) if (e.meta) metas.push(e.meta)
  }
  metas.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const tasks: ExportedTask[] = []
  for (let i = 0; i < metas.length; i += READ_WINDOW) {
    const part = metas.slice(i, i + READ_WINDOW)
    const dirs = new Map<string, string>()
    for (const m of part) {
      const dir = dirOf(snap, m.id)
      if (dir) dirs.set(m.id, dir)
    }
    const details = await Promise.all(part.map((m) => session.store.readDetail(loaded.index.commit, m.id, dirs.get(m.id))))
    const {checks} = await session.store.readChecks(loaded.index.commit, part.map((m) => m.id), dirs)
    part.forEach((m, j) => tasks.push(exportedTask(m, details[j]!.body, details[j]!.comments, sortChecks(checks.get(m.id) ?? []))))
  }
  // Cards named (and their subtrees) travel with their history: spec revisions and events, read from the ref.
  if (ids.length && loaded.index.commit) {
    const commit = loaded.index.commit
    const cwd = session.store.repo.cwd
    for (const t of tasks) {
      const [cardCommits, events] = await Promise.all([readCardCommits(cwd, commit, taskDir(t.id)), readHistory(cwd, commit, {path: taskDir(t.id)})])
      t.revisions = specRevisions(t.id, cardCommits)
      t.events = events
        .map((e) => ({commit: e.commit, actor: e.actor, date: e.date, op: e.op, subject: e.subject}))
        .reverse()
    }
  }
  return {format: EXPORT_FORMAT, version: EXPORT_VERSION, list: session.list, commit: loaded.index.commit, exported_at: session.now(), tasks}
}

/** The document as Markdown for people (not read back by import: use JSON for that). */
export function exportMarkdown(doc: ExportDocument): string {
  const out = [`<!-- ${doc.format} version ${doc.version}; list ${doc.list}; commit ${doc.commit}; exported ${doc.exported_at} -->`, '', `# Tasks of list ${doc.list}`, '']
  for (const t of doc.tasks) {
    out.push(`## ${t.id}: ${neutralize(t.title)}`, '')
    const facts: Array<[string, unknown]> = [
      ['status', t.status],
      ['priority', t.priority],
      ['tags', t.tags.join(', ')],
      ['parent', t.parent],
      ['depends on', t.depends_on.join(', ')],
      ['assignee', t.assignee],
      ['owner', t.owner],
      ['lease until', t.lease_expires],
      ['session', t.session],
      ['flagged', t.flag_reason !== undefined ? `${t.flag_reason} (by ${t.flagged_by ?? '?'} at ${t.flagged_at ?? '?'})` : undefined],
      ['collaborators', t.collaborators?.join(', ')],
      ['subscribers', t.subscribers?.join(', ')],
      ['notify', t.notify_roles?.join(', ')],
      ['muted', t.notify_mute?.join(', ')],
      ['blocked', t.block_note],
      ['waits on', t.blocked_on],
      ['cancelled', t.cancel_reason],
      // Issue 33: states and dates.
      ['deferred', t.defer_reason !== undefined || t.defer_until !== undefined ? [t.defer_until ? `until ${t.defer_until}` : '', t.defer_reason ?? ''].filter(Boolean).join(': ') : undefined],
      ['failed', t.fail_reason],
      ['due', t.due],
      ['scheduled', t.scheduled],
      ['repeats', t.every ? `every ${t.every}${t.previous ? ` (after ${t.previous})` : ''}` : undefined],
      ['closed', t.closed_at],
      ['key', t.key],
      // Issue 33: custom fields, KEY=VALUE, keys in order.
      ['fields', t.fields ? Object.keys(t.fields).sort().map((k) => `${k}=${String(t.fields![k])}`).join(', ') : undefined],
      ['created', `${t.created_at} by ${t.created_by}`],
      ['updated', `${t.updated_at} by ${t.updated_by} (revision ${t.revision})`],
    ]
    for (const [k, v] of facts) if (v !== undefined && v !== '') out.push(`- ${k}: ${neutralize(String(v))}`)
    out.push('')
    if (t.body.trim()) out.push(neutralize(t.body.trimEnd()), '')
    if (t.comments.length) {
      out.push('### Comments', '')
      for (const c of t.comments) {
        out.push(`- **${c.kind}** by ${neutralize(c.author)} at ${c.created_at}${c.session ? ` (session ${neutralize(c.session)})` : ''}:`, '', ...neutralize(c.body).split('\n').map((l) => (l ? `  ${l}` : '')), '')
        if (c.next) out.push(`  Next: ${neutralize(c.next)}`, '')
      }
    }
    if (t.checks?.length) {
      out.push('### Checks', '')
      for (const c of t.checks) out.push(`- ${c.id} (${c.kind}, ${c.status}): ${neutralize(c.text)}${c.evidence ? `; evidence: ${neutralize(c.evidence)}` : ''}`)
      out.push('')
    }
  }
  return `${out.join('\n').trimEnd()}\n`
}

export interface ImportOutput {
  list: string
  /** The file's kind: a git-tasks export document, or a Taskwarrior export. */
  source: 'git-tasks' | 'taskwarrior'
  commit: string | null
  created: number
  updated: number
  unchanged: number
  comments_added: number
  checks_written: number
  tasks: ImportResultItem[]
  warnings: string[]
}

/** A progress bar on stderr, only on a terminal, not with --json, and only for files worth one. */
function progressBar(total: number, quiet: boolean): {active: boolean; tick(n?: number): void; stage(name: string, of?: number): void; stop(): void} {
  const none = {active: false, tick() {}, stage() {}, stop() {}}
  if (quiet || !process.stderr.isTTY || total < 200) return none
  const {SingleBar, Presets} = loadCliProgress()
  const bar = new SingleBar({format: 'importing {stage} [{bar}] {value}/{total}', stream: process.stderr, hideCursor: true, clearOnComplete: true}, Presets.shades_classic)
  bar.start(total, 0, {stage: 'checking'})
  return {
    active: true,
    tick: (n = 1) => bar.increment(n),
    stage: (name, of = total) => {
      bar.setTotal(of)
      bar.update(0, {stage: name})
    },
    stop: () => bar.stop(),
  }
}

/** The environment variable that sets the largest document `tasks import` reads (bytes). */
export const IMPORT_LIMIT_ENV = 'TASKS_IMPORT_MAX_BYTES'
/** The most it may be set to: a JavaScript string holds at most about 512 MiB. */
const IMPORT_LIMIT_CEILING = 512 * 1024 * 1024

/** The largest import document, in bytes: TASKS_IMPORT_MAX_BYTES, else 64 MiB (as `tasks batch`). */
export function importLimitBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[IMPORT_LIMIT_ENV]
  if (raw === undefined || raw === '') return IMPORT_MAX_BYTES
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 1 || n > IMPORT_LIMIT_CEILING) {
    throw new UsageError(`${IMPORT_LIMIT_ENV} must be a whole number of bytes from 1 to ${IMPORT_LIMIT_CEILING}; got "${raw}"`, {variable: IMPORT_LIMIT_ENV})
  }
  return n
}

/** Where a client that may not read the server's files (MCP) may read from: the repository's work tree. */
export interface ImportRoot {
  /** The directory relative paths start from (the server's working directory). */
  cwd: string
  /** The work tree's top directory (real path), or null for a bare repository. */
  workTree: string | null
  /** The git directories (real paths): inside the work tree, but not documents. */
  gitDirs: string[]
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel))
}

function realOr(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/** The import root of a session: its working directory, the work tree above it, and its git directories. */
export function importRootOf(session: Session): ImportRoot {
  const cwd = realOr(session.store.repo.cwd)
  let workTree: string | null = null
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) {
      workTree = dir
      break
    }
    if (dirname(dir) === dir) break
  }
  return {cwd, workTree, gitDirs: [...new Set([realOr(session.store.repo.gitDir), realOr(session.store.repo.commonDir)])]}
}

/**
 * Open `path` for a client that may read only inside the work tree: the
 * path (relative to the working directory) must name a regular file inside
 * it, also once symbolic links are followed, and not inside a git
 * directory. A path outside is refused before anything is opened or
 * looked up there; nothing of a file's contents is ever quoted.
 */
function openConfined(path: string, root: ImportRoot): number {
  const refuse = (why: string) =>
    new NotPermittedError('path_outside_repository', `${path}: ${why}; over MCP, import reads only files inside the repository's work tree (or pass the document itself)`, {path})
  if (!root.workTree) throw refuse('this repository has no work tree')
  const lexical = resolve(root.cwd, path)
  if (!isInside(lexical, root.workTree)) throw refuse('the path is outside the work tree')
  let real: string
  try {
    real = realpathSync(lexical)
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, {path}, 'bad_file')
  }
  if (!isInside(real, root.workTree)) throw refuse('the path leads outside the work tree (through a symbolic link)')
  if (root.gitDirs.some((d) => isInside(real, d)) || relative(root.workTree, real).split(sep).includes('.git')) throw refuse('the path is inside a git directory')
  let fd: number
  try {
    // Non-blocking: a FIFO must not hold the server until someone writes to it.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, {path}, 'bad_file')
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd)
    throw new UsageError(`cannot read ${path}: not a regular file`, {path}, 'bad_file')
  }
  return fd
}

/**
 * The parsed document in `path` (`-`: standard input), read up to the
 * import limit. With `root` (MCP), only a regular file inside the work
 * tree. Errors name the file and never quote what it holds.
 */
function readImportFile(path: string, root: ImportRoot | null): unknown {
  const limit = importLimitBytes()
  const name = path === '-' ? 'standard input' : path
  let bytes: Buffer
  if (root && path === '-') throw new UsageError('"-" (stdin) is not available here: pass the document itself', {path})
  const fd = root ? openConfined(path, root) : null
  try {
    const from = fd ?? (path === '-' ? 0 : openSync(path, 'r'))
    try {
      bytes = readCapped(from, limit)
    } finally {
      if (from !== 0) closeSync(from)
    }
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {path}, 'bad_file')
  }
  if (bytes.length > limit) {
    throw new InvalidError('import_too_large', `${name} is larger than ${limit} bytes, the most import reads (${IMPORT_LIMIT_ENV} sets the limit); nothing was written`, {path, limit})
  }
  const text = decodeUtf8(bytes)
  if (text === null) throw new InvalidError('bad_utf8', `${name} is not valid UTF-8 text`, {path})
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    // The parser's message quotes the text; say only where it stopped.
    const at = /at position (\d+)/.exec((error as Error).message)
    throw new InvalidError('bad_import', `${name} is not JSON${at ? ` (the parser stopped at character ${at[1]})` : ''}`, {path})
  }
}

/** Thrown by the op when it needs the details of existing cards at a commit it has not seen; read, then run again. */
class NeedDetails extends Error {
  constructor(
    readonly commit: string,
    readonly ids: string[],
    /** The tree id of each card's directory, when the snapshot has it. */
    readonly dirs: Array<string | undefined>,
  ) {
    super('import needs the existing cards first')
  }
}

/**
 * `tasks import`: a git-tasks export object or a Taskwarrior array, read
 * from `file` (`-`: stdin) or given parsed as `document` (the MCP tool);
 * `quiet`: no progress bar; `confined`: `file` must be inside the work
 * tree (a client that may not read the server's files: MCP).
 */
export async function importDocument(session: Session, {file, document, quiet, confined = true}: {file?: string; document?: unknown; quiet: boolean; confined?: boolean}): Promise<ImportOutput> {
  return importParsed(session, file !== undefined ? readImportFile(file, confined ? importRootOf(session) : null) : document, {quiet})
}

async function importParsed(session: Session, parsed: unknown, options: {quiet: boolean}): Promise<ImportOutput> {
  const source: ImportOutput['source'] = Array.isArray(parsed) ? 'taskwarrior' : 'git-tasks'
  const count = Array.isArray(parsed) ? parsed.length : Array.isArray((parsed as {tasks?: unknown})?.tasks) ? (parsed as {tasks: unknown[]}).tasks.length : 0
  const bar = progressBar(count, options.quiet)
  // The op is pure and the transaction may run it again on a newer snapshot: the existing cards'
  // descriptions and comment ids (not in the snapshot) are read per commit, before the op runs again.
  const existing = new Map<string, ExistingDetails>()
  let warnings: string[] = []
  try {
    // With a bar on screen: check each card as the op will (so a bad file fails before anything is written,
    // with progress), then read the existing cards, then write (one step: the trees and one commit).
    if (bar.active && source === 'git-tasks') {
      for (const r of recordsOfDocument(parsed)) {
        checkRecord(r)
        bar.tick()
      }
    }
    for (;;) {
      try {
        const done = await mutate(session, (snap, ctx) => {
          let records: ImportRecord[]
          if (source === 'taskwarrior') {
            const tw = recordsOfTaskwarrior(parsed as unknown[], snap, ctx)
            records = tw.records
            warnings = tw.warnings
          } else records = recordsOfDocument(parsed)
          const commit = snap.commit ?? ''
          const details = existing.get(commit)
          if (!details) {
            const ids = records.map((r) => r.meta.id).filter((id) => typeof id === 'string' && snap.tasks.get(id)?.meta)
            throw new NeedDetails(commit, ids, ids.map((id) => dirOf(snap, id)))
          }
          return importTasks(snap, ctx, records, details)
        })
        const items = done.result.items
        return {
          list: session.list,
          source,
          commit: done.commit,
          created: items.filter((i) => i.action === 'created').length,
          updated: items.filter((i) => i.action === 'updated').length,
          unchanged: items.filter((i) => i.action === 'unchanged').length,
          comments_added: items.reduce((n, i) => n + i.comments_added, 0),
          checks_written: items.reduce((n, i) => n + i.checks_written, 0),
          tasks: items,
          warnings,
        }
      } catch (error) {
        if (!(error instanceof NeedDetails)) throw error
        bar.stage('reading', error.ids.length)
        const details = new Map<string, {body: string; commentIds: ReadonlySet<string>; checks: ReadonlyMap<string, string>}>()
        for (let i = 0; i < error.ids.length; i += READ_WINDOW) {
          const part = error.ids.slice(i, i + READ_WINDOW)
          const read = await Promise.all(part.map((id, j) => session.store.readDetail(error.commit, id, error.dirs[i + j])))
          const dirs = new Map<string, string>()
          part.forEach((id, j) => {
            const dir = error.dirs[i + j]
            if (dir) dirs.set(id, dir)
          })
          const {checks} = await session.store.readChecks(error.commit, part, dirs)
          part.forEach((id, j) =>
            details.set(id, {body: read[j]!.body, commentIds: new Set(read[j]!.comments.map((c) => c.id)), checks: new Map((checks.get(id) ?? []).map((c) => [c.id, serialiseCheck(c)]))}),
          )
          bar.tick(part.length)
        }
        existing.set(error.commit, details)
        bar.stage('writing', 1)
      }
    }
  } finally {
    bar.stop()
  }
}
