/**
 * Benchmark seeding: write N realistic tasks into `refs/tasks/main` of a
 * repository as ONE plan (N `put-task` changes plus some comments) in one
 * commit, through the same library code the CLI uses (ListStore). Bundled
 * on the fly by bench/run.mjs with esbuild; never part of the CLI bundle.
 *
 * The data is deterministic for a given N (seeded PRNG, ids from
 * idFromSeed) except for timestamps, which are relative to `now` so that
 * leases of in-progress items are live while the benchmark runs.
 *
 * Besides the general population it reserves tasks the harness needs, each
 * a fresh target for one timed run:
 *   - claimTargets: ready todo items (no dependencies, no assignee, not a
 *     parent, not a sub-item), priority 4 so `next` prefers other items;
 *   - doneTargets: in_progress items owned by the bench actor with a live
 *     lease, no dependencies and no sub-items;
 *   - showTarget: an item with a body, comments, dependencies, dependents
 *     and sub-items (the heaviest `show`).
 */
import {idFromSeed, keyedSeed} from '../src/core/ids'
import type {Change, Plan} from '../src/core/plan'
import type {Comment, CommentKind, Status, TaskMeta} from '../src/core/task'
import {parseTaskFile, serialiseTask} from '../src/core/task-file'
import {ListStore} from '../src/refstore/list-store'

export interface SeedOptions {
  /** Repository work tree (already `git init`ed). */
  cwd: string
  /** Number of tasks. */
  count: number
  /** The actor the benchmark runs as (owns the done targets). */
  actor: string
  /** How many reserved targets of each kind to create. */
  reserve: number
  /** Reference time, ISO-8601 (default: now). */
  now?: string
}

export interface SeedResult {
  commit: string
  count: number
  comments: number
  byStatus: Record<string, number>
  claimTargets: string[]
  doneTargets: string[]
  showTarget: string
  /** Deflated bytes of the loose objects the seeding wrote (before any gc). */
  bytesWritten: number
  ms: number
}

const LIST = 'main'
const DAY = 86_400_000

const ACTORS = [
  'alice@example.com',
  'bob@example.com',
  'carol@example.com',
  'agent-claude-1',
  'agent-claude-2',
  'agent-codex-1',
  'agent-codex-2',
  'ci-bot',
]
const TAGS = ['backend', 'frontend', 'api', 'db', 'infra', 'docs', 'bug', 'perf', 'security', 'ui', 'cli', 'tests', 'release', 'tech-debt', 'area:sync', 'area:merge']
const VERBS = ['Fix', 'Add', 'Refactor', 'Document', 'Investigate', 'Speed up', 'Remove', 'Migrate', 'Test', 'Harden', 'Split', 'Rename']
const THINGS = [
  'the merge driver',
  'claim lease renewal',
  'the inbox writer',
  'ref compare-and-swap retries',
  'the task index cache',
  'JSON output of list',
  'dependency cycle detection',
  'the web board',
  'push with lease',
  'comment ordering',
  'the post-commit hook',
  'shard fan-out',
  'config.yaml parsing',
  'short id resolution',
  'the SVG graph layout',
  'offline claim reconciliation',
]
const WHERE = ['on Windows', 'for large lists', 'under concurrent agents', 'after a fetch', 'in CI', 'for sub-items', 'with unicode titles', '', '', '']
const SENTENCES = [
  'The current behaviour is surprising when several agents work on the same list.',
  'Steps to reproduce: create a list, add a few items, then run the command twice in parallel.',
  'We should keep the output stable so that scripts parsing `--json` do not break.',
  'See the design notes in docs/ for the constraints on the ref layout.',
  'Acceptance: the integration tests pass on a bare remote and on a local clone.',
  'This probably needs a small change in the transaction loop and a test for the lost-race case.',
  'Measure before and after; the benchmark harness prints medians against a bare node start-up.',
  'Keep the commit small: one mutation should rewrite only the trees on its path.',
  '```sh\ntasks list --ready --json | jq ".tasks[].id"\n```',
  '- [ ] write the test\n- [ ] fix the code\n- [ ] update the docs',
  'Note: a body may contain `---` lines and YAML-looking text; it must round-trip as text.\n---\nstatus: not-a-field',
]

/** mulberry32: small deterministic PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Role = 'claim' | 'done' | 'show'

export async function seed(opts: SeedOptions): Promise<SeedResult> {
  const started = Date.now()
  const n = opts.count
  const rand = prng(0x5eed ^ n)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const chance = (p: number): boolean => rand() < p
  const nowMs = Date.parse(opts.now ?? new Date().toISOString())
  const iso = (ms: number): string => new Date(Math.floor(ms)).toISOString()
  const span = 180 * DAY
  const others = ACTORS

  // Reserved targets, spread evenly through the list (so through creation time too).
  const roles = new Map<number, Role>()
  const reserved = opts.reserve * 2 + 1
  if (reserved * 4 > n) throw new Error(`cannot reserve ${reserved} targets in ${n} tasks; use more tasks or fewer runs`)
  for (let j = 0; j < reserved; j++) {
    const i = Math.floor(((j + 0.5) * n) / reserved)
    roles.set(i, j === 0 ? 'show' : j % 2 === 1 ? 'claim' : 'done')
  }
  // The show target gets sub-items and dependents among the next tasks.
  const showIndex = [...roles].find(([, r]) => r === 'show')![0]

  const metas: TaskMeta[] = []
  const ids = new Set<string>()
  const byIndex: string[] = []
  const isParentable: boolean[] = []
  const changes: Change[] = []
  let comments = 0
  const claimTargets: string[] = []
  const doneTargets: string[] = []
  let showTarget = ''

  for (let i = 0; i < n; i++) {
    const role = roles.get(i)
    const created = nowMs - span + (i / n) * (span - DAY) + rand() * 60_000
    const createdBy = pick(others)

    // Idempotency key on some items: the id then derives from the key, as `add --key` does.
    const key = !role && chance(0.05) ? `bench-${n}-${i}` : undefined
    const id = key
      ? idFromSeed(keyedSeed(LIST, key), (c) => ids.has(c))
      : idFromSeed(`random\0bench\0${n}\0${i}`, (c) => ids.has(c))
    ids.add(id)
    byIndex.push(id)

    let status: Status
    if (role === 'claim' || role === 'show') status = 'todo'
    else if (role === 'done') status = 'in_progress'
    else {
      const r = rand()
      // Older items are more likely finished.
      const age = 1 - i / n
      status = r < 0.25 + 0.45 * age ? 'done' : r < 0.29 + 0.45 * age ? 'cancelled' : r < 0.36 + 0.45 * age ? 'in_progress' : r < 0.38 + 0.45 * age ? 'blocked' : 'todo'
    }

    const pr = rand()
    const priority = role === 'claim' ? 4 : pr < 0.05 ? 0 : pr < 0.2 ? 1 : pr < 0.7 ? 2 : pr < 0.9 ? 3 : 4
    const tags = new Set<string>()
    const tagCount = role === 'claim' ? 1 : Math.floor(rand() * 4)
    for (let t = 0; t < tagCount; t++) tags.add(pick(TAGS))

    // Dependencies point at earlier items, so the graph is a DAG. An item that is
    // (or was) worked on depends only on done items; only todo items may wait.
    const depends = new Set<string>()
    if (role !== 'claim' && role !== 'done' && i > 0 && chance(role === 'show' ? 1 : 0.3)) {
      const k = role === 'show' ? 3 : 1 + Math.floor(rand() * 3)
      for (let t = 0; t < k * 4 && depends.size < k; t++) {
        const j = Math.max(0, i - 1 - Math.floor(rand() * Math.min(i, 500)))
        const dep = metas[j]!
        if (roles.has(j)) continue
        if (dep.status === 'cancelled') continue
        if (status !== 'todo' && status !== 'cancelled' && dep.status !== 'done') continue
        depends.add(dep.id)
      }
    }
    // The show target's later neighbours depend on it (dependents).
    if (!role && i > showIndex && i <= showIndex + 3 && status === 'todo') depends.add(byIndex[showIndex]!)

    // Sub-items: one level deep, under an earlier open top-level item.
    let parent: string | undefined
    if (!role && i > showIndex && i <= showIndex + 6 && i > showIndex + 3) parent = byIndex[showIndex]
    else if (!role && chance(0.06)) {
      for (let t = 0; t < 8; t++) {
        const j = Math.max(0, i - 1 - Math.floor(rand() * Math.min(i, 300)))
        if (isParentable[j] && metas[j] && (metas[j]!.status === 'todo' || metas[j]!.status === 'in_progress')) {
          parent = metas[j]!.id
          break
        }
      }
    }
    isParentable.push(!role && !parent && chance(0.3))

    const assignee = !role && status === 'todo' && chance(0.05) ? pick(others) : undefined

    const meta: TaskMeta = {
      id,
      title: `${pick(VERBS)} ${pick(THINGS)} ${pick(WHERE)}`.trim() + (chance(0.2) ? ` (#${1000 + i})` : ''),
      status,
      priority,
      tags: [...tags].sort(),
      parent,
      depends_on: [...depends],
      assignee,
      epoch: 0,
      key,
      created_at: iso(created),
      created_by: createdBy,
      updated_at: iso(created),
      updated_by: createdBy,
      revision: 1,
    }
    const claimAt = created + rand() * (nowMs - created) * 0.5
    const owner = role === 'done' ? opts.actor : assignee ?? pick(others)
    switch (status) {
      case 'in_progress':
      case 'blocked': {
        // A live claim: claimed recently, lease still running.
        const at = Math.max(created + 1000, nowMs - rand() * 3_000_000)
        Object.assign(meta, {
          owner,
          epoch: 1,
          claimed_at: iso(at),
          lease_expires: iso(role === 'done' ? nowMs + 7 * DAY : at + 3_600_000 + 3_600_000),
          updated_at: iso(at),
          updated_by: owner,
          revision: 2,
        })
        if (status === 'blocked') Object.assign(meta, {block_note: 'waiting for a review of the design change', revision: 3})
        break
      }
      case 'done': {
        const closed = claimAt + rand() * 2 * DAY
        Object.assign(meta, {owner, epoch: 1, closed_at: iso(Math.min(closed, nowMs)), updated_at: iso(Math.min(closed, nowMs)), updated_by: owner, revision: 3})
        break
      }
      case 'cancelled': {
        const at = Math.min(claimAt, nowMs)
        Object.assign(meta, {cancel_reason: 'superseded by a newer item', closed_at: iso(at), updated_at: iso(at), updated_by: createdBy, revision: 2})
        break
      }
      default:
        break
    }

    let body = ''
    if (role === 'show' || chance(0.6)) {
      const paras = 1 + Math.floor(rand() * 4)
      const out: string[] = []
      for (let p = 0; p < paras; p++) out.push(pick(SENTENCES) + (chance(0.5) ? ` ${pick(SENTENCES)}` : ''))
      body = out.join('\n\n')
    }

    // Generated files must read back as the CLI reads them. Checked on a sample
    // (serialising twice would double the seeding time); run.mjs then lists the
    // whole store and requires zero unreadable files.
    if (role || i % 64 === 0) {
      const check = parseTaskFile(serialiseTask(meta, body), id)
      if (!check.ok) throw new Error(`seed produced an invalid task file for ${id}: ${check.error}`)
    }

    metas.push(meta)
    changes.push({kind: 'put-task', meta, body})

    const nComments = role === 'show' ? 3 : chance(0.1) ? 1 + Math.floor(rand() * 3) : 0
    for (let c = 0; c < nComments; c++) {
      const at = iso(created + (c + 1) * 3_600_000 * (1 + rand()))
      const comment: Comment = {
        id: `${at.replace(/[-:]/g, '')}-${(((i * 31 + c) * 2654435761) >>> 0).toString(16).padStart(8, '0')}`,
        task: id,
        kind: pick<CommentKind>(['note', 'note', 'decision', 'problem', 'lesson', 'knowledge']),
        author: pick(others),
        created_at: at,
        body: pick(SENTENCES),
      }
      changes.push({kind: 'add-comment', comment})
      comments++
    }

    if (role === 'claim') claimTargets.push(id)
    else if (role === 'done') doneTargets.push(id)
    else if (role === 'show') showTarget = id
  }

  const store = await ListStore.open(opts.cwd, LIST)
  try {
    await store.init()
    const loaded = await store.load()
    const plan: Plan<null> = {
      op: 'import',
      summary: `benchmark seed of ${n} tasks`,
      changes,
      trailers: [['Tasks-Count', String(n)]],
      result: null,
    }
    const commitAt = new Date(nowMs - 60_000).toISOString()
    const commit = await store.writePlan(loaded, plan, 'bench-seed', commitAt)
    const outcome = await store.compareAndSwap(commit, loaded.index.commit, `import: ${n} tasks`)
    if (!outcome.ok) throw new Error(`seed: compare-and-swap failed: ${JSON.stringify(outcome)}`)
    const byStatus: Record<string, number> = {}
    for (const m of metas) byStatus[m.status] = (byStatus[m.status] ?? 0) + 1
    return {commit, count: n, comments, byStatus, claimTargets, doneTargets, showTarget, bytesWritten: store.writer.bytesWritten, ms: Date.now() - started}
  } finally {
    store.close()
  }
}
