/**
 * The task index: every task of a list at one commit, derived from the tree
 * and cached under the git directory (`<common-dir>/git-tasks/index-<list>`).
 * It is keyed by the commit it describes and updated incrementally: from the
 * cached commit's tree to the new tip, only shards whose tree id changed are
 * read, and in them only tasks whose directory changed, so a plain
 * `git fetch` that moved the ref never leaves it stale and a rebuild is
 * always possible (delete the file). No daemon, no database: a file written
 * by rename, last writer wins, and every version is correct for the commit
 * it names.
 *
 * Built to be cheap at 10,000 tasks: the file is one line per task in id
 * order (so ids need no sorting), each task's frontmatter stays JSON text
 * until a command touches it, and status, parent and dependencies are kept
 * apart for the graph and the status filters.
 */
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {EnvironmentError} from '../core/errors'
import {shardOf} from '../core/ids'
import type {Snapshot, TaskEntry} from '../core/snapshot'
import {CONFIG_PATH, META_PATH, TASKS_DIR, TASK_FILE} from '../core/store-layout'
import {DEFAULT_CONFIG, FORMAT_VERSION, type ListConfig, type Status, TASK_KEYS, type TaskMeta} from '../core/task'
import {parseConfig, parseMeta, parseTaskFile} from '../core/task-file'
import {type HashAlgorithm, TREE_MODE, decodeCommit, decodeTree} from './git-objects'
import type {ObjectReader} from './object-reader'

const CACHE_VERSION = 3
const MAGIC = 'git-tasks index 3'
const NO_DEPS: readonly string[] = Object.freeze([])

/** Frontmatter as a JSON array in TASK_KEYS order (+ extra): half the size of an object. */
function encodeMeta(m: TaskMeta): string {
  const values: unknown[] = TASK_KEYS.map((k) => m[k] ?? null)
  if (m.extra) values.push(m.extra)
  return JSON.stringify(values)
}

function decodeMeta(text: string): TaskMeta {
  const values = JSON.parse(text) as unknown[]
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
    return new IndexedTask(id, shard, dir, '', '', NO_DEPS, undefined, error)
  }

  get path(): string {
    return `${TASKS_DIR}/${this.shard}/${this.id}/${TASK_FILE}`
  }

  get meta(): TaskMeta | undefined {
    if (this.decoded === undefined && this.json !== undefined) this.decoded = decodeMeta(this.json)
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

export interface TaskIndex {
  v: number
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
  tasks: Map<string, IndexedTask>
  /** Every id, sorted. */
  sortedIds: string[]
}

export function cachePath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `index-${list}`)
}

/**
 * Cache file format (text, one record per line, fields split by TAB):
 *   git-tasks index 3
 *   {JSON header: list, commit, trees, config, warnings, shards}
 *   <id> <shard> <dir tree> <status> <parent> <deps, space-separated> <frontmatter JSON array | !error JSON>
 * Task lines are in id order. JSON text never holds a raw TAB or newline.
 */
export function readCachedIndex(commonDir: string, list: string): TaskIndex | null {
  let text: string
  try {
    text = readFileSync(cachePath(commonDir, list), 'utf8')
  } catch {
    return null
  }
  try {
    let nl = text.indexOf('\n')
    if (text.slice(0, nl) !== MAGIC) return null
    let start = nl + 1
    nl = text.indexOf('\n', start)
    const header = JSON.parse(text.slice(start, nl)) as Omit<TaskIndex, 'tasks' | 'sortedIds'>
    if (header.v !== CACHE_VERSION || header.list !== list) return null
    const tasks = new Map<string, IndexedTask>()
    const sortedIds: string[] = []
    start = nl + 1
    while (start < text.length) {
      nl = text.indexOf('\n', start)
      if (nl === -1) nl = text.length
      const t1 = text.indexOf('\t', start)
      const t2 = text.indexOf('\t', t1 + 1)
      const t3 = text.indexOf('\t', t2 + 1)
      const t4 = text.indexOf('\t', t3 + 1)
      const t5 = text.indexOf('\t', t4 + 1)
      const t6 = text.indexOf('\t', t5 + 1)
      if (t6 === -1 || t6 > nl) return null
      const id = text.slice(start, t1)
      const deps = t6 > t5 + 1 ? text.slice(t5 + 1, t6).split(' ') : NO_DEPS
      const data = text.slice(t6 + 1, nl)
      const task =
        data[0] === '!'
          ? IndexedTask.broken(id, text.slice(t1 + 1, t2), text.slice(t2 + 1, t3), JSON.parse(data.slice(1)) as string)
          : new IndexedTask(id, text.slice(t1 + 1, t2), text.slice(t2 + 1, t3), text.slice(t3 + 1, t4), text.slice(t4 + 1, t5), deps, data, undefined)
      tasks.set(id, task)
      sortedIds.push(id)
      start = nl + 1
    }
    return {...header, tasks, sortedIds}
  } catch {
    return null
  }
}

export function writeCachedIndex(commonDir: string, index: TaskIndex): void {
  const file = cachePath(commonDir, index.list)
  try {
    const {tasks, sortedIds, ...header} = index
    const out: string[] = [MAGIC, JSON.stringify(header)]
    for (const id of sortedIds) {
      const t = tasks.get(id)!
      out.push(`${id}\t${t.shard}\t${t.dir}\t${t.statusText}\t${t.parentText}\t${t.deps.join(' ')}\t${t.data()}`)
    }
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, `${out.join('\n')}\n`)
    renameSync(tmp, file)
  } catch {
    // The cache is an optimisation; a read-only git dir must not fail a read.
  }
}

/** Counts of what an update read, for deciding whether to persist it. */
export interface IndexUpdate {
  index: TaskIndex
  tasksRead: number
}

/**
 * Bring `cached` (or nothing) up to `commit`. Reads are issued level by level
 * and pipelined through the batch reader.
 */
export async function updateIndex(
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  list: string,
  commit: string,
  cached: TaskIndex | null,
): Promise<IndexUpdate> {
  const base = cached && cached.list === list ? cached : null
  if (base && base.commit === commit) return {index: base, tasksRead: 0}
  const commitObj = await reader.readType(commit, 'commit')
  const rootTree = decodeCommit(commitObj.content).tree
  if (base && base.rootTree === rootTree) return {index: {...base, commit}, tasksRead: 0}

  const root = decodeTree((await reader.readType(rootTree, 'tree')).content, algorithm)
  const byName = new Map(root.map((e) => [e.name, e]))
  const warnings: string[] = []

  const metaBlob = byName.get(META_PATH)?.oid ?? null
  if (!metaBlob) throw new EnvironmentError('bad_store', `the tasks ref ${commit.slice(0, 12)} has no ${META_PATH}; it is not a git-tasks list`)
  if (!base || base.metaBlob !== metaBlob) {
    const meta = parseMeta((await reader.readType(metaBlob, 'blob')).content.toString('utf8'))
    if (!meta.ok) throw new EnvironmentError('bad_store', `${META_PATH} on the tasks ref is broken: ${meta.error}`)
    if (meta.value.format > FORMAT_VERSION) {
      throw new EnvironmentError('newer_format', `this list uses store format ${meta.value.format}, newer than this git-tasks understands (${FORMAT_VERSION}); upgrade git-tasks`, {
        format: meta.value.format,
        supported: FORMAT_VERSION,
      })
    }
  }

  const configBlob = byName.get(CONFIG_PATH)?.oid ?? null
  let config: ListConfig = base?.config ?? DEFAULT_CONFIG
  if (!base || base.configBlob !== configBlob) {
    config = {...DEFAULT_CONFIG}
    if (configBlob) {
      const parsed = parseConfig((await reader.readType(configBlob, 'blob')).content.toString('utf8'))
      if (parsed.ok) config = parsed.value
      else warnings.push(`${CONFIG_PATH}: ${parsed.error}; using defaults`)
    }
  } else {
    warnings.push(...base.warnings)
  }

  const tasksEntry = byName.get(TASKS_DIR)
  const tasksTree = tasksEntry?.mode === TREE_MODE ? tasksEntry.oid : null
  let tasksRead = 0
  let shards: Record<string, string> = {}
  let tasks = new Map<string, IndexedTask>()
  let sortedIds: string[] = []
  if (tasksTree && base && base.tasksTree === tasksTree) {
    ;({shards, tasks, sortedIds} = base)
  } else if (tasksTree) {
    const shardEntries = decodeTree((await reader.readType(tasksTree, 'tree')).content, algorithm).filter((e) => e.mode === TREE_MODE)
    for (const e of shardEntries) shards[e.name] = e.oid
    const changed = new Set(shardEntries.filter((e) => base?.shards[e.name] !== e.oid).map((e) => e.name))
    if (base) for (const name of Object.keys(base.shards)) if (!(name in shards)) changed.add(name)
    // Keep every task of an unchanged shard; re-read the changed shards.
    const previous = new Map<string, IndexedTask>()
    if (base) {
      // Copying the map whole and deleting the few changed shards' tasks is
      // cheaper than re-inserting 10,000 unchanged ones.
      tasks = new Map(base.tasks)
      for (const [id, t] of base.tasks) {
        if (changed.has(t.shard)) {
          previous.set(id, t)
          tasks.delete(id)
        }
      }
    }
    let idsChanged = !base
    const work: Array<Promise<void>> = []
    const changedEntries = shardEntries.filter((e) => changed.has(e.name))
    const shardTrees = await Promise.all(changedEntries.map((e) => reader.readType(e.oid, 'tree')))
    changedEntries.forEach((shardEntry, i) => {
      for (const dir of decodeTree(shardTrees[i]!.content, algorithm)) {
        if (dir.mode !== TREE_MODE) continue
        const prev = previous.get(dir.name)
        previous.delete(dir.name)
        if (prev && prev.dir === dir.oid && prev.shard === shardEntry.name) {
          tasks.set(dir.name, prev)
          continue
        }
        if (!prev) idsChanged = true
        tasksRead++
        work.push(readTaskDir(reader, algorithm, shardEntry.name, dir.name, dir.oid).then((t) => void tasks.set(dir.name, t)))
      }
    })
    await Promise.all(work)
    if (previous.size > 0) idsChanged = true // removed tasks
    sortedIds = idsChanged ? [...tasks.keys()].sort() : base!.sortedIds
  }
  const index: TaskIndex = {v: CACHE_VERSION, list, commit, rootTree, tasksTree, metaBlob, configBlob, config, warnings, shards, tasks, sortedIds}
  return {index, tasksRead}
}

async function readTaskDir(reader: ObjectReader, algorithm: HashAlgorithm, shard: string, id: string, dirOid: string): Promise<IndexedTask> {
  const entries = decodeTree((await reader.readType(dirOid, 'tree')).content, algorithm)
  const file = entries.find((e) => e.name === TASK_FILE && e.mode !== TREE_MODE)
  if (!file) return IndexedTask.broken(id, shard, dirOid, `${TASKS_DIR}/${shard}/${id} has no ${TASK_FILE}`)
  const text = (await reader.readType(file.oid, 'blob')).content.toString('utf8')
  const parsed = parseTaskFile(text, id)
  if (!parsed.ok) return IndexedTask.broken(id, shard, dirOid, parsed.error)
  if (shardOf(id) !== shard) {
    return IndexedTask.broken(id, shard, dirOid, `${TASKS_DIR}/${shard}/${id} is in the wrong directory (expected ${TASKS_DIR}/${shardOf(id)}/)`)
  }
  return IndexedTask.fromMeta(id, shard, dirOid, parsed.value.meta)
}

/** The core's view of an index: the index's own entries, with their sorted ids. */
export function snapshotOf(index: TaskIndex): Snapshot {
  return {list: index.list, commit: index.commit, config: index.config, tasks: index.tasks as ReadonlyMap<string, TaskEntry>, sortedIds: index.sortedIds}
}
