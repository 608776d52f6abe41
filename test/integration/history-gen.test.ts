/**
 * The fast history generator (bench/history-gen.ts, `BENCH_HISTORY`) must
 * write exactly what the mutation path writes: the same ops replayed one
 * commit at a time through the library (load → op on the loaded snapshot →
 * the transaction's inbox hook → writePlan → compare-and-swap, as
 * transaction.ts does for every command) end on the very same commit id,
 * so every tree, file, message, author and date matched along the way.
 */
import {cpSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {generateHistory, historySteps, type Step} from '../../bench/history-gen'
import {seed} from '../../bench/seed'
import {withInbox} from '../../src/app/inbox-hook'
import {LiveOverlay} from '../../src/core/live-overlay'
import {ListStore} from '../../src/refstore/list-store'
import {gitSync, makeRepo, run, tempDir} from '../helpers/cli'

const START = '2026-03-01T09:00:00.000Z'

async function replay(dir: string, count: number, seedNo: number, inbox: boolean): Promise<string> {
  const store = await ListStore.open(dir, 'main')
  const live = new LiveOverlay((await store.load()).snapshot)
  const steps = historySteps(live, {seed: seedNo, start: START})
  for (let i = 0; i < count; i++) {
    const step = steps.next().value as Step
    const loaded = await store.load()
    const planned = step.op(loaded.snapshot, step.ctx)
    const plan = inbox ? await withInbox(store, loaded, planned, step.ctx) : planned
    const commit = await store.writePlan(loaded, plan, step.ctx.actor, step.ctx.now)
    expect((await store.compareAndSwap(commit, loaded.index.commit, plan.op)).ok).toBe(true)
    live.apply(step.plan.changes)
  }
  const tip = store.tip!
  store.close()
  return tip
}

describe('history generator', () => {
  it('writes the commits the mutation path writes, byte for byte, with and without the inbox', async () => {
    const origin = makeRepo()
    await seed({cwd: origin, count: 60, actor: 'bench-agent', reserve: 2, now: '2026-02-27T12:00:00.000Z'})
    const before = Number(gitSync(origin, ['rev-list', '--count', 'refs/tasks/main']))
    for (const inbox of [false, true]) {
      const fast = tempDir()
      const slow = tempDir()
      cpSync(origin, fast, {recursive: true})
      cpSync(origin, slow, {recursive: true})
      const made = await generateHistory({cwd: fast, count: 50, seed: 7, start: START, inbox})
      expect(made.commits).toBe(50)
      // Every kind of mutation happened (comments add files, adds create cards).
      for (const op of ['claim', 'done', 'comment', 'edit', 'add']) expect(made.byOp[op] ?? 0).toBeGreaterThan(0)
      expect(gitSync(fast, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe(String(before + 50))
      const expected = await replay(slow, 50, 7, inbox)
      expect(made.tip).toBe(expected)
      if (inbox) expect(gitSync(fast, ['ls-tree', '--name-only', 'refs/tasks/main']).split('\n')).toContain('inbox')
      // The result reads as a sound list.
      const doctor = await run(fast, ['doctor', '--json'])
      expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0)
      const list = JSON.parse((await run(fast, ['list', '--all', '--json'])).stdout)
      expect(list.total).toBe(60 + made.byOp.add!)
    }
  }, 60_000)
})
