/**
 * Bringing the index up to a commit (`updateIndex`): from the cached index,
 * only the shards whose tree id moved are compared and only the task
 * directories that changed are read; with nothing usable to start from,
 * every card is read. Also the catch-up a local mutation makes over the
 * objects it just wrote (`writeDeltaAfterCommit`), so the next command
 * starts at the tip.
 */
import {EnvironmentError} from '../../core/errors'
import {CONFIG_PATH, META_PATH, TASKS_DIR, TASK_FILE} from '../../core/store-layout'
import {DEFAULT_CONFIG, FORMAT_VERSION, type ListConfig, MAX_FILE_BYTES} from '../../core/task'
import {parseConfig, parseMeta} from '../../core/task-file'
import {type HashAlgorithm, TREE_MODE, type TreeEntry, decodeCommit, decodeTree, diffTrees} from '../git-objects'
import {type GitObject, type ObjectReader, batchCommandSupported} from '../object-reader'
import {type IndexProgress, classifyShard, describeMode, readCards, readShard, readSmallFile} from './cards'
import {deltaFallback, fileCommits, writeIndexDelta} from './delta'
import {EMPTY_BASE, type IndexedTask, type Stray, type TaskIndex, memoryBase} from './entry'
import {SHARD_RE} from './format'
import {IndexFile} from './index-file'

const NO_ENTRIES = Buffer.alloc(0)
/** Cards changed since the cache file up to which a catch-up prefetches each card's file with its directory. */
const PREFETCH_CARDS = 256

/**
 * After this process committed `commit` on top of `from` (the index it
 * loaded) with the objects it wrote (`written`, by id): the index at
 * `commit`, brought forward from `from` by the same catch-up as any other
 * (reading the new commit, trees and cards from `written`, and anything
 * else, such as the old shard trees, through `reader`, which keeps the trees
 * the edit read), written as the delta when it holds at most `maxChanges`
 * changes. The next command then starts at the tip, with nothing to catch
 * up. Failures are ignored (the next command catches up itself).
 */
export async function writeDeltaAfterCommit(
  commonDir: string,
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  from: TaskIndex,
  commit: string,
  written: ReadonlyMap<string, GitObject>,
  maxChanges: number,
): Promise<void> {
  if (!(from.base instanceof IndexFile) || !fileCommits.has(from.base)) return
  const read = async (name: string, limit = Number.POSITIVE_INFINITY): Promise<GitObject | null> => {
    const o = written.get(name)
    if (!o) return reader.read(name, limit)
    return o.size > limit ? {oid: o.oid, type: o.type, size: o.size, content: NO_ENTRIES, oversized: true} : o
  }
  const local = {
    read,
    readType: async (name: string, type: string, limit?: number): Promise<GitObject> => {
      const o = await read(name, limit)
      if (!o || o.type !== type) throw new Error(`${name} is not a ${type}`)
      return o
    },
    prefetch: () => undefined,
  } as unknown as ObjectReader
  try {
    const index = await updateIndex(local, algorithm, from.list, commit, from)
    if (index.changes.size <= maxChanges) writeIndexDelta(commonDir, index)
  } catch {
    // Only a shortcut.
  }
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
  progress?: IndexProgress,
): Promise<TaskIndex> {
  const from = cached && cached.list === list ? cached : null
  if (from && from.commit === commit) return from
  // The cache file without its delta may describe `commit` (a read of the past, `--at`, at the commit the file
  // was written for): nothing to read.
  const plain = from ? deltaFallback.get(from) : undefined
  if (plain && plain.commit === commit) return plain
  const commitObj = await reader.readType(commit, 'commit')
  const rootTree = decodeCommit(commitObj.content).tree
  if (from && from.rootTree === rootTree) return {...from, commit}

  const root = decodeTree((await reader.readType(rootTree, 'tree')).content, algorithm)
  const byName = new Map(root.map((e) => [e.name, e]))
  const warnings: string[] = []

  const metaBlob = byName.get(META_PATH)?.oid ?? null
  if (!metaBlob) throw new EnvironmentError('bad_store', `the tasks ref ${commit.slice(0, 12)} has no ${META_PATH}; it is not a git-tasks list`)
  if (!from || from.metaBlob !== metaBlob) {
    const meta = readSmallFile(await reader.read(metaBlob, MAX_FILE_BYTES), parseMeta)
    if (!meta.ok) throw new EnvironmentError('bad_store', `${META_PATH} on the tasks ref is broken: ${meta.error}`)
    if (meta.value.format > FORMAT_VERSION) {
      throw new EnvironmentError('newer_format', `this list uses store format ${meta.value.format}, newer than this git-tasks understands (${FORMAT_VERSION}); upgrade git-tasks`, {
        format: meta.value.format,
        supported: FORMAT_VERSION,
      })
    }
  }

  const configBlob = byName.get(CONFIG_PATH)?.oid ?? null
  let config: ListConfig = from?.config ?? DEFAULT_CONFIG
  if (!from || from.configBlob !== configBlob) {
    config = {...DEFAULT_CONFIG}
    if (configBlob) {
      const parsed = readSmallFile(await reader.read(configBlob, MAX_FILE_BYTES), parseConfig)
      if (parsed.ok) config = parsed.value
      else warnings.push(`${CONFIG_PATH}: ${parsed.error}; using defaults`)
    }
  } else {
    warnings.push(...from.warnings)
  }

  const tasksEntry = byName.get(TASKS_DIR)
  const tasksTree = tasksEntry?.mode === TREE_MODE ? tasksEntry.oid : null
  const header = {list, commit, rootTree, tasksTree, metaBlob, configBlob, config, warnings}
  if (from && from.tasksTree === tasksTree) return {...header, shards: from.shards, strays: from.strays, base: from.base, changes: from.changes}
  if (!tasksTree) {
    const strays: Stray[] = tasksEntry ? [{path: TASKS_DIR, error: `${TASKS_DIR} is ${describeMode(tasksEntry.mode)}, not a directory of task shards`}] : []
    return {...header, shards: {}, strays, base: EMPTY_BASE, changes: new Map()}
  }

  const shards: Record<string, string> = {}
  const strays: Stray[] = []
  for (const e of decodeTree((await reader.readType(tasksTree, 'tree')).content, algorithm)) {
    if (e.mode === TREE_MODE && SHARD_RE.test(e.name)) shards[e.name] = e.oid
    else if (SHARD_RE.test(e.name)) strays.push({path: `${TASKS_DIR}/${e.name}`, error: `${TASKS_DIR}/${e.name} is ${describeMode(e.mode)}, not a shard directory`})
    else strays.push({path: `${TASKS_DIR}/${e.name}`, error: `${TASKS_DIR}/${e.name} is not a shard directory (two hex digits); ignored`})
  }
  // From the index given; when that was the cache file with its delta and the delta's trees are gone
  // from the repository, from the cache file alone.
  for (let start = from; start; start = deltaFallback.get(start) ?? null) {
    const changed = await changesBetween(reader, algorithm, start, shards, progress)
    if (changed === 'cold') break
    if (changed) return {...header, shards, strays: [...strays, ...changed.strays], base: start.base, changes: changed.changes}
  }
  // Nothing to start from (or its trees are gone, or most of the list changed): read every task.
  const tasks = new Map<string, IndexedTask>()
  const names = Object.keys(shards).sort()
  // Whether git can buffer a large read (readCards) is asked now, and answered while the shard trees are read,
  // when the list looks large: BULK_READS cards or more fill all 256 shards (an empty one is left ~8% of the
  // time at 2,048). A smaller list never asks, unless readCards finds it has that many cards after all.
  if (reader.cwd && names.length === 256) void batchCommandSupported(reader.cwd)
  const trees = await Promise.all(names.map((name) => reader.readType(shards[name]!, 'tree')))
  const reads: Array<{shard: string; entry: TreeEntry}> = []
  names.forEach((shard, i) => {
    const {cards, strays: found} = readShard(shard, trees[i]!.content, algorithm)
    strays.push(...found)
    for (const entry of cards) reads.push({shard, entry})
  })
  // Every card's id, once: a parent or dependency read from a card is kept as this string instead of a piece of
  // the card's text, which would keep the whole text alive as long as the index (a third of the cards name one).
  const known = new Map<string, string>()
  for (const r of reads) known.set(r.entry.name, r.entry.name)
  await readCards(reader, algorithm, reads, (t) => void tasks.set(t.id, t), progress, known)
  return {...header, shards, strays, base: memoryBase(tasks), changes: new Map()}
}

/**
 * The changes from `from`'s base to the new shard trees: `from`'s own changes
 * plus, for each shard whose tree id moved, the task directories added,
 * changed or removed between its old and new tree, and the strays of every
 * shard (kept from `from` for shards that did not move). Null when an old
 * tree is no longer in the repository; 'cold' when there are more cards to
 * read than `from` holds (the caller reads the whole list instead).
 */
async function changesBetween(
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  from: TaskIndex,
  shards: Record<string, string>,
  progress?: IndexProgress,
): Promise<{changes: Map<string, IndexedTask | null>; strays: Stray[]} | 'cold' | null> {
  const moved = new Set<string>()
  for (const [name, oid] of Object.entries(shards)) if (from.shards[name] !== oid) moved.add(name)
  for (const name of Object.keys(from.shards)) if (!(name in shards)) moved.add(name)
  const names = [...moved].sort()
  /** A shard's tree (empty: no such shard); null: missing from the repository. */
  const contentOf = async (oid: string | undefined): Promise<Buffer | null> => {
    if (!oid) return NO_ENTRIES
    const o = await reader.read(oid)
    return o && o.type === 'tree' ? o.content : null
  }
  /** A shard's entries; a Buffer: the tree does not decode (its content, for readShard's report). */
  const entriesOf = (content: Buffer): TreeEntry[] | Buffer => {
    try {
      return decodeTree(content, algorithm)
    } catch {
      return content
    }
  }
  const [before, after] = await Promise.all([Promise.all(names.map((n) => contentOf(from.shards[n]))), Promise.all(names.map((n) => contentOf(shards[n])))])
  if (before.some((b) => b === null) || after.some((a) => a === null)) return null
  const strays = from.strays.filter((st) => st.shard !== undefined && !moved.has(st.shard))
  const changes = new Map(from.changes)
  const reads: Array<{shard: string; entry: TreeEntry}> = []
  for (let i = 0; i < names.length; i++) {
    const shard = names[i]!
    // Usual case: only the entries that differ are decoded (a shard of ~400 entries that moved by one
    // commit has one), and only those are classified. Not for a shard with strays, whose unchanged
    // entries must be known by name; nor for trees diffTrees declines: then both are decoded whole.
    const diff = from.strays.some((st) => st.shard === shard) ? null : diffTrees(before[i]!, after[i]!, algorithm)
    if (diff) {
      const fresh = classifyShard(shard, diff.changed.map((c) => c.entry))
      strays.push(...fresh.strays)
      for (const e of fresh.cards) reads.push({shard, entry: e})
      for (const e of classifyShard(shard, diff.removed).cards) changes.set(e.name, null)
      // A name that stopped being a card (now a stray): its old card is gone too.
      const cards = new Set(fresh.cards)
      for (const c of diff.changed) if (c.was && !cards.has(c.entry)) for (const o of classifyShard(shard, [c.was]).cards) changes.set(o.name, null)
      continue
    }
    const old = entriesOf(before[i]!)
    const now = entriesOf(after[i]!)
    if (Buffer.isBuffer(old) || Buffer.isBuffer(now)) {
      // Rare: classify both listings in full, as a cold build would.
      const was = Buffer.isBuffer(old) ? {cards: [], strays: []} : classifyShard(shard, old)
      const is = Buffer.isBuffer(now) ? readShard(shard, now, algorithm) : classifyShard(shard, now)
      const oldCards = new Map(was.cards.map((e) => [e.name, e.oid]))
      for (const e of is.cards) {
        if (oldCards.get(e.name) !== e.oid) reads.push({shard, entry: e})
        oldCards.delete(e.name)
      }
      for (const id of oldCards.keys()) changes.set(id, null)
      strays.push(...is.strays)
      continue
    }
    // Only entries that differ are classified (hashing each name to check its shard costs more
    // than the rest of a small catch-up); an unchanged entry keeps what it was.
    const oldByName = new Map(old.map((e) => [e.name, e]))
    const changed: TreeEntry[] = []
    const same = new Set<string>()
    for (const e of now) {
      const o = oldByName.get(e.name)
      if (o && o.oid === e.oid && o.mode === e.mode) same.add(e.name)
      else changed.push(e)
      oldByName.delete(e.name)
    }
    const prefix = `${TASKS_DIR}/${shard}/`
    for (const st of from.strays) if (st.shard === shard && same.has(st.path.slice(prefix.length))) strays.push(st)
    const fresh = classifyShard(shard, changed)
    strays.push(...fresh.strays)
    for (const e of fresh.cards) reads.push({shard, entry: e})
    const gone = classifyShard(shard, [...oldByName.values()])
    for (const e of gone.cards) changes.set(e.name, null)
    // A name that stopped being a card (now a stray): its old card is gone too.
    for (const e of changed) if (!fresh.cards.includes(e)) for (const c of classifyShard(shard, old.filter((o) => o.name === e.name)).cards) changes.set(c.name, null)
  }
  // More cards to read than the old index holds (a cache as old as `init`, then a large fetch or import):
  // reading the whole list afresh gives the same index for less work than carrying that many changes over
  // the old file, which every table and the cache writer would then read through the overlay.
  if (reads.length > PREFETCH_CARDS && reads.length > from.base.tasks.size) return 'cold'
  // A small catch-up asks for each card with its directory (one round trip, not two).
  if (reads.length <= PREFETCH_CARDS) for (const r of reads) if (r.entry.mode === TREE_MODE) reader.prefetch(`${r.entry.oid}:${TASK_FILE}`, MAX_FILE_BYTES)
  /** Ids this catch-up changed (the rest of `changes` are `from`'s own, already checked against the base when they came in). */
  const fresh = new Set<string>()
  for (const [id, t] of changes) if (t === null && from.changes.get(id) !== null) fresh.add(id)
  await readCards(
    reader,
    algorithm,
    reads,
    (t) => {
      changes.set(t.id, t)
      fresh.add(t.id)
    },
    progress,
  )
  // A change that restores the base's own entry is no change (each lookup in the base is a search of the cache file).
  for (const id of fresh) {
    const t = changes.get(id) as IndexedTask | null
    const b = from.base.tasks.get(id)
    if (t === null ? b === undefined : b !== undefined && b.dir === t.dir && b.shard === t.shard) changes.delete(id)
  }
  return {changes, strays}
}
