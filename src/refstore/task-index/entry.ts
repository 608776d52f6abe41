/**
 * What the index holds: one task (`IndexedTask`, whose frontmatter stays
 * JSON text until it is read), the codec of a task's cache line, the header
 * of a commit (`IndexHeader`), and an index as a base plus the changes since
 * it (`TaskIndex`), which `snapshotOf` turns into the core's snapshot.
 * Shared by the reader, the writer, the delta file and the catch-up.
 */
import {overlaySnapshot} from '../../core/overlay'
import {ScannedTables, type Snapshot, type SnapshotTables, type TaskEntry} from '../../core/snapshot'
import {TASKS_DIR, TASK_FILE} from '../../core/store-layout'
import {type ListConfig, type Status, TASK_KEYS, type TaskMeta} from '../../core/task'
import {NO_IDS, damaged} from './format'

/**
 * Frontmatter as a JSON array in TASK_KEYS order (+ extra): half the size of
 * an object. The keys are written out (test/unit/index-meta.test.ts checks
 * them against TASK_KEYS): a loop reading each by a computed name costs
 * twice as much, on every card of a cold build.
 */
export function encodeMeta(m: TaskMeta): string {
  const values: unknown[] = [
    m.id ?? null, m.title ?? null, m.status ?? null, m.type ?? null, m.priority ?? null, m.tags ?? null, m.parent ?? null, m.work_session ?? null,
    m.depends_on ?? null, m.assignee ?? null, m.owner ?? null, m.epoch ?? null, m.claim_epochs ?? null,
    m.claimed_at ?? null, m.lease_expires ?? null, m.session ?? null, m.block_note ?? null, m.blocked_on ?? null, m.cancel_reason ?? null,
    m.defer_reason ?? null, m.defer_until ?? null, m.fail_reason ?? null, m.due ?? null, m.scheduled ?? null, m.every ?? null, m.previous ?? null,
    m.flag_reason ?? null, m.flagged_by ?? null, m.flagged_at ?? null, m.closed_at ?? null, m.key ?? null,
    m.collaborators ?? null, m.subscribers ?? null, m.notify_roles ?? null, m.notify_mute ?? null,
    m.created_at ?? null, m.created_by ?? null, m.updated_at ?? null, m.updated_by ?? null, m.revision ?? null,
    // Issue 33: custom fields (cache format 14).
    m.fields ?? null
  ]
  if (m.extra) values.push(m.extra)
  return JSON.stringify(values)
}

function decodeMeta(id: string, text: string): TaskMeta {
  let values: unknown[]
  try {
    values = JSON.parse(text) as unknown[]
  } catch {
    throw damaged(`the frontmatter of ${id}`)
  }
  const m: Record<string, unknown> = {}
  for (let i = 0; i < TASK_KEYS.length; i++) if (values[i] !== null) m[TASK_KEYS[i]!] = values[i]
  if (values.length > TASK_KEYS.length) m.extra = values[TASK_KEYS.length]
  return m as unknown as TaskMeta
}

/**
 * One task of the index, and at the same time the snapshot's entry for it:
 * the frontmatter is decoded from `json` on first access.
 */
export class IndexedTask implements TaskEntry {
  private decoded: TaskMeta | undefined
  /**
   * A finished card read afresh: what the list section orders finished rows
   * by (priority, creation time as createdNumbers), taken while its fields
   * were at hand, so writing the cache file decodes none of them again.
   */
  finishedOrder: {priority: number; date: number; time: number} | undefined

  constructor(
    readonly id: string,
    readonly shard: string,
    /** Tree id of the task's directory. */
    readonly dir: string,
    /** '' for an unreadable file. */
    readonly statusText: string,
    readonly parentText: string,
    readonly deps: readonly string[],
    private json: string | undefined,
    readonly error: string | undefined,
    meta?: TaskMeta,
  ) {
    this.decoded = meta
  }

  static fromMeta(id: string, shard: string, dir: string, meta: TaskMeta): IndexedTask {
    return new IndexedTask(id, shard, dir, meta.status, meta.parent ?? '', meta.depends_on, undefined, undefined, meta)
  }

  static broken(id: string, shard: string, dir: string, error: string): IndexedTask {
    return new IndexedTask(id, shard, dir, '', '', NO_IDS, undefined, error)
  }

  get path(): string {
    return `${TASKS_DIR}/${this.shard}/${this.id}/${TASK_FILE}`
  }

  get meta(): TaskMeta | undefined {
    if (this.decoded === undefined && this.json !== undefined) this.decoded = decodeMeta(this.id, this.json)
    return this.decoded
  }

  get status(): Status | undefined {
    return (this.statusText || undefined) as Status | undefined
  }

  get parent(): string | undefined {
    return this.parentText || undefined
  }

  get depends_on(): readonly string[] | undefined {
    return this.statusText ? this.deps : undefined
  }

  /** The `data` field of the cache line. */
  data(): string {
    if (this.error !== undefined) return `!${JSON.stringify(this.error)}`
    this.json ??= encodeMeta(this.decoded!)
    return this.json
  }
}

/** What the index knows about a commit besides its tasks. */
export interface IndexHeader {
  list: string
  commit: string
  rootTree: string
  tasksTree: string | null
  metaBlob: string | null
  configBlob: string | null
  config: ListConfig
  /** Problems with meta.yaml or config.yaml, reported but not fatal to reading. */
  warnings: string[]
  /** Shard name → tree id. */
  shards: Record<string, string>
  /**
   * Entries under tasks/ that are not task cards: a name that is not a task
   * id or is not a shard, a task directory in the wrong shard, a file where
   * a shard belongs. Reported by path beside the broken cards; `shard` says
   * which shard listing found it (none: the tasks/ tree itself).
   */
  strays: Stray[]
}

/** Something under tasks/ that is not a card, reported by path. */
export interface Stray {
  path: string
  error: string
  shard?: string
}

/** A complete set of tasks with its tables: the cache file, or tasks read from git. */
export interface TaskBase {
  tasks: ReadonlyMap<string, IndexedTask>
  tables: SnapshotTables
}

/**
 * The tasks at `commit`: a base (usually the cache file, at an older commit)
 * and the entries that changed since it (null: removed).
 */
export interface TaskIndex extends IndexHeader {
  base: TaskBase
  changes: ReadonlyMap<string, IndexedTask | null>
}

export interface Line {
  task: IndexedTask
  children: readonly string[]
  dependents: readonly string[]
}

export function idList(text: string): readonly string[] {
  return text ? text.split(' ') : NO_IDS
}

export function parseLine(text: string): Line {
  const f = text.split('\t')
  if (f.length !== 9) throw damaged(`a line with ${f.length} fields`)
  const [id, status, shard, dir, parent, deps, children, dependents, data] = f as [string, string, string, string, string, string, string, string, string]
  let task: IndexedTask
  if (data[0] === '!') {
    let error: string
    try {
      error = JSON.parse(data.slice(1)) as string
    } catch {
      throw damaged(`the line of ${id}`)
    }
    task = IndexedTask.broken(id, shard, dir, error)
  } else {
    task = new IndexedTask(id, shard, dir, status, parent, idList(deps), data, undefined)
  }
  return {task, children: idList(children), dependents: idList(dependents)}
}

/** Tasks read from git and held in memory, with tables computed from them. */
export function memoryBase(tasks: Map<string, IndexedTask>): TaskBase {
  return {tasks, tables: new ScannedTables(tasks)}
}

export const EMPTY_BASE: TaskBase = memoryBase(new Map())

/** A stray at a shard's own path: a shard that is not a readable directory. */
const SHARD_PATH_RE = new RegExp(`^${TASKS_DIR}/[0-9a-f]{2}$`)

/** The core's view of an index: the base read through the changes. */
export function snapshotOf(index: TaskIndex): Snapshot {
  const base: Snapshot = {list: index.list, commit: index.commit, config: index.config, tasks: index.base.tasks as ReadonlyMap<string, TaskEntry>, tables: index.base.tables}
  // A stray at a shard's own path is a shard that is not a readable directory: no new task can go there.
  const blocked = index.strays.filter((s) => SHARD_PATH_RE.test(s.path)).map((s) => s.path.slice(TASKS_DIR.length + 1))
  if (blocked.length > 0) base.blockedShards = new Set(blocked)
  return index.changes.size === 0 ? base : overlaySnapshot(base, index.changes, index.commit)
}
