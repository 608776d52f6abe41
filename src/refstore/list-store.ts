/**
 * One list (`refs/tasks/<list>`) of one repository: read a consistent
 * snapshot at one commit, turn a plan into objects and one commit, and move
 * the ref with compare-and-swap. The retry loop that re-runs an op after a
 * lost swap lives above this (app/transaction.ts); this class never decides
 * anything about tasks.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {type Check, CHECKS_DIR, checkPath, parseCheckFile, serialiseCheck} from '../core/check'
import {EnvironmentError, NotFoundError, UsageError} from '../core/errors'
import {shardOf, taskDir} from '../core/ids'
import {type Change, type Plan, commitMessage} from '../core/plan'
import type {Snapshot} from '../core/snapshot'
import {COMMENTS_DIR, INIT_COMMIT, TASKS_DIR, TASK_FILE, commentPath, initialFiles, listRef, taskFilePath} from '../core/store-layout'
import type {Comment} from '../core/task'
import {MAX_FILE_BYTES} from '../core/task'
import {fileText, parseCommentFile, serialiseComment, serialiseTask, taskBody} from '../core/task-file'
import {FILE_MODE, LooseObjectWriter, TREE_MODE, type TreeEntry, decodeCommit, decodeTree, encodeCommit, fsyncsLooseObjects, zeroOid} from './git-objects'
import {earlyRefUpdater} from './early-git'
import {autoMaintenance} from './housekeeping'
import {ObjectReader} from './object-reader'
import {PackedObjects} from './pack-writer'
import {git, gitOk} from './git-process'
import {type RefUpdateOutcome, StdinRefUpdater, updateRef} from './ref-transaction'
import {type Repository, configMayMention, configStamp, discover, readConfig} from './repository'
import {TreeBuilder} from './tree-builder'
import {type IndexProgress, type TaskIndex, readCachedIndex, snapshotOf, updateIndex, writeCachedIndex, writeIndexDelta} from './task-index'

/**
 * The cache file is rewritten when it was missing or the index has drifted
 * more than this many tasks from it (persistAfterChanges); until then each
 * command carries the changes in the small delta file beside it. A rewrite
 * costs in proportion to the list, a carried change a little in every
 * command (its delta line read and written again, its rows viewed in a
 * listing): the square root of the list's size balances the rewrites,
 * spread over the commands between them, against the changes those
 * commands carry (docs/scale.md, fourteenth pass).
 */
export function persistAfterChanges(tasks: number): number {
  return Math.min(LONG_LIVED_PERSIST_AFTER, Math.max(PERSIST_AFTER_MIN, Math.ceil(Math.sqrt(tasks))))
}
const PERSIST_AFTER_MIN = 16
/**
 * A long-lived process (keepAlive) keeps the index in memory and rewrites the
 * file once no load came for PERSIST_IDLE_MS, or when this many tasks
 * changed since the file (a call then pays for it), or on close.
 */
export const LONG_LIVED_PERSIST_AFTER = 512
const PERSIST_IDLE_MS = 2000
/** A long-lived process looks whether git maintenance is due after writing this many objects (betweenCalls). */
const MAINTENANCE_EVERY_OBJECTS = 256
/** Content a long-lived process keeps of the objects it read or wrote (keepAlive). */
const KEPT_OBJECT_BYTES = 32 * 1024 * 1024

/**
 * A progress line on stderr while the index is read from git, only on a
 * terminal and only once reading has taken more than a second (a cold
 * build or a cache far behind on a large list); never on a pipe, so
 * `--json` consumers and tests see nothing.
 */
function indexProgress(): IndexProgress | undefined {
  if (!process.stderr.isTTY) return undefined
  const started = Date.now()
  let shown = false
  return (done, total) => {
    if (!shown && (done === total || Date.now() - started < 1000)) return
    shown = true
    process.stderr.write(`\rgit-tasks: reading the task index: ${done}/${total} tasks${done === total ? '\n' : ''}`)
  }
}

export interface Loaded {
  index: TaskIndex
  snapshot: Snapshot
}

export interface TaskDetail {
  body: string
  comments: Comment[]
  /** Comment files that could not be read, by path. */
  broken: Array<{path: string; error: string}>
}

/** git author identity for an actor id: the id is the name; an email-like id is also the email. */
export function authorOf(actor: string): {name: string; email: string} {
  return {name: actor, email: /^[^@\s]+@[^@\s]+$/.test(actor) ? actor : ''}
}

function isFileMode(mode: string): boolean {
  return mode === FILE_MODE || mode === '100755'
}

export class ListStore {
  readonly ref: string
  readonly reader: ObjectReader
  readonly writer: LooseObjectWriter

  private constructor(
    readonly repo: Repository,
    readonly list: string,
    /** The ref's value when the store was opened or last refreshed. */
    public tip: string | null,
  ) {
    this.ref = listRef(list)
    this.reader = new ObjectReader(repo.cwd)
    this.writer = new LooseObjectWriter(repo.objectsDir, repo.algorithm)
  }

  static async open(cwd: string, list: string): Promise<ListStore> {
    const {repo, tip} = await discover(cwd, listRef(list))
    return new ListStore(repo, list, tip)
  }

  /** Re-read the ref's current value (through the batch reader: no new process). */
  async refreshTip(): Promise<string | null> {
    this.tip = await this.readRef(this.ref)
    return this.tip
  }

  /** The commit a ref names, through the batch reader (no new process); null when absent. */
  async readRef(ref: string): Promise<string | null> {
    const known = this.longLived ? this.keptRef(ref) : null
    if (known) return known
    const obj = await this.reader.read(`${ref}^{commit}`)
    return obj ? obj.oid : null
  }

  private requireTip(): string {
    if (!this.tip) {
      throw new EnvironmentError('not_initialised', `no task list "${this.list}" here (${this.ref} does not exist); run \`tasks init${this.list === 'main' ? '' : ` --list ${this.list}`}\` first`, {
        list: this.list,
        ref: this.ref,
      })
    }
    return this.tip
  }

  /** Snapshot at the current tip (a view made by `pinnedAt`: at its commit, the cache left alone). */
  async load(): Promise<Loaded> {
    if (this.pinned !== null) return this.loadCommit(this.pinned, false)
    return this.loadCommit(this.requireTip())
  }

  /** Set on a view made by `pinnedAt`: the past commit its reads see. */
  private pinned: string | null = null

  /**
   * The same store reading the list as it was at `commit` (`--at`): `load`
   * gives that commit's state, brought there from the index in memory or
   * the cache file by the tree diff, and never persisted (the live cache
   * and its delta are not written); `tip` is that commit, so history reads
   * stop there. Shares this store's reader and the index it last loaded;
   * what it loads stays in the view. It cannot move the ref.
   */
  pinnedAt(commit: string): ListStore {
    const view = Object.create(this) as ListStore
    view.pinned = commit
    view.tip = commit
    return view
  }

  /** A view made by `pinnedAt` reads the past only: a write through it is a bug, refused before anything moves. */
  private refuseWhenPinned(): void {
    if (this.pinned !== null) throw new UsageError(`the list is being read as of ${this.pinned.slice(0, 12)} (--at): nothing can be written through it`, {commit: this.pinned}, 'usage')
  }

  /**
   * Snapshot at any commit of this list (a remote tip, a merge result). The
   * cache file is saved when it was missing or has fallen behind; never with
   * `persist` false (provisional commits of a merge).
   */
  async loadCommit(commit: string, persist = true): Promise<Loaded> {
    const cached = this.lastIndex ?? readCachedIndex(this.repo.commonDir, this.list)
    // Bringing the index forward reads the commit, then its tree, then the tasks tree: ask for all
    // three in one round trip.
    if (cached?.commit !== commit) {
      this.reader.prefetch(`${commit}^{tree}`)
      this.reader.prefetch(`${commit}:${TASKS_DIR}`)
    }
    let index = await updateIndex(this.reader, this.repo.algorithm, this.list, commit, cached, indexProgress())
    const snapshot = snapshotOf(index)
    // Read afresh (no cache, or one too far behind to carry forward): nothing of the old file is in it.
    const fresh = cached === null || index.base !== cached.base
    if (persist && index !== cached && (fresh || index.changes.size > persistAfterChanges(index.base.tasks.size))) {
      if (this.longLived && !fresh && index.changes.size <= LONG_LIVED_PERSIST_AFTER) {
        // A long-lived process keeps the index in memory: the file is rewritten once it is idle, not during a call.
        this.lastIndex = index
        this.persistWhenIdle(index, snapshot)
        return {index, snapshot}
      }
      index = this.persistIndex(index, snapshot)
    } else if (persist && index !== cached && cached !== null && !this.longLived) {
      // A few changes: kept in the small delta file beside the cache, so the next command starts here
      // (a long-lived process keeps its index in memory and rewrites the file when idle).
      writeIndexDelta(this.repo.commonDir, index)
    }
    this.lastIndex = index
    return {index, snapshot}
  }

  /** Write the index cache file; returns the index to continue from (the file's, when it holds this commit). */
  private persistIndex(index: TaskIndex, snapshot: Snapshot): TaskIndex {
    this.unsaved = null
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = null
    writeCachedIndex(this.repo.commonDir, index, snapshot)
    // Later loads in this process start from the new file, not from the old one plus changes.
    const saved = readCachedIndex(this.repo.commonDir, this.list)
    return saved?.commit === index.commit ? saved : index
  }

  /**
   * A long-lived process's shortcut for readRef: the ref's loose file, read
   * in-process, when it names a commit the reader keeps (one this process
   * wrote or read), so an unchanged tip costs no cat-file round trip. git
   * writes a loose ref by renaming its lock file into place, so the file is
   * never seen half-written. Anything else (no loose file: packed or
   * reftable refs; a symbolic ref; an object not kept) returns null and is
   * asked of git.
   */
  private keptRef(ref: string): string | null {
    if (!ref.startsWith('refs/') || ref.includes('..')) return null
    let text: string
    try {
      text = readFileSync(join(this.repo.commonDir, ref), 'latin1')
    } catch {
      return null
    }
    const oid = /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/.exec(text)?.[1]
    return oid && this.reader.keptType(oid) === 'commit' ? oid : null
  }

  /** Set by keepAlive(): the index cache file is written when idle (or far behind, or on close), not within a call. */
  private longLived = false
  private unsaved: {index: TaskIndex; snapshot: Snapshot} | null = null
  private idleTimer: ReturnType<typeof setTimeout> | null = null

  private persistWhenIdle(index: TaskIndex, snapshot: Snapshot): void {
    this.unsaved = {index, snapshot}
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => this.saveUnsaved(), PERSIST_IDLE_MS)
    this.idleTimer.unref()
  }

  /** Write the index kept in memory, if it is newer than the file (idle timer, close). */
  private saveUnsaved(): void {
    const unsaved = this.unsaved
    if (!unsaved) return
    try {
      const saved = this.persistIndex(unsaved.index, unsaved.snapshot)
      if (this.lastIndex === unsaved.index) this.lastIndex = saved
    } catch {
      // Only a cache: the next load brings it forward from the older file.
    }
  }

  /** The last index loaded by this process: the base for the next incremental update. */
  private lastIndex: TaskIndex | undefined

  /**
   * Every path the merge of `ours` into `theirs` has to decide: those that
   * differ between `base` and ours, with their content at the base and on
   * each side (null: absent). A path only theirs changed is left out: the
   * merge result is built on theirs' tree (a path changed on one side only
   * takes that side), so it is already right there, byte for byte and mode
   * for mode, even when it is not a readable file (a submodule entry, a
   * symbolic link, non-UTF-8 or oversized content a hostile push put
   * there). `base` null means unrelated histories: everything counts as
   * added. Also `theirsPaths`: the paths theirs changed since the base.
   * The blob ids come from the two diffs, so every read is by id (no path
   * looked up through the trees), and a blob two versions share is read once.
   */
  async threeWay(base: string | null, ours: string, theirs: string): Promise<{files: Array<{path: string; base: string | null; ours: string | null; theirs: string | null}>; theirsPaths: string[]}> {
    const [oursDiff, theirsDiff] = await Promise.all([this.fileChanges(base, ours), this.fileChanges(base, theirs)])
    const texts = new Map<string, Promise<string | null>>()
    const read = (oid: string | null): Promise<string | null> => {
      if (oid === null) return Promise.resolve(null)
      let text = texts.get(oid)
      if (!text) {
        text = this.reader.read(oid).then((obj) => (obj && obj.type === 'blob' ? obj.content.toString('utf8') : null))
        texts.set(oid, text)
      }
      return text
    }
    const paths = [...oursDiff.keys()].sort()
    const files = await Promise.all(
      paths.map(async (path) => {
        const {before, after} = oursDiff.get(path)!
        const theirsOid = theirsDiff.has(path) ? theirsDiff.get(path)!.after : before
        return {path, base: await read(before), ours: await read(after), theirs: await read(theirsOid)}
      }),
    )
    return {files, theirsPaths: [...theirsDiff.keys()].sort()}
  }

  /**
   * The files that differ between two commits (`from` null: every file of
   * `to`), by path, with their blob ids before and after (null: absent).
   */
  async fileChanges(from: string | null, to: string): Promise<Map<string, {before: string | null; after: string | null}>> {
    const fromTree = from ?? this.writer.write('tree', Buffer.alloc(0))
    const out = await gitOk(['diff-tree', '-r', '-z', '--no-renames', fromTree, to], {cwd: this.repo.cwd})
    // -z: ":<old mode> <new mode> <old id> <new id> <status>\0<path>\0" per file.
    const parts = out.split('\0')
    const changes = new Map<string, {before: string | null; after: string | null}>()
    const id = (s: string | undefined) => (s === undefined || /^0+$/.test(s) ? null : s)
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const fields = parts[i]!.split(' ')
      if (!fields[0]?.startsWith(':')) break
      changes.set(parts[i + 1]!, {before: id(fields[2]), after: id(fields[3])})
    }
    return changes
  }

  /**
   * Write `files` (content, or null to remove the path) over `rootTree`,
   * after setting each of `trees` (a directory by path, to a tree already in
   * the repository); returns the new tree id.
   */
  async writeFiles(rootTree: string, files: ReadonlyArray<{path: string; content: string | null}>, trees: ReadonlyArray<{path: string; oid: string}> = []): Promise<string> {
    void this.fsyncObjects() // asked while the trees are built; awaited before the ref moves
    // Many new objects (a sync's merge) go to disk as one pack (pack-writer.ts).
    const sink = new PackedObjects(this.writer)
    const tb = new TreeBuilder(this.reader, sink, rootTree)
    for (const t of trees) await tb.setTree(t.path, t.oid)
    for (const f of files) {
      if (f.content === null) await tb.remove(f.path)
      else await tb.setFile(f.path, f.content)
    }
    const tree = await tb.write()
    sink.finish()
    return tree
  }

  /** Write a commit object for `tree` with the given parents; returns its id. */
  writeCommit(tree: string, parents: string[], actor: string, now: string, message: string): string {
    const who = {...authorOf(actor), time: Math.floor(Date.parse(now) / 1000)}
    return this.writer.write('commit', encodeCommit({tree, parents, author: who, message}))
  }


  /** Write the objects of a plan and its commit (parent: the snapshot's commit). Returns the commit id. */
  async writePlan(loaded: Loaded, plan: Plan<unknown>, actor: string, now: string, parents: string[] = [loaded.index.commit]): Promise<string> {
    if (this.longLived) await this.prefetch(loaded, plan.changes)
    const tree = await this.applyChanges(loaded.index.rootTree, plan.changes)
    return this.writeFinalCommit(tree, parents, actor, now, commitMessage(plan, actor))
  }

  /**
   * Ask for the trees a plan's card changes walk (each card's shard tree and
   * its directory, ids the index holds) at once, then the card files being
   * rewritten: two pipelined round trips to cat-file instead of one per
   * level. A long-lived reader keeps them for the tree edit that follows;
   * anything missing here is simply read again there.
   */
  private async prefetch(loaded: Loaded, changes: readonly Change[]): Promise<void> {
    const trees = new Set<string>()
    const dirs: string[] = []
    for (const c of changes) {
      const id = c.kind === 'put-task' ? c.meta.id : c.kind === 'add-comment' ? c.comment.task : c.kind === 'put-check' ? c.check.task : null
      if (id === null) continue
      const shard = loaded.index.shards[shardOf(id)]
      const entry = loaded.snapshot.tasks.get(id)
      const dir = entry && 'dir' in entry && typeof entry.dir === 'string' ? entry.dir : null
      if (shard) trees.add(shard)
      if (dir) trees.add(dir)
      if (dir && c.kind === 'put-task' && c.body === undefined) {
        dirs.push(dir)
        // The card's file, by path in the same request as its directory (kept by its id for the read below): one round trip, not two.
        if (this.reader.keptType(dir) === null) this.reader.prefetch(`${dir}:${TASK_FILE}`, MAX_FILE_BYTES)
      }
    }
    if (trees.size === 0) return
    const read = await Promise.all([...trees].map((oid) => this.reader.read(oid).catch(() => null)))
    const byOid = new Map(read.filter((o) => o !== null).map((o) => [o!.oid, o!]))
    const files: string[] = []
    for (const dir of dirs) {
      const tree = byOid.get(dir)
      if (tree?.type !== 'tree') continue
      try {
        const file = decodeTree(tree.content, this.repo.algorithm).find((e) => e.name === TASK_FILE && isFileMode(e.mode))
        if (file) files.push(file.oid)
      } catch {
        // A malformed tree: the edit reports it.
      }
    }
    await Promise.all(files.map((oid) => this.reader.read(oid, MAX_FILE_BYTES).catch(() => null)))
  }

  /** Whether commits are to be signed (`git config tasks.signCommits true`); asked once, only when the config file mentions it. */
  private signSetting: Promise<boolean> | undefined

  private signs(): Promise<boolean> {
    if (!this.configMentions(/signcommits/i)) return Promise.resolve(false)
    this.signSetting ??= readConfig(this.repo.cwd, '^tasks\\.signcommits$')
      .then((c) => /^(true|yes|on|1)$/i.test(c.get('tasks.signcommits') ?? ''))
      .catch(() => false)
    return this.signSetting
  }

  /**
   * A commit that goes onto the ref: written in-process, or, with
   * `tasks.signCommits` set, by `git commit-tree -S` with the same author,
   * committer, dates and message, signed with the user's configured key
   * (user.signingKey, gpg.format: gpg or ssh). A list whose server requires
   * signed commits (require_signed, docs/verify.md) needs this.
   */
  async writeFinalCommit(tree: string, parents: string[], actor: string, now: string, message: string): Promise<string> {
    if (!(await this.signs())) return this.writeCommit(tree, parents, actor, now, message)
    const who = authorOf(actor)
    const date = `${Math.floor(Date.parse(now) / 1000)} +0000`
    const env = {GIT_AUTHOR_NAME: who.name, GIT_AUTHOR_EMAIL: who.email, GIT_AUTHOR_DATE: date, GIT_COMMITTER_NAME: who.name, GIT_COMMITTER_EMAIL: who.email, GIT_COMMITTER_DATE: date}
    const out = await gitOk(['commit-tree', '-S', tree, ...parents.flatMap((p) => ['-p', p]), '-F', '-'], {cwd: this.repo.cwd, input: message, env})
    return out.trim()
  }

  /** Apply plan changes to a tree; returns the new tree id. */
  async applyChanges(rootTree: string, changes: readonly Change[]): Promise<string> {
    void this.fsyncObjects() // asked while the trees are built; awaited before the ref moves
    // Many new objects (an import, a large batch) go to disk as one pack (pack-writer.ts); until finish() they are
    // only here, so a file written earlier in this plan is read from `sink`, not from git.
    const sink = new PackedObjects(this.writer)
    const tb = new TreeBuilder(this.reader, sink, rootTree)
    for (const change of changes) {
      switch (change.kind) {
        case 'put-task': {
          let body = change.body
          if (body === undefined) {
            // The card's old file, asked for with the trees on its path (it is read right after them); a
            // long-lived store asked for it by its directory already (prefetch) and keeps it.
            if (!this.longLived) this.reader.prefetch(`${rootTree}:${taskFilePath(change.meta.id)}`)
            const old = await tb.blobAt(taskFilePath(change.meta.id))
            body = old ? taskBody((sink.content(old) ?? (await this.reader.readType(old, 'blob')).content).toString('utf8')) : ''
          }
          await tb.setFile(taskFilePath(change.meta.id), serialiseTask(change.meta, body))
          break
        }
        case 'delete-task':
          await tb.remove(taskDir(change.id))
          break
        case 'add-comment':
          await tb.setFile(commentPath(change.comment.task, change.comment.id), serialiseComment(change.comment))
          break
        case 'put-check':
          await tb.setFile(checkPath(change.check.task, change.check.id), serialiseCheck(change.check))
          break
        case 'put-file':
          await tb.setFile(change.path, change.content)
          break
        case 'delete-file':
          await tb.remove(change.path)
          break
      }
    }
    const tree = await tb.write()
    sink.finish()
    return tree
  }

  /** configMayMention's answers while the config files stay as they were (a long-lived process; configStamp). */
  private mentioned = new Map<string, boolean>()
  private mentionedStamp: string | null = null

  /**
   * configMayMention for this repository. A long-lived process keeps the
   * answers (and the settings read from git because of them) while the
   * config files are unchanged, one stat each per call instead of reading
   * them; an edit of any of them makes it look again.
   */
  private configMentions(word: RegExp): boolean {
    if (!this.longLived) return configMayMention(this.repo.commonDir, word)
    const stamp = configStamp(this.repo.commonDir)
    if (stamp !== this.mentionedStamp) {
      this.mentionedStamp = stamp
      this.mentioned.clear()
      this.signSetting = undefined
      this.fsyncSetting = undefined
    }
    let hit = this.mentioned.get(word.source)
    if (hit === undefined) {
      hit = configMayMention(this.repo.commonDir, word)
      this.mentioned.set(word.source, hit)
    }
    return hit
  }

  /** Whether this repository fsyncs loose objects (core.fsync, core.fsyncObjectFiles); asked once, when needed. */
  private fsyncSetting: Promise<boolean> | undefined

  private fsyncObjects(): Promise<boolean> {
    // Most repositories set neither key anywhere: then no `git config` process on the write path.
    if (!this.configMentions(/fsync/i)) return Promise.resolve(false)
    this.fsyncSetting ??= readConfig(this.repo.cwd, '^core\\.(fsync|fsyncobjectfiles)$')
      .then((c) => fsyncsLooseObjects(c.get('core.fsync'), c.get('core.fsyncobjectfiles')))
      .catch(() => false)
    return this.fsyncSetting
  }

  /**
   * For a long-lived process (`tasks mcp`): keep objects read or written in
   * memory by id (ObjectReader.keepObjects), so a call that reads what the
   * previous call wrote (the new tip's commit and trees, the card) or what
   * it read (the root and shard trees, all read once here) needs no
   * cat-file round trip; create the fan-out directories and a few spare
   * temporary files for the writer (LooseObjectWriter), off the event loop; keep
   * the task index in memory and rewrite its cache file when idle, not
   * within a call; and keep one `git update-ref --stdin` for
   * compare-and-swaps (keepUpdater).
   */
  async keepAlive(): Promise<void> {
    this.longLived = true
    if (!this.writer.onWrite) {
      this.reader.keepObjects(KEPT_OBJECT_BYTES)
      this.writer.onWrite = (oid, type, content) => this.reader.remember(oid, type, content)
      this.writer.stored = true
      // In the background: every fan-out directory, and the first spare temporary files (betweenCalls keeps them up).
      void this.writer.prepareDirs().then(() => this.writer.replenish())
      if (this.tip) {
        // Warm up once: the index, and every shard tree in one pipelined request (a claim then reads only its card).
        try {
          const loaded = await this.load()
          await Promise.all(Object.values(loaded.index.shards).map((oid) => this.reader.read(oid)))
        } catch {
          // Only a warm-up: the first call reads what it needs, and reports what is wrong.
        }
      }
    }
    await this.keepUpdater()
  }

  /** Set by keepUpdater(): a long-lived `git update-ref --stdin` for this store's compare-and-swaps. */
  private updater: StdinRefUpdater | null = null

  /**
   * For a long-lived process (`tasks mcp`): compare-and-swap through one
   * kept `git update-ref --stdin` instead of a process per update, when git
   * writes no reflog for the list's ref (that process takes one message for
   * all its updates; with a reflog, each update keeps its own process and
   * message). Closed by close().
   */
  async keepUpdater(): Promise<void> {
    if (this.updater || existsSync(join(this.repo.commonDir, 'logs', this.ref))) return
    // Only core.logAllRefUpdates=always logs refs outside refs/heads (asked once, and only when a config file may say so).
    if (configMayMention(this.repo.commonDir, /logallrefupdates\s*=\s*always/i)) {
      const config = await readConfig(this.repo.cwd, '^core\\.logallrefupdates$').catch(() => new Map<string, string>([['core.logallrefupdates', 'always']]))
      if (/^always$/i.test(config.get('core.logallrefupdates') ?? '')) return
    }
    this.updater = new StdinRefUpdater(this.repo.cwd, (ref) => this.readRef(ref))
  }

  /**
   * Point another ref of this list's bookkeeping (the remote-tracking ref
   * after a push) at `oid`, whatever it held: through the kept `update-ref
   * --stdin` when there is one and git keeps no reflog for that ref, else
   * one `git update-ref`. Best-effort, as the caller's own update was: the
   * next fetch sets it anyway.
   */
  async setRef(ref: string, oid: string): Promise<void> {
    const update = {ref, newOid: oid, message: 'tasks: remote-tracking ref'}
    if (this.updater && !existsSync(join(this.repo.commonDir, 'logs', ref))) await this.updater.update(update).catch(() => undefined)
    else await git(['update-ref', ref, oid], {cwd: this.repo.cwd})
  }

  /**
   * A long-lived process's knowledge of each remote's list between calls:
   * the tip it last published there or fetched, and whether the remote was
   * quiet (at its fetch, the list was where this process had left it, with
   * no pending change of others) since. Only a hint for skipping a fetch:
   * the push's lease decides.
   */
  private remoteSeen = new Map<string, {tip: string; quiet: boolean}>()

  /**
   * The remote tip an online mutation may assume without fetching first
   * (transaction.ts): only in a long-lived process, when the remote was
   * quiet, this process published (or fetched) that tip itself, and both
   * the local ref and the remote-tracking ref (`tracking`) are still there,
   * so no other command of this clone has moved either. Null: fetch.
   */
  async assumedRemoteTip(remote: string, tracking: string): Promise<string | null> {
    const seen = this.longLived ? this.remoteSeen.get(remote) : undefined
    if (!seen?.quiet || (await this.refreshTip()) !== seen.tip) return null
    return (await this.readRef(tracking)) === seen.tip ? seen.tip : null
  }

  /** A fetch found the remote's list at `tip` with `pending` changes of others: quiet when it is where this process left it. */
  noteFetched(remote: string, tip: string | null, pending: number): void {
    if (!this.longLived) return
    const seen = this.remoteSeen.get(remote)
    if (tip === null) this.remoteSeen.delete(remote)
    else this.remoteSeen.set(remote, {tip, quiet: pending === 0 && seen?.tip === tip})
  }

  /** This process's push moved the remote's list to `tip`. */
  notePublished(remote: string, tip: string): void {
    if (this.longLived) this.remoteSeen.set(remote, {tip, quiet: this.remoteSeen.get(remote)?.quiet ?? false})
  }

  /** A push on an assumed tip was rejected: someone else moved the list, so the next mutations fetch first. */
  noteRemoteMoved(remote: string): void {
    this.remoteSeen.delete(remote)
  }

  /** Move the ref from `oldOid` to `newOid` if it still points at `oldOid`. */
  async compareAndSwap(newOid: string, oldOid: string | null, message: string): Promise<RefUpdateOutcome> {
    this.refuseWhenPinned()
    // The objects the ref is about to make reachable go to disk first, when the repository asks for that.
    if (this.writer.pending) this.writer.flush(await this.fsyncObjects())
    const update = {
      ref: this.ref,
      newOid,
      oldOid: oldOid ?? zeroOid(this.repo.algorithm),
      message,
    }
    // A one-shot command's first swap goes through the `git update-ref --stdin` started with it (early-git.ts), when there is one.
    const early = this.updater ? null : earlyRefUpdater(this.repo.cwd, this.repo.commonDir, this.ref, (ref) => this.readRef(ref))
    const outcome = this.updater ? await this.updater.update(update) : early ? await early.update(update).finally(() => early.close()) : await updateRef(this.repo.cwd, update)
    if (outcome.ok) this.tip = newOid
    return outcome
  }

  /**
   * Create the list with its deterministic root commit. Returns whether it
   * was created (false: it already existed, which is fine).
   */
  async init(): Promise<{created: boolean; commit: string}> {
    const tb = new TreeBuilder(this.reader, this.writer, null)
    for (const f of initialFiles()) await tb.setFile(f.path, f.content)
    const tree = await tb.write()
    const who = {name: INIT_COMMIT.author, email: INIT_COMMIT.email, time: INIT_COMMIT.time}
    const commit = this.writer.write('commit', encodeCommit({tree, parents: [], author: who, message: INIT_COMMIT.message}))
    if (this.tip) return {created: false, commit: this.tip}
    const outcome = await this.compareAndSwap(commit, null, 'init: task list')
    if (!outcome.ok) {
      await this.refreshTip()
      return {created: false, commit: this.tip ?? commit}
    }
    return {created: true, commit}
  }

  /**
   * The text of a task's task.md at the snapshot's commit; null when it is
   * not a readable text file. Read by object id from the card's directory,
   * never as `<commit>:<path>`: resolving a path through a malformed tree
   * stops `git cat-file` altogether.
   */
  async readTaskText(loaded: Loaded, id: string): Promise<string | null> {
    const entry = loaded.snapshot.tasks.get(id)
    const dirOid = entry && 'dir' in entry && typeof entry.dir === 'string' ? entry.dir : null
    const dir = dirOid ? await this.reader.read(dirOid) : null
    if (!dir || dir.type !== 'tree') return null
    let file: TreeEntry | undefined
    try {
      file = decodeTree(dir.content, this.repo.algorithm).find((e) => e.name === TASK_FILE && isFileMode(e.mode))
    } catch {
      return null
    }
    const obj = file ? await this.reader.read(file.oid, MAX_FILE_BYTES) : null
    if (!obj || obj.type !== 'blob') return null
    const text = fileText(obj)
    return text.ok ? text.value : null
  }

  /**
   * Body and comments of task `id` as of `commit` (`dirOid`: the tree id of
   * its directory at that commit, when known). A comment entry
   * that cannot be read (not a file, too large, not UTF-8, not valid) is
   * reported in `broken` by path; entries not named `*.md` are ignored.
   */
  async readDetail(commit: string, id: string, dirOid?: string): Promise<TaskDetail> {
    // By the directory's tree id when the caller has it (the index does): no path lookup through the
    // root and shard trees, which costs git far more than the read itself when thousands are read.
    const inDir = (name: string) => (dirOid ? `${dirOid}:${name}` : `${commit}:${taskDir(id)}/${name}`)
    // The card and the comments' directory go out with the directory: one round trip, not three.
    this.reader.prefetch(inDir(TASK_FILE), MAX_FILE_BYTES)
    this.reader.prefetch(inDir(COMMENTS_DIR))
    const dir = await this.reader.read(dirOid ?? `${commit}:${taskDir(id)}`)
    if (!dir || dir.type !== 'tree') throw new NotFoundError('task_not_found', `no task ${id}`, {id})
    const entries = decodeTree(dir.content, this.repo.algorithm)
    const file = entries.find((e) => e.name === TASK_FILE && isFileMode(e.mode))
    const commentsDir = entries.find((e) => e.name === COMMENTS_DIR && e.mode === TREE_MODE)
    const [fileObj, listing] = await Promise.all([file ? this.reader.read(file.oid, MAX_FILE_BYTES) : null, commentsDir ? this.reader.read(commentsDir.oid) : null])
    const text = fileObj?.type === 'blob' ? fileText(fileObj) : null
    const body = text?.ok ? taskBody(text.value) : ''
    const comments: Comment[] = []
    const broken: Array<{path: string; error: string}> = []
    if (listing?.type === 'tree') {
      let listed: ReturnType<typeof decodeTree> = []
      try {
        listed = decodeTree(listing.content, this.repo.algorithm)
      } catch (error) {
        broken.push({path: `${taskDir(id)}/${COMMENTS_DIR}`, error: (error as Error).message})
      }
      const files = listed.filter((e) => e.name.endsWith('.md'))
      const blobs = await Promise.all(files.map((f) => (isFileMode(f.mode) ? this.reader.read(f.oid, MAX_FILE_BYTES) : Promise.resolve(null))))
      files.forEach((f, i) => {
        const path = `${taskDir(id)}/${COMMENTS_DIR}/${f.name}`
        const obj = blobs[i]
        if (!obj || obj.type !== 'blob') {
          broken.push({path, error: isFileMode(f.mode) ? 'the object is missing from the repository' : `mode ${f.mode} is not a file`})
          return
        }
        const content = fileText(obj)
        const parsed = content.ok ? parseCommentFile(content.value, id, f.name.slice(0, -3)) : content
        if (parsed.ok) comments.push(parsed.value)
        else broken.push({path, error: parsed.error})
      })
    }
    comments.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    return {body, comments, broken}
  }

  /** Decoded trees by id (the `actors` tree is read by most mutations; a tree never changes). */
  private treeCache = new Map<string, TreeEntry[]>()

  /** The entries of the tree at `dir` (slash-separated) under `rootTree`; null when absent or not a tree. */
  async treeAt(rootTree: string, dir: string): Promise<TreeEntry[] | null> {
    let oid = rootTree
    for (const name of ['', ...dir.split('/').filter(Boolean)]) {
      if (name !== '') {
        const entries = await this.treeAt(oid, '')
        const e = entries?.find((x) => x.name === name && x.mode === TREE_MODE)
        if (!e) return null
        oid = e.oid
      }
    }
    const hit = this.treeCache.get(oid)
    if (hit) return hit
    const obj = await this.reader.read(oid)
    if (!obj || obj.type !== 'tree') return null
    let entries: TreeEntry[]
    try {
      entries = decodeTree(obj.content, this.repo.algorithm)
    } catch {
      return null
    }
    if (this.treeCache.size > 64) this.treeCache.clear()
    this.treeCache.set(oid, entries)
    return entries
  }

  /**
   * A file at the root of a list's tree (`scenario.yaml`), at `rootTree` or
   * at the root of commit `commit`: its text, null when there is no such
   * file, or why it cannot be read (not a file, too large, not UTF-8).
   */
  async readRootFile(at: {rootTree: string} | {commit: string}, name: string): Promise<{text: string} | {error: string} | null> {
    let rootTree: string
    if ('rootTree' in at) rootTree = at.rootTree
    else {
      const c = await this.reader.read(at.commit)
      if (!c || c.type !== 'commit') return null
      rootTree = decodeCommit(c.content).tree
    }
    const entry = (await this.treeAt(rootTree, ''))?.find((e) => e.name === name)
    if (!entry) return null
    if (!isFileMode(entry.mode)) return {error: `${name} is not a file (mode ${entry.mode})`}
    const obj = await this.reader.read(entry.oid, MAX_FILE_BYTES)
    if (!obj || obj.type !== 'blob') return {error: `${name}: the object is missing from the repository`}
    const text = fileText(obj)
    return text.ok ? {text: text.value} : {error: `${name}: ${text.error}`}
  }

  /** Texts of the named files of one directory (missing, non-file or unreadable ones left out). */
  async readFilesIn(rootTree: string, dir: string, names: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    // The directory and the few files wanted, in the round trip that reads the directory.
    if (names.length <= 16) {
      this.reader.prefetch(`${rootTree}:${dir}`)
      for (const n of names) this.reader.prefetch(`${rootTree}:${dir}/${n}`, MAX_FILE_BYTES)
    }
    const entries = await this.treeAt(rootTree, dir)
    if (!entries || names.length === 0) return out
    const wanted = new Set(names)
    const files = entries.filter((e) => wanted.has(e.name) && isFileMode(e.mode))
    const blobs = await Promise.all(files.map((f) => this.reader.read(f.oid, MAX_FILE_BYTES)))
    files.forEach((f, i) => {
      const obj = blobs[i]
      if (!obj || obj.type !== 'blob') return
      const text = fileText(obj)
      if (text.ok) out.set(f.name, text.value)
    })
    return out
  }

  /**
   * The checks of each task in `ids` as of `commit` (a task without a
   * checks/ directory has none; an id not in the tree is left out). A check
   * file that cannot be read is reported in `broken` by path and counts as
   * a pending check named after its file, so it still stands in the way of
   * `done` until it is passed again (which rewrites it) or superseded.
   */
  async readChecks(commit: string, ids: Iterable<string>, dirOids?: ReadonlyMap<string, string>): Promise<{checks: Map<string, Check[]>; broken: Array<{path: string; error: string}>}> {
    const checks = new Map<string, Check[]>()
    const broken: Array<{path: string; error: string}> = []
    const unique = [...new Set(ids)]
    await Promise.all(
      unique.map(async (id) => {
        // By the directory's tree id when the caller has it, as readDetail: no path lookup through the big trees.
        const dir = await this.reader.read(dirOids?.get(id) ?? `${commit}:${taskDir(id)}`)
        if (!dir || dir.type !== 'tree') return
        const list: Check[] = []
        checks.set(id, list)
        let entries: TreeEntry[]
        try {
          entries = decodeTree(dir.content, this.repo.algorithm)
        } catch {
          return
        }
        const sub = entries.find((e) => e.name === CHECKS_DIR && e.mode === TREE_MODE)
        const listing = sub ? await this.reader.read(sub.oid) : null
        if (listing?.type !== 'tree') return
        let files: TreeEntry[] = []
        try {
          files = decodeTree(listing.content, this.repo.algorithm).filter((e) => e.name.endsWith('.md'))
        } catch (error) {
          broken.push({path: `${taskDir(id)}/${CHECKS_DIR}`, error: (error as Error).message})
          return
        }
        const blobs = await Promise.all(files.map((f) => (isFileMode(f.mode) ? this.reader.read(f.oid, MAX_FILE_BYTES) : Promise.resolve(null))))
        files.forEach((f, i) => {
          const checkId = f.name.slice(0, -3)
          const path = checkPath(id, checkId)
          const obj = blobs[i]
          const content = obj?.type === 'blob' ? fileText(obj) : {ok: false as const, error: 'not a readable file'}
          const parsed = content.ok ? parseCheckFile(content.value, id, checkId) : content
          if (parsed.ok) list.push(parsed.value)
          else {
            broken.push({path, error: parsed.error})
            list.push({id: checkId, task: id, kind: 'acceptance', text: `(unreadable check file: ${parsed.error})`, status: 'pending', spec_revision: 1, added_by: 'git-tasks', added_at: '1970-01-01T00:00:00.000Z', updated_by: 'git-tasks', updated_at: '1970-01-01T00:00:00.000Z'})
          }
        })
      }),
    )
    return {checks, broken}
  }

  /**
   * A long-lived process, once a call was answered: get the next call's
   * files ready (the writer's spare temporary files) while nothing waits.
   */
  betweenCalls(): void {
    if (!this.longLived) return
    void this.writer.replenish()
    // As a command would after writing (close()): let git pack loose objects once the repository is due, looked at every few hundred objects.
    if (this.writer.objectsWritten >= this.maintenanceLookedAt + MAINTENANCE_EVERY_OBJECTS) {
      this.maintenanceLookedAt = this.writer.objectsWritten
      autoMaintenance(this.repo)
    }
  }

  private maintenanceLookedAt = 0

  close(): void {
    this.saveUnsaved()
    this.writer.close()
    this.updater?.close()
    this.reader.close()
    // Like git's porcelain after a write: let `git maintenance run --auto` pack loose objects, in the background.
    if (this.writer.objectsWritten > 0) autoMaintenance(this.repo)
  }
}
