/**
 * Reading cards from git for the index: a shard's tree split into cards and
 * strays, one card's directory read into an entry (readable or broken, never
 * an exception), many cards read through a bounded window of requests, and
 * the entries a write produces (entriesAfterWrite). Nothing in a card can
 * stop the rest of the list from being read.
 */
import {isStoredId, shardOf} from '../../core/ids'
import {isFinishedStatus, type TaskEntry} from '../../core/snapshot'
import {TASKS_DIR, TASK_FILE} from '../../core/store-layout'
import {MAX_FILE_BYTES, STATUSES, type Status} from '../../core/task'
import {type Parsed, fileText, parseTaskFile} from '../../core/task-file'
import {FILE_MODE, type HashAlgorithm, TREE_MODE, type TreeEntry, decodeTree} from '../git-objects'
import {createdNumbers} from '../list-section'
import {type GitObject, ObjectReader, batchCommandSupported} from '../object-reader'
import {IndexedTask, type Stray, encodeMeta} from './entry'
import {NO_IDS, SHARD_RE} from './format'

/**
 * Cards read at once at or above which they go through a `git cat-file` of
 * their own that buffers its answers (ObjectReader's `batchCommand`: git
 * 2.36 or later); below, through the command's own reader, which answers a
 * few reads sooner. `TASKS_INDEX_BULK_READS` sets another threshold (the
 * tests read a small list both ways).
 */
const BULK_READS = 2048

/** Reads at or above which a pass over many objects uses a buffered reader of its own (BULK_READS, or the env's). */
export function bulkReads(): number {
  const v = Number(process.env.TASKS_INDEX_BULK_READS)
  return Number.isSafeInteger(v) && v > 0 ? v : BULK_READS
}

/** Read the cards of `reads`, each to `keep` as it comes (many through a buffered reader of their own: see BULK_READS). */
export async function readCards(
  reader: ObjectReader,
  algorithm: HashAlgorithm,
  reads: ReadonlyArray<{shard: string; entry: TreeEntry}>,
  keep: (t: IndexedTask) => void,
  progress?: IndexProgress,
  known?: ReadonlyMap<string, string>,
): Promise<void> {
  const bulk = reads.length >= bulkReads() && reader.cwd && (await batchCommandSupported(reader.cwd)) ? new ObjectReader(reader.cwd, true) : null
  try {
    await inWindow(reads, ({shard, entry}) => readTaskDir(bulk ?? reader, algorithm, shard, entry, known), keep, progress)
  } finally {
    bulk?.close()
  }
}

/** Told how many task directories of how many have been read (called every READ_WINDOW reads and at the end). */
export type IndexProgress = (done: number, total: number) => void

/**
 * Task directories read at once. The batch reader pipelines them; a window
 * keeps the requests, promises and answers in flight bounded whatever the
 * number of tasks, so memory grows with the tasks kept, not with the reads.
 */
const READ_WINDOW = 1024

/** Run `read` over `items` with at most READ_WINDOW in flight; `keep` takes each result as it arrives. */
export async function inWindow<T, R>(items: readonly T[], read: (item: T) => Promise<R>, keep: (result: R) => void, progress?: IndexProgress): Promise<void> {
  let next = 0
  let done = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      keep(await read(items[next++]!))
      if (++done % READ_WINDOW === 0) progress?.(done, items.length)
    }
  }
  await Promise.all(Array.from({length: Math.min(READ_WINDOW, items.length)}, worker))
  if (items.length > 0) progress?.(items.length, items.length)
}

/** What a tree entry of this mode is, in words. */
export function describeMode(mode: string): string {
  switch (mode) {
    case TREE_MODE:
      return 'a directory'
    case FILE_MODE:
    case '100755':
      return 'a file'
    case '120000':
      return 'a symbolic link'
    case '160000':
      return 'a submodule (gitlink)'
    default:
      return `an entry of mode ${mode}`
  }
}

/**
 * Split a shard's entries into cards (entries named by a task id that
 * belongs in this shard, whatever their type: a file there is a broken
 * card) and strays (everything else, reported by path and otherwise
 * ignored). A task directory in the wrong shard is a stray, so it can never
 * stand in for, or collide with, the card of the same id in its own shard.
 */
export function classifyShard(shard: string, entries: readonly TreeEntry[]): {cards: TreeEntry[]; strays: Stray[]} {
  const cards: TreeEntry[] = []
  const strays: Stray[] = []
  for (const e of entries) {
    const path = `${TASKS_DIR}/${shard}/${e.name}`
    if (isStoredId(e.name) && shardOf(e.name) === shard) cards.push(e)
    else if (isStoredId(e.name)) strays.push({path, shard, error: `${path} is in the wrong shard (${e.name} belongs in ${TASKS_DIR}/${shardOf(e.name)}/); ignored`})
    else strays.push({path, shard, error: `${path} is not a task directory (the name is not a task id); ignored`})
  }
  return {cards, strays}
}

/** A shard's cards and strays; a malformed shard tree is itself a stray (its cards cannot be listed). */
export function readShard(shard: string, content: Buffer, algorithm: HashAlgorithm): {cards: TreeEntry[]; strays: Stray[]} {
  let entries: TreeEntry[]
  try {
    entries = decodeTree(content, algorithm)
  } catch (error) {
    return {cards: [], strays: [{path: `${TASKS_DIR}/${shard}`, shard, error: (error as Error).message}]}
  }
  return classifyShard(shard, entries)
}

/** Read and parse a small file of the list (meta.yaml, config.yaml); an absent, non-blob, oversized or non-UTF-8 object is an error message. */
export function readSmallFile<T>(obj: GitObject | null, parse: (text: string) => Parsed<T>): Parsed<T> {
  if (!obj) return {ok: false, error: 'the object is missing from the repository'}
  if (obj.type !== 'blob') return {ok: false, error: `it is a ${obj.type}, not a file`}
  const text = fileText(obj)
  return text.ok ? parse(text.value) : text
}

/**
 * Read one card. Whatever is there, the answer is an entry: a readable
 * task, or a broken one saying what is wrong (not a directory, no task.md,
 * task.md a link, a submodule or a directory, a missing object, too large
 * to read, not UTF-8, not parseable, not valid, the wrong id). Nothing in a
 * card can stop the rest of the list from being read.
 */
async function readTaskDir(reader: ObjectReader, algorithm: HashAlgorithm, shard: string, entry: TreeEntry, known?: ReadonlyMap<string, string>): Promise<IndexedTask> {
  const id = entry.name
  const dirPath = `${TASKS_DIR}/${shard}/${id}`
  const broken = (error: string) => IndexedTask.broken(id, shard, entry.oid, error)
  if (entry.mode !== TREE_MODE) return broken(`${dirPath} is ${describeMode(entry.mode)}, not a task directory`)
  const dir = await reader.read(entry.oid)
  if (!dir || dir.type !== 'tree') return broken(`the directory ${dirPath} is missing from the repository`)
  let entries: TreeEntry[]
  try {
    entries = decodeTree(dir.content, algorithm)
  } catch (error) {
    return broken((error as Error).message)
  }
  const file = entries.find((e) => e.name === TASK_FILE)
  if (!file) return broken(`${dirPath} has no ${TASK_FILE}`)
  if (file.mode !== FILE_MODE && file.mode !== '100755') return broken(`${TASK_FILE} is ${describeMode(file.mode)}, not a file`)
  const obj = await reader.read(file.oid, MAX_FILE_BYTES)
  if (!obj || obj.type !== 'blob') return broken(`the content of ${TASK_FILE} is missing from the repository`)
  const text = fileText(obj)
  if (!text.ok) return broken(text.error)
  const parsed = parseTaskFile(text.value, id)
  if (!parsed.ok) return broken(parsed.error)
  // The line's JSON is made now and the parsed frontmatter let go: at 100,000 cards, holding every card's
  // fields as objects until the cache file is written costs more in garbage collection than decoding again
  // the ones a table needs.
  const meta = parsed.value.meta
  const idOf = (other: string) => known?.get(other) ?? other
  const deps = meta.depends_on.length === 0 ? NO_IDS : meta.depends_on.map(idOf)
  const t = new IndexedTask(id, shard, entry.oid, STATUS_TEXT_OF.get(meta.status) ?? meta.status, meta.parent === undefined ? '' : idOf(meta.parent), deps, encodeMeta(meta), undefined)
  if (isFinishedStatus(meta.status)) {
    const [date, time] = createdNumbers(meta.created_at)
    t.finishedOrder = {priority: meta.priority, date, time}
  }
  return t
}

/** Each status's text, once (not a copy a card). */
const STATUS_TEXT_OF: ReadonlyMap<string, Status> = new Map(STATUSES.map((st) => [st, st]))


/**
 * The task entries that change when `files` (paths with their new content,
 * null: removed) are written over a tree: what reading the resulting tree
 * back would give, without reading it. A task file written is parsed from
 * its text, as readTaskDir would read it; an id whose task file is not
 * written with content (removed, or only its other files changed) is read
 * from `tree` with `readDir` (it may be gone, or left without its task file).
 * Null when a path under tasks/ is not inside a card directory in its own
 * shard (the caller then reads the tree the ordinary way). Entries are
 * keyed by id; null: no such task.
 */
export async function entriesAfterWrite(
  files: ReadonlyArray<{path: string; content: string | null}>,
  readDir: (shard: string, id: string) => Promise<IndexedTask | null>,
): Promise<Map<string, TaskEntry | null> | null> {
  const written = new Map<string, {shard: string; text: string | null | undefined}>()
  const prefix = `${TASKS_DIR}/`
  for (const f of files) {
    if (!f.path.startsWith(prefix)) continue
    const [shard, id, ...rest] = f.path.slice(prefix.length).split('/')
    if (!shard || !id || rest.length === 0 || !SHARD_RE.test(shard) || !isStoredId(id) || shardOf(id) !== shard) return null
    const seen = written.get(id) ?? {shard, text: undefined}
    if (rest.length === 1 && rest[0] === TASK_FILE) seen.text = f.content
    written.set(id, seen)
  }
  const out = new Map<string, TaskEntry | null>()
  await Promise.all(
    [...written].map(async ([id, {shard, text}]) => {
      if (typeof text !== 'string') {
        out.set(id, await readDir(shard, id))
        return
      }
      const content = Buffer.from(text, 'utf8')
      const path = `${TASKS_DIR}/${shard}/${id}/${TASK_FILE}`
      const read = fileText({size: content.length, content})
      const parsed = read.ok ? parseTaskFile(read.value, id) : read
      out.set(id, parsed.ok ? IndexedTask.fromMeta(id, shard, '', parsed.value.meta) : {id, path, error: parsed.error})
    }),
  )
  return out
}

/**
 * The card `id` as the index reads it, given the entries of its shard's tree
 * (null: the shard is absent or does not read as a tree: then it holds no
 * cards). Null when the shard has no entry of that name.
 */
export async function readCardIn(reader: ObjectReader, algorithm: HashAlgorithm, shardEntries: readonly TreeEntry[] | null, shard: string, id: string): Promise<IndexedTask | null> {
  const entry = shardEntries?.find((e) => e.name === id)
  return entry ? readTaskDir(reader, algorithm, shard, entry) : null
}
