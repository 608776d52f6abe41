/**
 * Inbox benchmark helpers (bundled on the fly by bench/inbox.mjs, never part
 * of the CLI): write `n` inbox records for one actor in one commit, and time
 * the transaction's inbox step (registry read + the pure rule) in-process on
 * a loaded list, so its cost is measured apart from process start-up.
 */
import {withInbox} from '../src/app/inbox-hook'
import {recordPath, serialiseRecord} from '../src/core/inbox'
import {recordStem} from '../src/core/notify'
import {addComment} from '../src/core/ops/comment'
import type {Change, Plan} from '../src/core/plan'
import {ListStore} from '../src/refstore/list-store'

/** `n` records for `to` about `task`, one commit (as if `n` changes had each written one). */
export async function seedInbox(cwd: string, to: string, task: string, n: number, start: string): Promise<string> {
  const store = await ListStore.open(cwd, 'main')
  const loaded = await store.load()
  const changes: Change[] = []
  for (let i = 0; i < n; i++) {
    const now = new Date(Date.parse(start) + i * 1000).toISOString()
    const stem = recordStem(now, to, 'comment', String(i))
    changes.push({kind: 'put-file', path: recordPath(to, stem), content: serialiseRecord({id: stem, event: 'comment', task, tasks: [task], actor: 'writer', to, created_at: now, roles: ['owner'], body: `writer commented on ${task} "Target"\n\n> comment number ${i}`})})
  }
  const plan: Plan<null> = {op: 'seed-inbox', summary: `${n} records`, changes, trailers: [], result: null}
  const commit = await store.writePlan(loaded, plan, 'bench', start)
  const r = await store.compareAndSwap(commit, loaded.index.commit, 'seed inbox')
  if (!r.ok) throw new Error('seed inbox: ref moved')
  store.close()
  return commit
}

/** Median milliseconds of the inbox step for a comment on `task` by `actor`, and the number of records it adds. */
export async function timeInboxStep(cwd: string, task: string, actor: string, runs: number): Promise<{medianMs: number; records: number; loadMs: number}> {
  const store = await ListStore.open(cwd, 'main')
  const t0 = performance.now()
  const loaded = await store.load()
  const loadMs = performance.now() - t0
  const times: number[] = []
  let records = 0
  for (let i = 0; i < runs; i++) {
    const ctx = {actor, now: new Date().toISOString(), entropy: String(i)}
    const plan = addComment(loaded.snapshot, ctx, {id: task, text: `bench ${i}`})
    const s = performance.now()
    const full = await withInbox(store, loaded, plan, ctx)
    times.push(performance.now() - s)
    records = full.changes.filter((c) => c.kind === 'put-file' && c.path.startsWith('inbox/')).length
  }
  store.close()
  times.sort((a, b) => a - b)
  return {medianMs: times[Math.floor(times.length / 2)]!, records, loadMs}
}
