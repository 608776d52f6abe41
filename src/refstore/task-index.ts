/**
 * The task index: every task's parsed frontmatter at one commit, derived
 * from the tree and cached under the git directory
 * (`<common-dir>/git-tasks/index-<list>.json`). It is keyed by the commit it
 * describes and updated incrementally: from the cached commit's tree to the
 * new tip, only shards whose tree id changed are read, and in them only
 * tasks whose directory changed, so a plain `git fetch` that moved the ref
 * never leaves it stale and a rebuild is always possible (delete the file).
 * No daemon, no database: a cache file written by rename, last writer wins,
 * and every version of it is correct for the commit it names.
 */
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {EnvironmentError} from '../core/errors'
import type {Snapshot, TaskEntry} from '../core/snapshot'
import {CONFIG_PATH, META_PATH, TASKS_DIR, TASK_FILE} from '../core/store-layout'
import {DEFAULT_CONFIG, FORMAT_VERSION, type ListConfig, type TaskMeta} from '../core/task'
import {parseConfig, parseMeta, parseTaskFile} from '../core/task-file'
import {type HashAlgorithm, TREE_MODE, decodeCommit, decodeTree} from './git-objects'
import type {ObjectReader} from './object-reader'

const CACHE_VERSION = 1

interface CachedTask {
  /** Tree id of the task's directory. */
  d: string
  /** Blob id of task.md ('' when the directory has none). */
  b: string
  m?: TaskMeta
  e?: string
}

interface CachedShard {
  tree: string
  tasks: Record<string, CachedTask>
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
  shards: Record<string, CachedShard>
}

export function cachePath(commonDir: string, list: string): string {
  return join(commonDir, 'git-tasks', `index-${list}.json`)
}

export function readCachedIndex(commonDir: string, list: string): TaskIndex | null {
  try {
    const parsed = JSON.parse(readFileSync(cachePath(commonDir, list), 'utf8')) as TaskIndex
    return parsed.v === CACHE_VERSION && parsed.list === list ? parsed : null
  } catch {
    return null
  }
}

export function writeCachedIndex(commonDir: string, index: TaskIndex): void {
  const file = cachePath(commonDir, index.list)
  try {
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(index))
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

  const metaEntry = byName.get(META_PATH)
  const metaBlob = metaEntry?.oid ?? null
  if (!metaBlob) throw new EnvironmentError('bad_store', `the tasks ref ${commit.slice(0, 12)} has no ${META_PATH}; it is not a git-tasks list`)
  if (!base || base.metaBlob !== metaBlob) {
    const text = (await reader.readType(metaBlob, 'blob')).content.toString('utf8')
    const meta = parseMeta(text)
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
  let shards: Record<string, CachedShard> = {}
  let tasksRead = 0
  if (tasksTree && base && base.tasksTree === tasksTree) {
    shards = base.shards
  } else if (tasksTree) {
    const shardEntries = decodeTree((await reader.readType(tasksTree, 'tree')).content, algorithm).filter((e) => e.mode === TREE_MODE)
    const changed = shardEntries.filter((e) => base?.shards[e.name]?.tree !== e.oid)
    for (const e of shardEntries) if (!changed.includes(e)) shards[e.name] = base!.shards[e.name]!
    const shardTrees = await Promise.all(changed.map((e) => reader.readType(e.oid, 'tree')))
    const work: Array<Promise<void>> = []
    changed.forEach((shardEntry, i) => {
      const old = base?.shards[shardEntry.name]?.tasks ?? {}
      const tasks: Record<string, CachedTask> = {}
      shards[shardEntry.name] = {tree: shardEntry.oid, tasks}
      for (const dir of decodeTree(shardTrees[i]!.content, algorithm)) {
        if (dir.mode !== TREE_MODE) continue
        const prev = old[dir.name]
        if (prev && prev.d === dir.oid) {
          tasks[dir.name] = prev
          continue
        }
        tasksRead++
        work.push(readTaskDir(reader, algorithm, shardEntry.name, dir.name, dir.oid, prev).then((t) => void (tasks[dir.name] = t)))
      }
    })
    await Promise.all(work)
  }
  const index: TaskIndex = {v: CACHE_VERSION, list, commit, rootTree, tasksTree, metaBlob, configBlob, config, warnings, shards}
  return {index, tasksRead}
}

async function readTaskDir(
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  shard: string,
  id: string,
  dirOid: string,
  prev: CachedTask | undefined,
): Promise<CachedTask> {
  const entries = decodeTree((await reader.readType(dirOid, 'tree')).content, algorithm)
  const file = entries.find((e) => e.name === TASK_FILE && e.mode !== TREE_MODE)
  if (!file) return {d: dirOid, b: '', e: `${TASKS_DIR}/${shard}/${id} has no ${TASK_FILE}`}
  if (prev && prev.b === file.oid) return {...prev, d: dirOid}
  const text = (await reader.readType(file.oid, 'blob')).content.toString('utf8')
  const parsed = parseTaskFile(text, id)
  return parsed.ok ? {d: dirOid, b: file.oid, m: parsed.value.meta} : {d: dirOid, b: file.oid, e: parsed.error}
}

/** The core's view of an index. */
export function snapshotOf(index: TaskIndex): Snapshot {
  const tasks = new Map<string, TaskEntry>()
  for (const [shard, s] of Object.entries(index.shards)) {
    for (const [id, t] of Object.entries(s.tasks)) {
      tasks.set(id, {id, path: `${TASKS_DIR}/${shard}/${id}/${TASK_FILE}`, meta: t.m, error: t.e})
    }
  }
  return {list: index.list, commit: index.commit, config: index.config, tasks}
}
