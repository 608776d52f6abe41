/**
 * Housekeeping after writes, the way git's own porcelain does it: when the
 * repository looks due (more loose objects than gc.auto allows, or more
 * packs than gc.autoPackLimit), start `git maintenance run --auto` in the
 * background and do not wait for it. git makes the real decision (it reads
 * every config level, honours gc.auto=0 and maintenance.auto=false, and
 * takes its own lock); the check here only keeps a command from starting a
 * process every time. It estimates the way `git gc --auto` does: by
 * counting the loose objects in one fan-out directory (objects/17).
 *
 * Must never: slow the command down or fail it.
 */
import {closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {gitDetached} from './git-process'
import {readLocalConfigValue, type Repository} from './repository'

/** git's defaults for gc.auto and gc.autoPackLimit. */
const GC_AUTO_DEFAULT = 6700
const PACK_LIMIT_DEFAULT = 50

function setting(repo: Repository, key: string, fallback: number): number {
  const v = readLocalConfigValue(repo.commonDir, 'gc', key)
  const n = v === null || v === undefined ? Number.NaN : Number(v)
  return Number.isInteger(n) ? n : fallback
}

function count(dir: string, match: (name: string) => boolean): number {
  try {
    return readdirSync(dir).filter(match).length
  } catch {
    return 0
  }
}

/** Whether the object store looks due for `git gc --auto` (an estimate; git decides). */
export function maintenanceDue(repo: Repository): boolean {
  const gcAuto = setting(repo, 'auto', GC_AUTO_DEFAULT)
  if (gcAuto <= 0) return false
  const rest = repo.algorithm === 'sha1' ? 38 : 62
  const loose = count(join(repo.objectsDir, '17'), (n) => n.length === rest && /^[0-9a-f]+$/.test(n))
  if (loose > Math.ceil(gcAuto / 256)) return true
  const packLimit = setting(repo, 'autopacklimit', PACK_LIMIT_DEFAULT)
  return packLimit > 0 && count(join(repo.objectsDir, 'pack'), (n) => n.endsWith('.pack')) > packLimit
}

/** Start `git maintenance run --auto` detached when the repository looks due; returns whether it was started. */
export function autoMaintenance(repo: Repository): boolean {
  if (!maintenanceDue(repo)) return false
  gitDetached(['maintenance', 'run', '--auto', '--quiet'], repo.cwd)
  return true
}

/**
 * What the repository's commit-graph knows, read from its files without
 * starting git: whether there is one, whether its newest layer carries
 * changed-path Bloom filters (chunks BIDX and BDAT, written by
 * `--changed-paths`; later writes, `git gc`'s included, keep them), and
 * whether `commit` is in it (a binary search of each layer's sorted ids).
 * Format: git's Documentation/gitformat-commit-graph.txt.
 */
export interface CommitGraphState {
  exists: boolean
  changedPaths: boolean
  has: boolean
}

interface GraphFile {
  fd: number
  chunks: Map<string, number>
}

function openGraph(path: string): GraphFile | null {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return null
  }
  const head = Buffer.alloc(8)
  if (readSync(fd, head, 0, 8, 0) !== 8 || head.toString('latin1', 0, 4) !== 'CGPH') {
    closeSync(fd)
    return null
  }
  const count = head[6]!
  const table = Buffer.alloc((count + 1) * 12)
  readSync(fd, table, 0, table.length, 8)
  const chunks = new Map<string, number>()
  for (let i = 0; i < count; i++) chunks.set(table.toString('latin1', i * 12, i * 12 + 4), Number(table.readBigUInt64BE(i * 12 + 4)))
  return {fd, chunks}
}

function graphHas(g: GraphFile, oid: Buffer): boolean {
  const fanoutAt = g.chunks.get('OIDF')
  const idsAt = g.chunks.get('OIDL')
  if (fanoutAt === undefined || idsAt === undefined) return false
  const fan = Buffer.alloc(8)
  const first = oid[0]!
  if (first === 0) {
    readSync(g.fd, fan, 4, 4, fanoutAt)
    fan.writeUInt32BE(0, 0)
  } else readSync(g.fd, fan, 0, 8, fanoutAt + (first - 1) * 4)
  let lo = fan.readUInt32BE(0)
  let hi = fan.readUInt32BE(4)
  const width = oid.length
  const probe = Buffer.alloc(width)
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    readSync(g.fd, probe, 0, width, idsAt + mid * width)
    const c = probe.compare(oid)
    if (c === 0) return true
    if (c < 0) lo = mid + 1
    else hi = mid
  }
  return false
}

export function commitGraphState(objectsDir: string, commit: string): CommitGraphState {
  const info = join(objectsDir, 'info')
  const layers: string[] = []
  try {
    const chain = readFileSync(join(info, 'commit-graphs', 'commit-graph-chain'), 'utf8').split('\n').filter((l) => /^[0-9a-f]+$/.test(l))
    for (const h of chain) layers.push(join(info, 'commit-graphs', `graph-${h}.graph`))
  } catch {
    // No chain: a single file, if any.
  }
  if (layers.length === 0) layers.push(join(info, 'commit-graph'))
  const oid = Buffer.from(commit, 'hex')
  const state: CommitGraphState = {exists: false, changedPaths: false, has: false}
  layers.forEach((path, i) => {
    const g = openGraph(path)
    if (!g) return
    try {
      state.exists = true
      if (i === layers.length - 1) state.changedPaths = g.chunks.has('BIDX') && g.chunks.has('BDAT')
      if (!state.has) state.has = graphHas(g, oid)
    } finally {
      closeSync(g.fd)
    }
  })
  return state
}

/** At most one background commit-graph write per this long (its start is stamped in the tasks directory). */
export const COMMIT_GRAPH_INTERVAL_MS = 5 * 60_000

/**
 * After reading a card's history (`tasks log ID`, `show --history`): git
 * walks every commit of the list but, with changed-path filters in the
 * commit-graph, reads trees only for the commits that touched the card's
 * path. When the graph is missing, has no filters, or does not hold `tip`,
 * start `git commit-graph write` in the background: the whole graph with
 * filters the first time, afterwards a new layer with just the missing
 * commits (`--split`). At most once per COMMIT_GRAPH_INTERVAL_MS; never
 * when core.commitGraph is false. Returns what it started, for tests.
 *
 * Must never: slow the command down or fail it.
 */
export function refreshCommitGraph(repo: Repository, tip: string, nowMs = Date.now()): 'full' | 'split' | null {
  try {
    if (/^(false|no|off|0)$/i.test(readLocalConfigValue(repo.commonDir, 'core', 'commitgraph') ?? '')) return null
    const state = commitGraphState(repo.objectsDir, tip)
    if (state.exists && state.changedPaths && state.has) return null
    const stamp = join(repo.commonDir, 'git-tasks', 'commit-graph-started')
    try {
      if (nowMs - statSync(stamp).mtimeMs < COMMIT_GRAPH_INTERVAL_MS) return null
    } catch {
      // Never started.
    }
    mkdirSync(dirname(stamp), {recursive: true})
    writeFileSync(stamp, `${new Date(nowMs).toISOString()}\n`)
    const kind = state.exists && state.changedPaths ? 'split' : 'full'
    gitDetached(['commit-graph', 'write', '--reachable', '--changed-paths', ...(kind === 'split' ? ['--split'] : [])], repo.cwd)
    return kind
  } catch {
    return null
  }
}
