import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {withChanges} from '../../../src/core/apply'
import type {Change} from '../../../src/core/plan'
import type {Snapshot} from '../../../src/core/snapshot'
import type {Status, TaskMeta} from '../../../src/core/task'
import {checkInvariants, findCycle, reconcile} from '../../../src/merge/reconcile'
import {snapshot, task} from '../../helpers/snapshot'

const NOW = '2026-11-30T08:00:00.000Z'
const id = (n: number): string => `tsk-${String(n).padStart(10, '0')}`
const at = (minutes: number): string => new Date(Date.parse('2026-11-29T12:00:00.000Z') + minutes * 60_000).toISOString()
const puts = (changes: Change[]): TaskMeta[] => changes.flatMap((c) => (c.kind === 'put-task' ? [c.meta] : []))
const comments = (changes: Change[]) => changes.flatMap((c) => (c.kind === 'add-comment' ? [c.comment] : []))
const metaOf = (snap: Snapshot, x: string): TaskMeta => snap.tasks.get(x)!.meta!

describe('reconcile', () => {
  it('changes nothing in a healthy list', () => {
    const a = task({id: id(1)})
    const b = task({id: id(2), depends_on: [id(1)]})
    const c = task({id: id(3), parent: id(1), status: 'done', depends_on: []})
    expect(reconcile(snapshot([a, b, c]), {now: NOW, before: [snapshot([a, b, c])]})).toEqual({changes: [], repairs: []})
  })

  it('removes a dangling dependency and records it on the card', () => {
    const a = task({id: id(1), depends_on: [id(2), id(9)], revision: 4})
    const b = task({id: id(2)})
    const r = reconcile(snapshot([a, b]), {now: NOW})
    expect(r.repairs).toEqual([{kind: 'dangling_dependency', task: id(1), message: expect.stringContaining(id(9))}])
    expect(puts(r.changes)).toEqual([{...a, depends_on: [id(2)], revision: 5, updated_at: NOW, updated_by: 'git-tasks'}])
    const [c] = comments(r.changes)
    expect(c).toMatchObject({task: id(1), kind: 'problem', author: 'git-tasks', created_at: NOW})
    expect(c!.id).toMatch(/^20261130T080000\.000Z-[0-9a-f]{8}$/)
    expect(c!.body).toContain(id(9))
  })

  it('counts unreadable task files as existing: an edge to one is not dangling', () => {
    const a = task({id: id(1), depends_on: [id(2)], parent: id(2)})
    expect(reconcile(snapshot([a], [{id: id(2), error: 'broken'}]), {now: NOW}).repairs).toEqual([])
  })

  it('clears a dangling parent', () => {
    const a = task({id: id(1), parent: id(7)})
    const r = reconcile(snapshot([a]), {now: NOW})
    expect(r.repairs).toEqual([expect.objectContaining({kind: 'dangling_parent', task: id(1)})])
    expect(puts(r.changes)[0]!.parent).toBeUndefined()
  })

  it('re-parents a sub-item nested too deep to its top-level ancestor', () => {
    const top = task({id: id(1)})
    const mid = task({id: id(2), parent: id(1)})
    const low = task({id: id(3), parent: id(2)})
    const lower = task({id: id(4), parent: id(3)})
    const r = reconcile(snapshot([top, mid, low, lower]), {now: NOW})
    expect(r.repairs.map((x) => [x.kind, x.task])).toEqual([
      ['nesting_too_deep', id(3)],
      ['nesting_too_deep', id(4)],
    ])
    expect(puts(r.changes).map((m) => [m.id, m.parent])).toEqual([
      [id(3), id(1)],
      [id(4), id(1)],
    ])
  })

  it('breaks a loop of parent links at the latest-updated member', () => {
    const a = task({id: id(1), parent: id(2), updated_at: at(5)})
    const b = task({id: id(2), parent: id(1), updated_at: at(9)})
    const self = task({id: id(3), parent: id(3)})
    const r = reconcile(snapshot([a, b, self]), {now: NOW})
    const after = withChanges(snapshot([a, b, self]), r.changes)
    expect(metaOf(after, id(2)).parent).toBeUndefined()
    expect(metaOf(after, id(1)).parent).toBe(id(2))
    expect(metaOf(after, id(3)).parent).toBeUndefined()
    expect(r.repairs.map((x) => x.kind)).toEqual(['parent_cycle', 'parent_cycle'])
  })

  it('breaks a dependency cycle at the member with the latest updated_at, edge to its successor', () => {
    // Two clones: one made 1 → 2, the other 2 → 3 and 3 → 1.
    const a = task({id: id(1), depends_on: [id(2)], updated_at: at(1)})
    const b = task({id: id(2), depends_on: [id(3)], updated_at: at(7)})
    const c = task({id: id(3), depends_on: [id(1)], updated_at: at(3)})
    const r = reconcile(snapshot([a, b, c]), {now: NOW})
    expect(r.repairs).toEqual([{kind: 'dependency_cycle', task: id(2), message: expect.stringContaining(id(3))}])
    expect(puts(r.changes)).toEqual([expect.objectContaining({id: id(2), depends_on: []})])
  })

  it('ties on updated_at go to the greatest id; repeats until acyclic; removes self-edges', () => {
    const a = task({id: id(1), depends_on: [id(2), id(3)], updated_at: at(1)})
    const b = task({id: id(2), depends_on: [id(1)], updated_at: at(1)})
    const c = task({id: id(3), depends_on: [id(1), id(3)], updated_at: at(1)})
    const snap = snapshot([a, b, c])
    const r = reconcile(snap, {now: NOW})
    const after = withChanges(snap, r.changes)
    expect(findCycle(new Map([...after.tasks].map(([k, e]) => [k, e.meta!])), [id(1), id(2), id(3)])).toBeNull()
    expect(metaOf(after, id(1)).depends_on).toEqual([id(2), id(3)])
    expect(metaOf(after, id(2)).depends_on).toEqual([])
    expect(metaOf(after, id(3)).depends_on).toEqual([])
    expect(r.repairs.every((x) => x.kind === 'dependency_cycle')).toBe(true)
    // One put per card, however many repairs it had; one comment per repair.
    expect(puts(r.changes).map((m) => m.id)).toEqual([id(2), id(3)])
    expect(comments(r.changes)).toHaveLength(r.repairs.length)
  })

  it('reopens a done item whose dependency is not done, when that is new in the merge', () => {
    const dep = task({id: id(1), status: 'in_progress', owner: 'bob', epoch: 1})
    const doneItem = task({id: id(2), depends_on: [id(1)], status: 'done', owner: 'alice', epoch: 3, closed_at: at(2), claimed_at: at(1), lease_expires: at(61)})
    const downstream = task({id: id(3), depends_on: [id(2)], status: 'done', owner: 'carol', epoch: 1, closed_at: at(3)})
    // ours: the dependency was done and both items finished; theirs: the dependency was reopened and claimed.
    const ours = snapshot([{...dep, status: 'done'}, doneItem, downstream])
    const theirs = snapshot([dep, {...doneItem, status: 'todo', owner: undefined, depends_on: [id(1)]}, {...downstream, status: 'todo'}])
    const merged = snapshot([dep, doneItem, downstream])
    const r = reconcile(merged, {now: NOW, before: [ours, theirs]})
    expect(r.repairs.map((x) => [x.kind, x.task])).toEqual([
      ['done_with_open_dependency', id(2)],
      ['done_with_open_dependency', id(3)],
    ])
    const [m2, m3] = puts(r.changes)
    expect(m2).toMatchObject({id: id(2), status: 'todo', epoch: 3})
    for (const k of ['owner', 'claimed_at', 'lease_expires', 'closed_at', 'block_note'] as const) expect(m2![k]).toBeUndefined()
    expect(m3).toMatchObject({id: id(3), status: 'todo'})
  })

  it('leaves a done item alone when one merged side already had that state, or without `before`', () => {
    const dep = task({id: id(1), status: 'todo'})
    const forced = task({id: id(2), depends_on: [id(1)], status: 'done'})
    const snap = snapshot([dep, forced])
    const fine = snapshot([{...dep, status: 'done'}, forced])
    expect(reconcile(snap, {now: NOW, before: [snap, snap]}).repairs).toEqual([])
    // One clone reopened the dependency itself (a fast-forward would keep that): not the merge's doing.
    expect(reconcile(snap, {now: NOW, before: [snap, fine]}).repairs).toEqual([])
    expect(reconcile(snap, {now: NOW}).repairs).toEqual([])
    expect(reconcile(snap, {now: NOW, before: []}).repairs).toEqual([])
    // Neither side had it: the merge made it.
    expect(reconcile(snap, {now: NOW, before: [fine, snapshot([dep, {...forced, status: 'todo'}])]}).repairs).toEqual([
      expect.objectContaining({kind: 'done_with_open_dependency', task: id(2)}),
    ])
  })

  it('checkInvariants reports every violation without repairing', () => {
    const a = task({id: id(1), depends_on: [id(2), id(9)], status: 'done'})
    const b = task({id: id(2), depends_on: [id(1)], parent: id(8)})
    const c = task({id: id(3), parent: id(4)})
    const d = task({id: id(4), parent: id(1)})
    const snap = snapshot([a, b, c, d])
    const v = checkInvariants(snap)
    expect(v.map((x) => [x.kind, x.task]).sort()).toEqual(
      [
        ['dangling_parent', id(2)],
        ['nesting_too_deep', id(3)],
        ['dangling_dependency', id(1)],
        ['dependency_cycle', a.updated_at === b.updated_at ? id(2) : id(1)],
        ['done_with_open_dependency', id(1)],
        // Done while its sub-item d is open.
        ['done_with_open_subitems', id(1)],
      ].sort(),
    )
    for (const x of v) expect(x.message.startsWith(x.task)).toBe(true)
    expect(v.find((x) => x.kind === 'dangling_dependency')!.related).toEqual([id(9)])
    expect(metaOf(snap, id(1)).depends_on).toEqual([id(2), id(9)])
  })
})

// ---------------------------------------------------------------------------
// Properties over random lists.

const N = 7
const STATUSES: Status[] = ['todo', 'in_progress', 'blocked', 'done', 'cancelled']

const taskArb = (i: number): fc.Arbitrary<TaskMeta> =>
  fc
    .record({
      deps: fc.uniqueArray(fc.integer({min: 1, max: N + 2}), {maxLength: 3}),
      parent: fc.option(fc.integer({min: 1, max: N + 1}), {freq: 2}),
      status: fc.constantFrom(...STATUSES),
      updated: fc.integer({min: 0, max: 3}),
    })
    .map(({deps, parent, status, updated}) =>
      task({
        id: id(i),
        depends_on: deps.map(id).sort(),
        parent: parent === null ? undefined : id(parent),
        status,
        owner: status === 'in_progress' || status === 'blocked' || status === 'done' ? 'alice' : undefined,
        updated_at: at(updated),
      }),
    )

const variantArb = fc.array(fc.tuple(fc.integer({min: 1, max: N}), fc.constantFrom(...STATUSES)), {maxLength: 4})

const snapArb: fc.Arbitrary<{snap: Snapshot; before: Snapshot[]}> = fc
  .tuple(fc.tuple(...Array.from({length: N}, (_, i) => taskArb(i + 1))), fc.subarray(Array.from({length: N}, (_, i) => i + 1), {maxLength: 2}), variantArb, variantArb)
  .map(([tasks, brokenIdx, v1, v2]) => {
    const readable = tasks.filter((t) => !brokenIdx.includes(Number(t.id.slice(4))))
    const broken = brokenIdx.map((i) => ({id: id(i), error: 'broken'}))
    const snap = snapshot(readable, broken)
    // The "before" sides: the same list with some statuses different.
    const variant = (changes: Array<[number, Status]>): Snapshot =>
      snapshot(
        readable.map((t) => {
          const change = changes.find(([i]) => id(i) === t.id)
          return change ? {...t, status: change[1]} : t
        }),
        broken,
      )
    return {snap, before: [variant(v1), variant(v2)]}
  })

describe('reconcile: properties', () => {
  it('leaves no cycle, no dangling edge, no nesting too deep; is deterministic and idempotent', () => {
    let repaired = 0
    let reopened = 0
    fc.assert(
      fc.property(snapArb, ({snap, before}) => {
        const r = reconcile(snap, {now: NOW, before})
        expect(reconcile(snap, {now: NOW, before})).toEqual(r)
        if (r.repairs.length > 0) repaired++
        if (r.repairs.some((x) => x.kind === 'done_with_open_dependency')) reopened++
        const after = withChanges(snap, r.changes)
        const finishKinds = ['done_with_open_dependency', 'done_with_open_subitems', 'done_while_flagged', 'done_with_unmet_checks']
        const left = checkInvariants(after).filter((v) => !finishKinds.includes(v.kind))
        expect(left).toEqual([])
        // A done parent left with an open sub-item had it on some side already (the merge did not make it).
        for (const v of checkInvariants(after).filter((x) => x.kind === 'done_with_open_subitems')) {
          expect(before.some((b) => b.tasks.get(v.task)?.meta?.status === 'done' && v.related.every((k) => b.tasks.get(k)?.meta?.parent === v.task && !['done', 'cancelled'].includes(b.tasks.get(k)!.meta!.status)))).toBe(true)
        }
        // Idempotent: the reconciled list needs nothing more (same `before`).
        expect(reconcile(after, {now: NOW, before})).toEqual({changes: [], repairs: []})
        // Every changed card got revision + 1 and the merge's time and actor, and a comment per repair.
        for (const m of puts(r.changes)) {
          expect(m).toMatchObject({revision: metaOf(snap, m.id).revision + 1, updated_at: NOW, updated_by: 'git-tasks'})
        }
        expect(comments(r.changes)).toHaveLength(r.repairs.length)
        expect(new Set(comments(r.changes).map((c) => `${c.task}/${c.id}`)).size).toBe(r.repairs.length)
        // Only new violations were reopened: every done item left with an open dependency had that pair in some `before`.
        for (const v of checkInvariants(after).filter((x) => x.kind === 'done_with_open_dependency')) {
          const dep = v.related[0]!
          expect(before.some((b) => b.tasks.get(v.task)?.meta?.status === 'done' && b.tasks.get(dep)?.meta?.status !== 'done')).toBe(true)
        }
      }),
      {numRuns: 1000},
    )
    expect(repaired).toBeGreaterThan(500)
    expect(reopened).toBeGreaterThan(15)
  })
})

// ---------------------------------------------------------------------------
// Incremental reconcile (`changed`): the same result as the whole-list one
// whenever a merged side was itself consistent.

type Edit = {task: number; kind: 'status'; status: Status} | {task: number; kind: 'parent'; parent: number | null} | {task: number; kind: 'deps'; deps: number[]} | {task: number; kind: 'remove'}

const M = 9
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({task: fc.integer({min: 1, max: M}), kind: fc.constant('status' as const), status: fc.constantFrom(...STATUSES)}),
  fc.record({task: fc.integer({min: 1, max: M}), kind: fc.constant('parent' as const), parent: fc.option(fc.integer({min: 1, max: M + 1}), {freq: 3})}),
  fc.record({task: fc.integer({min: 1, max: M}), kind: fc.constant('deps' as const), deps: fc.uniqueArray(fc.integer({min: 1, max: M + 1}), {maxLength: 3})}),
  fc.record({task: fc.integer({min: 1, max: M}), kind: fc.constant('remove' as const)}),
)

/** `snap` with the edits applied (a task edited but absent is added); returns the ids touched. */
function edited(snap: Snapshot, edits: readonly Edit[], minute: number): {snap: Snapshot; touched: string[]} {
  const metas = new Map<string, TaskMeta>()
  for (const [k, e] of snap.tasks) if (e.meta) metas.set(k, e.meta)
  const broken = [...snap.tasks.values()].filter((e) => !e.meta).map((e) => ({id: e.id, error: e.error ?? 'broken'}))
  const touched: string[] = []
  for (const e of edits) {
    const k = id(e.task)
    if (broken.some((b) => b.id === k)) continue
    touched.push(k)
    if (e.kind === 'remove') {
      metas.delete(k)
      continue
    }
    const m: TaskMeta = {...(metas.get(k) ?? task({id: k, updated_at: at(0)})), updated_at: at(minute + e.task)}
    if (e.kind === 'status') m.status = e.status
    else if (e.kind === 'parent') {
      if (e.parent === null) delete m.parent
      else m.parent = id(e.parent)
    } else m.depends_on = e.deps.map(id).sort()
    metas.set(k, m)
  }
  return {snap: snapshot([...metas.values()], broken), touched}
}

const sidesArb = fc.record({
  start: fc.tuple(...Array.from({length: M}, (_, i) => taskArb(i + 1))),
  broken: fc.subarray(Array.from({length: M}, (_, i) => i + 1), {maxLength: 1}),
  theirs: fc.array(editArb, {maxLength: 4}),
  merged: fc.array(editArb, {maxLength: 5}),
  theirsConsistent: fc.boolean(),
})

describe('reconcile: around the changes only', () => {
  it('gives the whole-list result when one side was consistent (and is symmetric in the sides)', () => {
    let repaired = 0
    const kinds = new Set<string>()
    fc.assert(
      fc.property(sidesArb, ({start, broken, theirs: theirEdits, merged: mergedEdits, theirsConsistent}) => {
        const raw = snapshot(
          start.filter((t) => !broken.includes(Number(t.id.slice(4)))),
          broken.map((i) => ({id: id(i), error: 'broken'})),
        )
        // Ours: a consistent list (what the reconciler leaves); theirs: ours edited, consistent or not.
        const ours = withChanges(raw, reconcile(raw, {now: at(1)}).changes)
        let theirs = edited(ours, theirEdits, 10).snap
        if (theirsConsistent) theirs = withChanges(theirs, reconcile(theirs, {now: at(2)}).changes)
        // The merged list: theirs with more edits (as if ours' changes were applied to it).
        const {snap: merged, touched} = edited(theirs, mergedEdits, 20)
        const changed = new Set([...touched, ...theirEdits.map((e) => id(e.task))])
        for (const e of [...ours.tasks.keys(), ...theirs.tasks.keys()]) if (ours.tasks.get(e)?.meta?.revision !== theirs.tasks.get(e)?.meta?.revision) changed.add(e)
        const whole = reconcile(merged, {now: NOW, before: [ours, theirs]})
        const around = reconcile(merged, {now: NOW, before: [ours, theirs], changed})
        expect(around).toEqual(whole)
        expect(reconcile(merged, {now: NOW, before: [theirs, ours], changed: [...changed].reverse()})).toEqual(whole)
        // Extra ids change nothing.
        expect(reconcile(merged, {now: NOW, before: [ours, theirs], changed: [...merged.tasks.keys(), ...changed]})).toEqual(whole)
        if (whole.repairs.length > 0) repaired++
        for (const r of whole.repairs) kinds.add(r.kind)
      }),
      {numRuns: 1500},
    )
    expect(repaired).toBeGreaterThan(300)
    expect([...kinds].sort()).toEqual(['dangling_dependency', 'dangling_parent', 'dependency_cycle', 'done_with_open_dependency', 'done_with_open_subitems', 'nesting_too_deep', 'parent_cycle'])
  })

  it('looks only at the changed tasks and their neighbours, leaving a violation both sides had', () => {
    // Both sides have a dangling dependency on an unchanged task; the merge changes another task.
    const a = task({id: id(1), depends_on: [id(9)]})
    const b = task({id: id(2)})
    const side = snapshot([a, b])
    const merged = snapshot([a, {...b, status: 'done'}])
    expect(reconcile(merged, {now: NOW, before: [side, side], changed: [id(2)]})).toEqual({changes: [], repairs: []})
    // The whole-list reconcile (and `tasks doctor`) still see it.
    expect(reconcile(merged, {now: NOW, before: [side, side]}).repairs.map((r) => r.kind)).toEqual(['dangling_dependency'])
    // A change that involves it brings it into view: the dependency's task is now changed too.
    const moved = snapshot([{...a, status: 'done'}, b])
    expect(reconcile(moved, {now: NOW, before: [side, side], changed: [id(1)]}).repairs.map((r) => r.kind)).toEqual(['dangling_dependency'])
  })
})
