/**
 * Edits a git tree by path without a checkout or an index: load only the
 * trees on the paths being changed (through the object reader), change
 * entries, then write the changed trees bottom-up. Untouched subtrees keep
 * their ids, so a mutation writes one blob per changed file plus the trees
 * on its path, and nothing else. Empty trees are dropped, as git does.
 */
import {EnvironmentError} from '../core/errors'
import {FILE_MODE, TREE_MODE, type TreeEntry, decodeTree, encodeTree} from './git-objects'
import type {ObjectReader} from './object-reader'
import type {ObjectSink} from './pack-writer'

interface Node {
  oid: string | null
  entries: Map<string, Entry> | null
  dirty: boolean
}

/** `raw`: the name's bytes when they are not UTF-8 (see TreeEntry), kept so the entry is written back as it was. */
type Entry = ({kind: 'blob'; mode: string; oid: string} | {kind: 'tree'; node: Node} | {kind: 'other'; mode: string; oid: string}) & {raw?: Buffer}

/** Map key of an entry: its name, or for a name that is not UTF-8 a key no path we write can have. */
function keyOf(e: {name: string; raw?: Buffer}): string {
  return e.raw ? `\0${e.raw.toString('hex')}` : e.name
}

export class TreeBuilder {
  private readonly root: Node

  constructor(
    private readonly reader: ObjectReader,
    private readonly writer: ObjectSink,
    private readonly rootOid: string | null,
  ) {
    this.root = {oid: rootOid, entries: rootOid ? null : new Map(), dirty: !rootOid}
  }

  private async load(node: Node): Promise<Map<string, Entry>> {
    if (node.entries) return node.entries
    const obj = await this.reader.readType(node.oid!, 'tree')
    return this.fill(node, obj.content)
  }

  private fill(node: Node, content: Buffer): Map<string, Entry> {
    if (node.entries) return node.entries
    const entries = new Map<string, Entry>()
    for (const e of decodeTree(content, this.writer.algorithm)) {
      const raw = e.raw ? {raw: e.raw} : {}
      if (e.mode === TREE_MODE) entries.set(keyOf(e), {kind: 'tree', node: {oid: e.oid, entries: null, dirty: false}, ...raw})
      else if (e.mode === FILE_MODE || e.mode === '100755') entries.set(keyOf(e), {kind: 'blob', mode: e.mode, oid: e.oid, ...raw})
      else entries.set(keyOf(e), {kind: 'other', mode: e.mode, oid: e.oid, ...raw})
    }
    node.entries = entries
    return entries
  }

  /** Directories of the original root whose trees were asked for ahead (see parentOf). */
  private prefetched = new Set<string>()

  /** Walk to the tree holding `path`'s last component, creating trees when `create`. */
  private async parentOf(path: string, create: boolean): Promise<{nodes: Node[]; name: string} | null> {
    this.prefetchTrees(path)
    const parts = path.split('/')
    const name = parts.pop()!
    const nodes: Node[] = [this.root]
    let node = this.root
    for (const part of parts) {
      const entries = await this.load(node)
      const entry = entries.get(part)
      if (entry?.kind === 'tree') {
        node = entry.node
      } else if (!create) {
        return null
      } else {
        if (entry) throw new EnvironmentError('tree_conflict', `cannot create ${path}: ${part} is a file on the ref`)
        const child: Node = {oid: null, entries: new Map(), dirty: true}
        entries.set(part, {kind: 'tree', node: child})
        node = child
      }
      nodes.push(node)
    }
    await this.load(node)
    return {nodes, name}
  }

  /**
   * Ask for the trees on `path`'s directories all at once, by path from the
   * root this builder started from (the walk below then reads them one after
   * another from the reader's kept trees instead of one round trip each).
   * Only warms the reader: the walk itself goes by the ids it finds. The
   * directories this builder has loaded, or whose trees the reader keeps
   * (a long-lived process usually keeps all of them), are walked first, and
   * only those below the first one that is neither are asked for: when all
   * are there, cat-file is not asked anything.
   */
  private prefetchTrees(path: string): void {
    const root = this.rootOid
    if (!root) return
    const parts = path.split('/')
    let node: Node = this.root
    let level = 0
    for (; level < parts.length - 1; level++) {
      const entries = node.entries ?? this.keptEntries(node)
      if (!entries) break
      const entry = entries.get(parts[level]!)
      if (entry?.kind !== 'tree') return // to be created (or a conflict the walk reports): nothing to read below
      node = entry.node
    }
    if (level === parts.length - 1 && (node.entries ?? this.keptEntries(node))) return
    for (let i = Math.max(1, level); i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/')
      if (this.prefetched.has(dir)) continue
      this.prefetched.add(dir)
      this.reader.prefetch(`${root}:${dir}`)
    }
  }

  /** A node's entries from the tree the reader keeps, without a round trip (loaded into the node); null when not kept. */
  private keptEntries(node: Node): Map<string, Entry> | null {
    const obj = node.oid ? this.reader.keptObject(node.oid) : null
    if (!obj || obj.type !== 'tree') return null
    try {
      return this.fill(node, obj.content)
    } catch {
      return null // malformed: the walk reads it and reports it
    }
  }

  /** Object id of the blob at `path`, or null. */
  async blobAt(path: string): Promise<string | null> {
    const found = await this.parentOf(path, false)
    const entry = found?.nodes.at(-1)!.entries!.get(found.name)
    return entry?.kind === 'blob' ? entry.oid : null
  }

  /** Object id of the tree (`tree`) or blob at `path`, or null when there is no such entry of that kind. */
  async entryAt(path: string, tree: boolean): Promise<string | null> {
    const found = await this.parentOf(path, false)
    const entry = found?.nodes.at(-1)!.entries!.get(found.name)
    if (!entry) return null
    if (tree) return entry.kind === 'tree' ? (entry.node.dirty ? null : entry.node.oid) : null
    return entry.kind === 'blob' ? entry.oid : null
  }

  /** Create or replace the file at `path` with a blob already in the repository. */
  async setBlob(path: string, oid: string): Promise<void> {
    const {nodes, name} = (await this.parentOf(path, true))!
    const entries = nodes.at(-1)!.entries!
    const existing = entries.get(name)
    if (existing?.kind === 'tree') throw new EnvironmentError('tree_conflict', `cannot write ${path}: it is a directory on the ref`)
    if (existing?.kind === 'blob' && existing.oid === oid) return
    entries.set(name, {kind: 'blob', mode: FILE_MODE, oid})
    for (const n of nodes) n.dirty = true
  }

  /** Create or replace the file at `path`. */
  async setFile(path: string, content: string | Buffer): Promise<void> {
    const oid = this.writer.write('blob', content)
    const {nodes, name} = (await this.parentOf(path, true))!
    const entries = nodes.at(-1)!.entries!
    const existing = entries.get(name)
    if (existing?.kind === 'tree') throw new EnvironmentError('tree_conflict', `cannot write ${path}: it is a directory on the ref`)
    if (existing?.kind === 'blob' && existing.oid === oid) return
    entries.set(name, {kind: 'blob', mode: FILE_MODE, oid})
    for (const n of nodes) n.dirty = true
  }

  /** Set the directory at `path` to the tree `oid` (another commit's, already in the repository); null removes it. */
  async setTree(path: string, oid: string | null): Promise<void> {
    if (oid === null) {
      await this.remove(path)
      return
    }
    const {nodes, name} = (await this.parentOf(path, true))!
    const entries = nodes.at(-1)!.entries!
    const existing = entries.get(name)
    if (existing?.kind === 'tree' && !existing.node.dirty && existing.node.oid === oid) return
    if (existing && existing.kind !== 'tree') throw new EnvironmentError('tree_conflict', `cannot write ${path}: it is a file on the ref`)
    entries.set(name, {kind: 'tree', node: {oid, entries: null, dirty: false}})
    for (const n of nodes) n.dirty = true
  }

  /** Remove a file or a whole directory; no-op when absent. */
  async remove(path: string): Promise<boolean> {
    const found = await this.parentOf(path, false)
    if (!found) return false
    const entries = found.nodes.at(-1)!.entries!
    if (!entries.delete(found.name)) return false
    for (const n of found.nodes) n.dirty = true
    return true
  }

  /** Write every changed tree; returns the root tree id. */
  async write(): Promise<string> {
    return this.writeNode(this.root) ?? this.writer.write('tree', Buffer.alloc(0))
  }

  private writeNode(node: Node): string | null {
    if (!node.dirty) return node.oid
    const out: TreeEntry[] = []
    for (const [name, entry] of node.entries!) {
      const raw = entry.raw ? {raw: entry.raw} : {}
      if (entry.kind === 'tree') {
        const oid = this.writeNode(entry.node)
        if (oid) out.push({mode: TREE_MODE, name, oid, ...raw})
      } else {
        out.push({mode: entry.mode, name, oid: entry.oid, ...raw})
      }
    }
    if (out.length === 0) return null
    node.oid = this.writer.write('tree', encodeTree(out))
    node.dirty = false
    return node.oid
  }
}
