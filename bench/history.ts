/**
 * Benchmark history: make many single-change commits on a list quickly,
 * through the same library path the CLI uses (load → pure op → writePlan →
 * compare-and-swap), one commit per change, as many agents working over
 * months would. Bundled on the fly by bench/scale.mjs with esbuild; never
 * part of the CLI bundle.
 *
 * The mix: claim a todo item, finish an item held by this actor, comment on
 * any item, edit a priority, add a new item; targets are picked by a seeded
 * PRNG over the whole list, so two runs with different seeds touch mostly
 * different items and sometimes the same one (what `sync` then merges).
 */
import {randomBytes} from 'node:crypto'
import {TasksError} from '../src/core/errors'
import {addTask} from '../src/core/ops/add'
import {claimTask} from '../src/core/ops/claim'
import {addComment} from '../src/core/ops/comment'
import {editTask} from '../src/core/ops/edit'
import {finishTask} from '../src/core/ops/lifecycle'
import type {OpContext, Plan} from '../src/core/plan'
import {tablesOf} from '../src/core/snapshot'
import {ListStore} from '../src/refstore/list-store'

export interface HistoryOptions {
  cwd: string
  /** Number of commits to make. */
  count: number
  actor: string
  /** PRNG seed: which items are touched. */
  seed: number
  /** Called every 1,000 commits. */
  progress?: (done: number) => void
}

export async function makeHistory(opts: HistoryOptions): Promise<{commits: number; ms: number; byOp: Record<string, number>}> {
  const t0 = Date.now()
  let state = opts.seed >>> 0 || 1
  const rand = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return Math.floor((state / 2 ** 32) * n)
  }
  const store = await ListStore.open(opts.cwd, 'main')
  const byOp: Record<string, number> = {}
  const held: string[] = []
  let commits = 0
  try {
    let ids = tablesOf((await store.load()).snapshot).sortedIds()
    while (commits < opts.count) {
      const loaded = await store.load()
      const snap = loaded.snapshot
      const now = new Date().toISOString()
      const ctx: OpContext = {actor: opts.actor, now, entropy: randomBytes(8).toString('hex')}
      const id = ids[rand(ids.length)]!
      const kind = rand(10)
      let plan: Plan<unknown> | undefined
      try {
        if (kind < 3) {
          plan = claimTask(snap, ctx, {id})
          held.push(id)
        } else if (kind < 5 && held.length > 0) plan = finishTask(snap, ctx, {id: held.shift()!})
        else if (kind < 7) plan = addComment(snap, ctx, {id, text: `Progress note ${commits}: checked the logs, next step is the fix.`})
        else if (kind < 9) plan = editTask(snap, ctx, {id, priority: rand(5)})
        else plan = addTask(snap, ctx, {title: `History item ${opts.seed}-${commits}`, priority: rand(5), tags: ['history'], dependsOn: []})
      } catch (e) {
        if (!(e instanceof TasksError)) throw e
        continue
      }
      if (!plan || plan.changes.length === 0) continue
      const commit = await store.writePlan(loaded, plan, opts.actor, now)
      const outcome = await store.compareAndSwap(commit, loaded.index.commit, plan.op)
      if (!outcome.ok) throw new Error(`history: the ref moved under the benchmark (${JSON.stringify(outcome)})`)
      store.tip = commit
      byOp[plan.op] = (byOp[plan.op] ?? 0) + 1
      commits++
      if (plan.op === 'add') ids = tablesOf((await store.load()).snapshot).sortedIds()
      if (commits % 1000 === 0) opts.progress?.(commits)
    }
  } finally {
    store.close()
  }
  return {commits, ms: Date.now() - t0, byOp}
}
