import {describe, expect, it} from 'vitest'
import {type CardStep, type RevertArgs, type RevertCard, revertActor, walkField} from '../../src/core/ops/revert'
import type {TaskMeta} from '../../src/core/task'
import {T0, after, ctx, snapshot, task} from '../helpers/snapshot'

const LATER = '2026-11-29T13:00:00.000Z'

/** A card's history: each step is the card after a commit by `actor` (`mine`: the reverted actor, in the window). */
function history(first: TaskMeta | null, steps: Array<{actor: string; mine?: boolean; meta: TaskMeta | null; body?: string}>): RevertCard {
  let prev = first ? {meta: first, body: ''} : null
  const out: CardStep[] = []
  steps.forEach((s, i) => {
    const next = s.meta ? {meta: s.meta, body: s.body ?? prev?.body ?? ''} : null
    out.push({commit: `${i}`.padStart(40, 'c'), actor: s.actor, date: T0, mine: s.mine ?? s.actor === 'eve', before: prev, after: next})
    prev = next
  })
  return {id: (first ?? steps[0]!.meta)!.id, steps: out}
}

function args(cards: RevertCard[], extra: Partial<RevertArgs> = {}): RevertArgs {
  return {actor: 'eve', since: null, until: null, commits: 1, cards, comments: [], checks: [], ...extra}
}

describe('walkField', () => {
  const c = (before: number, after: number) => new Map([['priority', {field: 'priority', before, after}]])
  const step = (actor: string, mine: boolean): CardStep => ({commit: 'x', actor, date: T0, mine, before: null, after: null})
  it("steps back over the actor's trailing changes only", () => {
    // eve 3→1, bob 1→0, eve 0→4: bob's change between eve's is kept (the walk stops at it).
    expect(walkField([step('eve', true), step('bob', false), step('eve', true)], [c(3, 1), c(1, 0), c(0, 4)], 'priority', 4)).toMatchObject({consumed: 1, value: 0, set: 4, by: []})
    // eve 3→1, eve 1→4: back to the value before her first change.
    expect(walkField([step('eve', true), step('eve', true)], [c(3, 1), c(1, 4)], 'priority', 4)).toMatchObject({consumed: 2, value: 3})
  })
  it('stops at once when someone changed the field since, or the value is not what the actor left', () => {
    expect(walkField([step('eve', true), step('bob', false)], [c(3, 1), c(1, 0)], 'priority', 0)).toMatchObject({consumed: 0, set: 1, by: ['bob']})
    // A merge chose another value: nobody's change is known, nothing is restored.
    expect(walkField([step('eve', true)], [c(3, 1)], 'priority', 5)).toMatchObject({consumed: 0, set: 1, by: []})
    // eve's own change after the window is not hers in the window.
    expect(walkField([step('eve', true), step('eve', false)], [c(3, 1), c(1, 2)], 'priority', 2)).toMatchObject({consumed: 0, by: ['eve']})
  })
})

describe('revertActor', () => {
  it("restores the actor's values nobody changed since and keeps the others', field by field", () => {
    const x0 = task({title: 'X', priority: 2, tags: ['a']})
    const x1 = {...x0, priority: 0, revision: 2, updated_by: 'eve'}
    const x2 = {...x1, tags: ['a', 'b'], revision: 3, updated_by: 'bob'}
    const x3 = {...x2, tags: ['b'], title: 'X by eve', revision: 4, updated_by: 'eve'}
    const x4 = {...x3, title: 'X by bob', revision: 5, updated_by: 'bob'}
    const snap = snapshot([x4])
    const plan = revertActor(snap, ctx('ops', LATER), args([history(x0, [{actor: 'eve', meta: x1}, {actor: 'bob', meta: x2}, {actor: 'eve', meta: x3}, {actor: 'bob', meta: x4}])]))
    expect(plan.result.restored.map((r) => [r.field, r.from, r.to])).toEqual([
      ['priority', 0, 2],
      ['tags', ['b'], ['a', 'b']],
    ])
    expect(plan.result.kept).toEqual([{id: x0.id, title: 'X by bob', field: 'title', value: 'X by bob', set: 'X by eve', by: ['bob']}])
    const now = after(snap, plan).tasks.get(x0.id)!.meta!
    expect(now).toMatchObject({title: 'X by bob', priority: 2, tags: ['a', 'b'], revision: 6, updated_by: 'ops'})
    expect(plan.op).toBe('revert')
    expect(plan.trailers).toContainEqual(['Reverts-Actor', 'eve'])
  })

  it('cancels the cards the actor created, or removes them; others keep their sub-items', () => {
    const made = task({title: 'junk', created_by: 'eve'})
    const other = task({title: 'bob parent', created_by: 'eve'})
    const kid = task({title: 'bob kid', parent: other.id, created_by: 'bob'})
    const snap = snapshot([made, other, kid])
    const cards = [history(null, [{actor: 'eve', meta: made}]), history(null, [{actor: 'eve', meta: other}])]
    const cancel = revertActor(snap, ctx('ops', LATER), args(cards, {reason: 'spam'}))
    expect(cancel.result.cancelled).toEqual([{id: made.id, title: 'junk'}])
    expect(cancel.result.skipped).toEqual([{id: other.id, title: 'bob parent', field: null, reason: `not cancelled: open sub-items by others: ${kid.id}`}])
    expect(after(snap, cancel).tasks.get(made.id)!.meta).toMatchObject({status: 'cancelled', cancel_reason: "revert of eve's writes: spam"})
    const remove = revertActor(snap, ctx('ops', LATER), args(cards, {remove: true}))
    expect(remove.result.removed).toEqual([{id: made.id, title: 'junk'}])
    expect(remove.result.skipped[0]).toMatchObject({id: other.id, reason: expect.stringContaining(`its sub-item ${kid.id} stays`)})
    expect(after(snap, remove).tasks.has(made.id)).toBe(false)
  })

  it("releases the actor's live claim only with --force when someone else reverts; the actor's own revert needs none", () => {
    const x0 = task({title: 'X'})
    const lease = '2026-11-29T14:00:00.000Z'
    const x1: TaskMeta = {...x0, status: 'in_progress', owner: 'eve', epoch: 1, claimed_at: T0, lease_expires: lease, revision: 2, updated_by: 'eve'}
    const snap = snapshot([x1])
    const cards = [history(x0, [{actor: 'eve', meta: x1}])]
    const plain = revertActor(snap, ctx('ops', LATER), args(cards))
    expect(plain.changes).toEqual([])
    expect(plain.result.skipped[0]).toMatchObject({field: 'status', reason: expect.stringContaining('held live by eve')})
    const forced = revertActor(snap, ctx('ops', LATER, {force: {reason: 'rogue'}}), args(cards))
    expect(forced.result.released).toEqual([{id: x0.id, title: 'X', owner: 'eve'}])
    expect(forced.trailers).toContainEqual(['Tasks-Override', 'rogue'])
    expect(after(snap, forced).tasks.get(x0.id)!.meta).toMatchObject({status: 'todo', owner: undefined, epoch: 1})
    const own = revertActor(snap, ctx('eve', LATER), args(cards))
    expect(own.result.released).toHaveLength(1)
    expect(own.trailers.some(([k]) => k === 'Tasks-Override')).toBe(false)
    // A lapsed claim: reopened by anyone, its holder fenced out (epoch + 1).
    const lapsed = revertActor(snap, ctx('ops', '2026-11-29T15:00:00.000Z'), args(cards))
    expect(after(snap, lapsed).tasks.get(x0.id)!.meta).toMatchObject({status: 'todo', epoch: 2})
  })

  it('reopens a card the actor finished unless a done dependent or a finished parent forbids it', () => {
    const x0 = task({title: 'X'})
    const x1: TaskMeta = {...x0, status: 'done', owner: 'eve', epoch: 1, closed_at: T0, revision: 2, updated_by: 'eve'}
    const claimed = task({title: 'Y', depends_on: [x0.id], status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: '2026-11-29T18:00:00.000Z'})
    const cards = [history(x0, [{actor: 'eve', meta: x1}])]
    const ok = revertActor(snapshot([x1, claimed]), ctx('ops', LATER), args(cards))
    expect(ok.result.restored).toEqual([{id: x0.id, title: 'X', field: 'status', from: 'done', to: 'todo'}])
    expect(ok.result.notes[0]).toContain(`${claimed.id} (in_progress, held by bob) depends on ${x0.id}`)
    const doneDependent = {...claimed, status: 'done' as const}
    const no = revertActor(snapshot([x1, doneDependent]), ctx('ops', LATER), args(cards))
    expect(no.changes).toEqual([])
    expect(no.result.skipped[0]!.reason).toContain(`${claimed.id}, which depends on it, is done`)
    const parent = task({title: 'P', status: 'done'})
    const kid0 = task({title: 'K', parent: parent.id})
    const kid1: TaskMeta = {...kid0, status: 'done', owner: 'eve', revision: 2}
    const underDone = revertActor(snapshot([parent, kid1]), ctx('ops', LATER), args([history(kid0, [{actor: 'eve', meta: kid1}])]))
    expect(underDone.result.skipped[0]!.reason).toContain(`its parent ${parent.id} is done`)
  })

  it('skips a dependency on a card that is gone and a value of a declared type it no longer fits; a removed card points at restore', () => {
    const gone = 'tsk-0000000gone'
    const x0 = task({title: 'X', depends_on: [gone], fields: {size: 'big'}})
    const x1 = {...x0, depends_on: [], fields: {size: 3}, revision: 2, updated_by: 'eve'}
    const snap = snapshot([x1])
    snap.config.fields = {size: 'integer'}
    const plan = revertActor(snap, ctx('ops', LATER), args([history(x0, [{actor: 'eve', meta: x1}])]))
    expect(plan.result.skipped.map((s) => s.field)).toEqual(['depends_on', 'fields.size'])
    expect(plan.changes).toEqual([])
    const y0 = task({title: 'Y'})
    const removed = revertActor(snapshot([]), ctx('ops', LATER), args([history(y0, [{actor: 'eve', meta: null}])]))
    expect(removed.result.skipped[0]!.reason).toContain(`tasks restore ${y0.id}`)
  })

  it('uses the one comparison of field-changes for the description', () => {
    const x0 = task({title: 'X'})
    const x1 = {...x0, revision: 2, updated_by: 'eve'}
    const card = history(x0, [{actor: 'eve', meta: x1, body: 'vandalised\n'}])
    card.steps[0]!.before = {meta: x0, body: 'the plan\n'}
    const plan = revertActor(snapshot([x1]), ctx('ops', LATER), args([card]))
    expect(plan.changes).toEqual([{kind: 'put-task', meta: expect.objectContaining({id: x0.id, revision: 3}), body: 'the plan\n'}])
  })
})

describe('revertActor on a history with a card file that does not read', () => {
  it('an unreadable version is a wall: nothing is walked past it, and it never counts as a creation', () => {
    const x0 = task({title: 'X', priority: 2})
    const x1 = {...x0, priority: 0, revision: 2, updated_by: 'eve'}
    const x2 = {...x1, priority: 1, revision: 3}
    // eve 2→0 (read), then eve 0→1 at a commit whose earlier version does not read: without the wall the walk
    // would step over both of her changes and put 2 back.
    const card = history(x0, [{actor: 'eve', meta: x1}, {actor: 'eve', meta: x2}])
    const broken: RevertCard = {id: x0.id, steps: [card.steps[0]!, {...card.steps[1]!, before: null, unreadable: true}]}
    const plan = revertActor(snapshot([x2]), ctx('ops', LATER), args([broken]))
    expect(plan.changes).toEqual([])
    expect(plan.result.restored).toEqual([])
    expect(plan.result.cancelled).toEqual([])
    // The same history read whole: both changes go back.
    expect(revertActor(snapshot([x2]), ctx('ops', LATER), args([card])).result.restored).toEqual([expect.objectContaining({field: 'priority', from: 1, to: 2})])
  })
})

describe('revertActor and claims taken since', () => {
  it("a card the actor claimed and released, claimed since by someone else, is left with them (kept, by them)", () => {
    const x0 = task({title: 'X'})
    const lease = '2026-11-29T18:00:00.000Z'
    const x1: TaskMeta = {...x0, status: 'in_progress', owner: 'eve', epoch: 1, lease_expires: lease, revision: 2, updated_by: 'eve'}
    const x2: TaskMeta = {...x1, status: 'todo', owner: undefined, lease_expires: undefined, revision: 3}
    const x3: TaskMeta = {...x2, status: 'in_progress', owner: 'bob', epoch: 2, lease_expires: lease, revision: 4, updated_by: 'bob'}
    const plan = revertActor(snapshot([x3]), ctx('ops', LATER, {force: {reason: 'r'}}), args([history(x0, [{actor: 'eve', meta: x1}, {actor: 'eve', meta: x2}, {actor: 'bob', meta: x3}])]))
    expect(plan.changes).toEqual([])
    expect(plan.result.released).toEqual([])
    expect(plan.result.kept).toEqual([{id: x0.id, title: 'X', field: 'status', value: 'in_progress', set: 'todo', by: ['bob']}])
  })
})

describe('revertActor and a parent', () => {
  it('does not move an open card back under a parent that is finished now', () => {
    const p0 = task({title: 'P', status: 'done'})
    const x0 = task({title: 'X', parent: p0.id})
    const x1 = {...x0, parent: undefined, revision: 2, updated_by: 'eve'}
    const plan = revertActor(snapshot([p0, x1]), ctx('ops', LATER), args([history(x0, [{actor: 'eve', meta: x1}])]))
    expect(plan.changes).toEqual([])
    expect(plan.result.skipped).toEqual([{id: x0.id, title: 'X', field: 'parent', reason: `its parent ${p0.id} is done: a finished parent takes no open sub-item`}])
    const open = revertActor(snapshot([{...p0, status: 'todo'}, x1]), ctx('ops', LATER), args([history(x0, [{actor: 'eve', meta: x1}])]))
    expect(open.result.restored).toEqual([{id: x0.id, title: 'X', field: 'parent', from: null, to: p0.id}])
  })
})

describe('renderRevert', () => {
  it('cuts each line to the width before painting it: no colour code is cut or counted as width', async () => {
    const {renderRevert} = await import('../../src/render/revert')
    const {displayWidth} = await import('../../src/render/terminal')
    const id = 'tsk-aaaa000001'
    const long = 'a very long title that will not fit in forty columns at all'
    const r = {
      actor: 'eve', since: null, until: null, commits: 2, dry_run: false, commit: null, short_ids: {[id]: 'tsk-aaaa'},
      restored: [{id, title: long, field: 'title', from: long, to: 'short'}], released: [], cancelled: [{id, title: long}], removed: [], kept: [],
      skipped: [{id, title: long, field: 'status', reason: 'held live by bob: pass --force with a reason to release it'}], comments: [], checks: [], notes: [],
    }
    const text = renderRevert({color: true, width: 40}, r as never)
    // eslint-disable-next-line no-control-regex
    const codes = /\u001b\[\d+m/g
    for (const l of text.split('\n').filter(Boolean)) {
      expect(displayWidth(l.replace(codes, ''))).toBeLessThanOrEqual(40)
      // Every colour opened is closed, and no code is left half-written.
      expect((l.match(codes) ?? []).length % 2).toBe(0)
      expect(l.replace(codes, '')).not.toContain('\u001b')
    }
    expect(text).toContain('tsk-aaaa')
    expect(text).toContain('…')
  })
})

describe("revertActor and the rulebook's status moves", () => {
  it("defers again a card the actor reopened and claimed: its own claim freely, someone else's live one only with --force, a lapsed one fenced", () => {
    const x0 = task({title: 'X', status: 'deferred', defer_reason: 'later', updated_by: 'bob'})
    const x1: TaskMeta = {...x0, status: 'todo', defer_reason: undefined, revision: 2, updated_by: 'eve'}
    const lease = '2026-11-29T14:00:00.000Z'
    const x2: TaskMeta = {...x1, status: 'in_progress', owner: 'eve', epoch: 1, claimed_at: T0, lease_expires: lease, revision: 3}
    const snap = snapshot([x2])
    const cards = [history(x0, [{actor: 'eve', meta: x1}, {actor: 'eve', meta: x2}])]
    const own = revertActor(snap, ctx('eve', LATER), args(cards))
    expect(own.result.restored).toEqual([{id: x0.id, title: 'X', field: 'status', from: 'in_progress', to: 'deferred'}])
    expect(own.result.released).toEqual([{id: x0.id, title: 'X', owner: 'eve'}])
    expect(after(snap, own).tasks.get(x0.id)!.meta).toMatchObject({status: 'deferred', defer_reason: 'later', owner: undefined, lease_expires: undefined, epoch: 1})
    expect(own.trailers.some(([k]) => k === 'Tasks-Override')).toBe(false)
    const plain = revertActor(snap, ctx('ops', LATER), args(cards))
    expect(plain.changes).toEqual([])
    expect(plain.result.skipped).toEqual([{id: x0.id, title: 'X', field: 'status', reason: 'in_progress → deferred: held live by eve; pass --force --reason "…" to release the claim'}])
    const forced = revertActor(snap, ctx('ops', LATER, {force: {reason: 'rogue'}}), args(cards))
    expect(after(snap, forced).tasks.get(x0.id)!.meta).toMatchObject({status: 'deferred', owner: undefined, epoch: 1})
    expect(forced.trailers).toContainEqual(['Tasks-Override', 'rogue'])
    const lapsed = revertActor(snap, ctx('ops', '2026-11-29T15:00:00.000Z'), args(cards))
    expect(after(snap, lapsed).tasks.get(x0.id)!.meta).toMatchObject({status: 'deferred', owner: undefined, epoch: 2})
    expect(lapsed.trailers.some(([k]) => k === 'Tasks-Override')).toBe(false)
  })

  it('never finishes a card, never leaves cancelled', () => {
    const x0 = task({title: 'X', status: 'done', owner: 'bob', closed_at: T0})
    const x1: TaskMeta = {...x0, status: 'todo', owner: undefined, closed_at: undefined, revision: 2, updated_by: 'eve'}
    const reopened = revertActor(snapshot([x1]), ctx('ops', LATER), args([history(x0, [{actor: 'eve', meta: x1}])]))
    expect(reopened.changes).toEqual([])
    expect(reopened.result.skipped).toEqual([{id: x0.id, title: 'X', field: 'status', reason: 'todo → done: a revert does not finish a card: `tasks done` judges its checks and sub-items'}])
    const y0 = task({title: 'Y'})
    const y1: TaskMeta = {...y0, status: 'cancelled', cancel_reason: 'no', closed_at: T0, revision: 2, updated_by: 'eve'}
    const cancelled = revertActor(snapshot([y1]), ctx('ops', LATER), args([history(y0, [{actor: 'eve', meta: y1}])]))
    expect(cancelled.changes).toEqual([])
    expect(cancelled.result.skipped).toEqual([{id: y0.id, title: 'Y', field: 'status', reason: 'cancelled → todo: cancelled is final: no move of the rulebook leaves it'}])
  })
})

describe('revertActor and the dependency graph', () => {
  it('judges a cycle across the whole revert: the second of two restorations that would close one is skipped', () => {
    const x0 = task({title: 'X'})
    const y0 = task({title: 'Y'})
    x0.depends_on = [y0.id]
    // eve drops X → Y; bob adds Y → X; eve drops Y → X. Putting both back would make X → Y → X.
    const x1 = {...x0, depends_on: [], revision: 2, updated_by: 'eve'}
    const y1 = {...y0, depends_on: [x0.id], revision: 2, updated_by: 'bob'}
    const y2 = {...y1, depends_on: [], revision: 3, updated_by: 'eve'}
    const cards = [history(x0, [{actor: 'eve', meta: x1}]), history(y0, [{actor: 'bob', meta: y1}, {actor: 'eve', meta: y2}])]
    const plan = revertActor(snapshot([x1, y2]), ctx('ops', LATER), args(cards))
    expect(plan.result.restored).toEqual([{id: x0.id, title: 'X', field: 'depends_on', from: [], to: [y0.id]}])
    expect(plan.result.skipped).toEqual([{id: y0.id, title: 'Y', field: 'depends_on', reason: 'those dependencies would make a cycle now'}])
  })

  it('--remove keeps a created card something outside the removal depends on, and then what that one depends on', () => {
    const a = task({title: 'A', created_by: 'eve'})
    const b = task({title: 'B', created_by: 'eve', depends_on: [a.id]})
    const c = task({title: 'C', created_by: 'bob', depends_on: [b.id]})
    const made = task({title: 'junk', created_by: 'eve'})
    const snap = snapshot([a, b, c, made])
    const cards = [a, b, made].map((m) => history(null, [{actor: 'eve', meta: m}]))
    const plan = revertActor(snap, ctx('ops', LATER), args(cards, {remove: true}))
    expect(plan.result.removed).toEqual([{id: made.id, title: 'junk'}])
    expect(plan.result.skipped).toEqual([
      {id: b.id, title: 'B', field: null, reason: `not removed: ${c.id} depends on it (without --remove it is cancelled)`},
      {id: a.id, title: 'A', field: null, reason: `not removed: ${b.id} depends on it (without --remove it is cancelled)`},
    ])
  })
})
