/**
 * A snapshot read through changes answers every question exactly as the
 * same tasks held in one plain map would, and overlays fold instead of
 * stacking.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {OverlayTasks, overlaySnapshot} from '../../src/core/overlay'
import {LiveOverlay} from '../../src/core/live-overlay'
import type {Change} from '../../src/core/plan'
import {ScannedTables, type Snapshot, type SnapshotTables, type TaskEntry, entryOf, tablesOf} from '../../src/core/snapshot'
import {DEFAULT_CONFIG, type Status} from '../../src/core/task'
import {derivedState, openRowState} from '../../src/core/readiness'
import {taskFilePath} from '../../src/core/store-layout'
import {applied, task} from '../helpers/snapshot'

const POOL = ['tsk-aaaa000001', 'tsk-aaaa000002', 'tsk-aaab000000', 'tsk-abcd000000', 'tsk-abce000000', 'tsk-b00000000', 'tsk-b000000001', 'tsk-c0000000aa']
const STATUSES: Status[] = ['todo', 'in_progress', 'blocked', 'done', 'cancelled']

/** An entry for `id`: readable with some parent and dependencies, or an unreadable file. */
const entryArb = (id: string): fc.Arbitrary<TaskEntry> =>
  fc.oneof(
    {weight: 5, arbitrary: fc.record({status: fc.constantFrom(...STATUSES), priority: fc.integer({min: 0, max: 4}), parent: fc.option(fc.constantFrom(...POOL), {nil: undefined}), deps: fc.subarray(POOL), assignee: fc.option(fc.constantFrom('bob', 'carol'), {nil: undefined}), owner: fc.option(fc.constantFrom('bob', 'carol'), {nil: undefined}), lease: fc.option(fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-03-01T12:00:00.000Z'), {nil: undefined})}).map(({status, priority, parent, deps, assignee, owner, lease}) =>
      entryOf(task({id, status, priority, parent, depends_on: deps.filter((d) => d !== id), assignee, owner, lease_expires: lease}), taskFilePath(id)))},
    {weight: 1, arbitrary: fc.constant<TaskEntry>({id, path: taskFilePath(id), error: 'broken'})},
  )

const tasksArb = fc.subarray(POOL).chain((ids) => fc.tuple(...ids.map(entryArb)).map((entries) => new Map(entries.map((e) => [e.id, e]))))
const changesArb = fc.subarray(POOL).chain((ids) =>
  fc.tuple(...ids.map((id) => fc.option(entryArb(id), {nil: null, freq: 3}).map((e) => [id, e] as const))).map((pairs) => new Map(pairs)),
)

const snap = (tasks: ReadonlyMap<string, TaskEntry>, tables?: SnapshotTables): Snapshot => ({list: 'main', commit: 'c', config: DEFAULT_CONFIG, tasks, tables})

function answers(s: Snapshot) {
  const t = tablesOf(s)
  const groups = [new Set(['todo']), new Set(['in_progress', 'blocked']), new Set(STATUSES)]
  return {
    size: s.tasks.size,
    entries: [...s.tasks.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    has: POOL.map((id) => s.tasks.has(id)),
    ids: t.sortedIds(),
    prefixes: ['tsk-a', 'tsk-aaaa', 'tsk-aaaa00000', 'tsk-b', 'tsk-', 'tsk-z'].map((p) => [t.idsWithPrefix(p, 2), t.idsWithPrefix(p, 100)]),
    children: POOL.map((id) => t.children(id)),
    dependents: POOL.map((id) => t.dependents(id)),
    statuses: groups.map((g) => t.idsWithStatus(g)),
    broken: t.brokenIds(),
    // Read before nextQueue(), which it would otherwise just replay.
    front: [...(t.nextQueueFront?.() ?? t.nextQueue())],
    queue: t.nextQueue(),
    reservations: [...t.reservations()].sort(([a], [b]) => (a < b ? -1 : 1)),
    claims: [...t.claims()].sort(([a], [b]) => (a < b ? -1 : 1)),
    open: t.openRows(),
    leases: t.leases(),
  }
}

describe('overlay snapshots', () => {
  it('answer like a plain map of the same tasks', () => {
    fc.assert(
      fc.property(tasksArb, changesArb, (base, changes) => {
        const over = overlaySnapshot(snap(base), changes, 'c')
        expect(answers(over)).toEqual(answers(snap(applied(base, changes), new ScannedTables(applied(base, changes)))))
      }),
    )
  })

  it('work out again every open row one change can affect (its parents, sub-items, dependents and their sub-items)', () => {
    // One change at a time, many runs: each row that reads the changed entry must be redone, and no other.
    const oneChangeArb = fc.constantFrom(...POOL).chain((id) => fc.option(entryArb(id), {nil: null, freq: 4}).map((e) => new Map([[id, e]])))
    fc.assert(
      fc.property(tasksArb, oneChangeArb, (base, changes) => {
        const over = tablesOf(overlaySnapshot(snap(base), changes, 'c'))
        expect(over.openRows()).toEqual(new ScannedTables(applied(base, changes)).openRows())
      }),
      {numRuns: 6000},
    )
  })

  it('give each open row the state and readiness a view derives from the card', () => {
    fc.assert(
      fc.property(tasksArb, fc.constantFrom('bob', 'carol', undefined), fc.constantFrom('2026-01-01T00:00:10.000Z', '2026-01-01T00:00:40.000Z', '2026-02-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'), (tasks, actor, now) => {
        const s = snap(tasks)
        const rows = tablesOf(s).openRows().rows
        expect(rows.map((r) => r[0]).sort()).toEqual([...tasks.values()].filter((e) => e.meta && ['todo', 'in_progress', 'blocked'].includes(e.meta.status)).map((e) => e.id).sort())
        for (const r of rows) expect(openRowState(r, actor, Date.parse(now), s.config)).toEqual(derivedState(s, tasks.get(r[0])!.meta!, actor, now))
      }),
      {numRuns: 500},
    )
  })

  it('fold a second change set into the first instead of stacking', () => {
    fc.assert(
      fc.property(tasksArb, changesArb, changesArb, (base, first, second) => {
        const once = overlaySnapshot(snap(base), first, 'c1')
        const twice = overlaySnapshot(once, second, 'c2')
        expect((twice.tasks as OverlayTasks).base).toBe(base)
        expect(answers(twice)).toEqual(answers(snap(applied(applied(base, first), second))))
      }),
    )
  })
})

describe('LiveOverlay (a batch, the history generator)', () => {
  it('answers like a plain map after each step of changes, the lease order included', () => {
    fc.assert(
      fc.property(tasksArb, fc.array(changesArb, {maxLength: 4}), (base, steps) => {
        const live = new LiveOverlay(snap(base, new ScannedTables(base)))
        let plain = new Map(base)
        for (const step of steps) {
          // A put-task always writes a readable file; an unreadable one in the step stands for a removal.
          const readable = new Map([...step].map(([id, e]) => [id, e?.meta ? e : null] as const))
          live.apply([...readable].map(([id, e]): Change => (e?.meta ? {kind: 'put-task', meta: e.meta} : {kind: 'delete-task', id})))
          plain = applied(plain, readable)
          expect(answers(live.snapshot)).toEqual(answers(snap(plain, new ScannedTables(plain))))
        }
      }),
    )
  })
})
