/**
 * Plans merged back (issue 34), the pure part: how a plan's card lands
 * (merge/plan-land.ts) and the property that matters, on random edits of
 * both sides from a seeded generator: the landed plan merged into the
 * target by the merge engine (mergeTask, published = the target) never
 * loses a field change or a text, never changes a claim or an epoch on the
 * target, and the reconciler leaves a list whose invariants hold.
 */
import {describe, expect, it} from 'vitest'
import {withChanges} from '../../src/core/apply'
import type {TaskMeta} from '../../src/core/task'
import {checkInvariants, mergeTask, reconcile} from '../../src/merge/index'
import {HOLDER_FIELDS, landPlanCard, liveHeld, sameCard} from '../../src/merge/plan-land'
import {seededRandom} from '../helpers/list-repo'
import {PLAN_PATH, parsePlanFile, serialisePlanFile} from '../../src/core/plan-marker'
import {type CommitView, judgePlanFile} from '../../src/hooks/judges'
import {T0, snapshot, task} from '../helpers/snapshot'

const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString()
const edit = (m: TaskMeta, who: string, when: string, patch: Partial<TaskMeta>): TaskMeta => ({...m, ...patch, revision: m.revision + 1, updated_at: when, updated_by: who})
const held = (m: TaskMeta, owner: string, when: string): TaskMeta => ({...m, status: 'in_progress', owner, epoch: m.epoch + 1, claimed_at: when, lease_expires: at(600)})

describe('landPlanCard', () => {
  const base = task({id: 'tsk-aaaaaaaaaa', title: 'Base'})
  it('leaves a plan that did not move the card as it is', () => {
    const plan = edit(base, 'planner', at(1), {title: 'Renamed'})
    expect(landPlanCard(base, plan, base)).toEqual({meta: plan, note: null})
  })
  it('lands a cancel of a card nobody holds, with the target\'s holder fields', () => {
    const plan = edit(base, 'planner', at(1), {status: 'cancelled', cancel_reason: 'obsolete', closed_at: at(1)})
    const r = landPlanCard(base, plan, base)
    expect(r.note).toBeNull()
    expect(r.meta).toMatchObject({status: 'cancelled', cancel_reason: 'obsolete', epoch: 0})
  })
  it('never lands a claim made on the plan', () => {
    const plan = held(edit(base, 'planner', at(1), {title: 'Also renamed'}), 'planner', at(1))
    const r = landPlanCard(base, plan, base)
    expect(r.meta).toMatchObject({status: 'todo', epoch: 0, title: 'Also renamed'})
    expect(r.meta.owner).toBeUndefined()
    expect(r.note?.message).toContain('a plan does not hand out claims')
  })
  it('keeps the target\'s live claim when the plan cancels the card', () => {
    const target = held(edit(base, 'agent-7', at(2), {}), 'agent-7', at(2))
    const plan = edit(base, 'planner', at(1), {status: 'cancelled', cancel_reason: 'obsolete', closed_at: at(1)})
    const r = landPlanCard(base, plan, target)
    expect(r.meta.status).toBe('todo')
    expect(r.meta.cancel_reason).toBeUndefined()
    expect(r.note?.message).toContain('in_progress held by agent-7')
  })
  it('puts a card whose only plan change was a claim and its release back to the fork point\'s (no change at all)', () => {
    const claimed = held(edit(base, 'planner', at(1), {}), 'planner', at(1))
    const released = edit(claimed, 'planner', at(2), {status: 'todo', owner: undefined, claimed_at: undefined, lease_expires: undefined})
    const r = landPlanCard(base, released, base)
    expect(sameCard(r.meta, base)).toBe(true)
  })
})

const TITLES = ['Write the spec', 'Ship it', 'Fix the bug', 'Review', 'Plan Q3', 'Migrate']
const TAGS = ['a', 'b', 'c', 'd']
const LINES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon']

interface Card {
  meta: TaskMeta
  body: string
}

/** Random edits of one side: fields, description lines, tags, dependencies, and lifecycle moves. */
function editSide(r: ReturnType<typeof seededRandom>, c: Card, who: string, when: string, ids: string[], side: 'plan' | 'target'): Card {
  let meta = c.meta
  let body = c.body
  const n = r.rand(4)
  for (let i = 0; i < n; i++) {
    switch (r.rand(7)) {
      case 0: meta = edit(meta, who, when, {title: `${r.pick(TITLES)} (${side} ${r.rand(100)})`}); break
      case 1: meta = edit(meta, who, when, {priority: (r.rand(4) + 1) as TaskMeta['priority']}); break
      case 2: {
        const t = r.pick(TAGS)!
        meta = edit(meta, who, when, {tags: meta.tags.includes(t) ? meta.tags.filter((x) => x !== t) : [...meta.tags, t].sort()})
        break
      }
      case 3: {
        const lines = body.split('\n')
        lines[r.rand(lines.length)] = `${r.pick(LINES)} by ${side} ${r.rand(1000)}`
        body = lines.join('\n')
        meta = edit(meta, who, when, {})
        break
      }
      case 4: {
        const d = r.pick(ids.filter((x) => x !== meta.id))
        // As the ops allow: a dependency is added to an open card only.
        if (d && meta.status === 'todo' && !meta.depends_on.includes(d)) meta = edit(meta, who, when, {depends_on: [...meta.depends_on, d].sort()})
        break
      }
      case 5: meta = edit(meta, who, when, {assignee: r.pick(['ann', 'bo', 'cy'])}); break
      default: {
        // A lifecycle move: the plan's planner claims or cancels; on the target an agent claims, releases or finishes.
        const kind = r.rand(3)
        if (side === 'plan') {
          if (kind === 0 && !liveHeld(meta)) meta = held(edit(meta, who, when, {}), who, when)
          else if (kind === 1 && !liveHeld(meta) && meta.status === 'todo') meta = edit(meta, who, when, {status: 'cancelled', cancel_reason: 'not in the plan', closed_at: when})
        } else if (kind === 0 && meta.status === 'todo') meta = held(edit(meta, who, when, {}), who, when)
        else if (kind === 1 && meta.status === 'in_progress') meta = edit(meta, who, when, {status: 'todo', owner: undefined, claimed_at: undefined, lease_expires: undefined})
        else if (kind === 2 && meta.status === 'in_progress' && meta.depends_on.length === 0) meta = edit(meta, who, when, {status: 'done', closed_at: when, lease_expires: undefined})
      }
    }
  }
  return {meta, body}
}

const added = (from: string, to: string) => to.split('\n').filter((l) => !from.split('\n').includes(l))

describe('plan merge, property: random edits of the plan and of the live target (seeded)', () => {
  it('30 random plans: no field change or text lost, claims and epochs of the target untouched, invariants hold after the reconciler', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = seededRandom(seed * 7919)
      const ids = Array.from({length: 6}, (_, i) => `tsk-${String(seed).padStart(4, '0')}${String(i).padStart(6, '0')}`)
      const base: Card[] = ids.map((id, i) => {
        const meta = task({id, title: TITLES[i]!, depends_on: i > 0 && r.rand(2) ? [ids[r.rand(i)]!] : [], tags: [TAGS[r.rand(4)]!]})
        return {meta: i % 3 === 0 ? held(meta, 'agent-1', T0) : meta, body: 'alpha\nbeta\ngamma'}
      })
      // The plan edits at one time, the target at another (either may be the later one).
      const [tp, tt] = r.rand(2) ? [at(5), at(9)] : [at(9), at(5)]
      const plan = base.map((c) => editSide(r, c, 'planner', tp, ids, 'plan'))
      const target = base.map((c) => editSide(r, c, 'agent-2', tt, ids, 'target'))
      const now = at(20)
      const merged: TaskMeta[] = []
      const landedSide: TaskMeta[] = []
      for (let i = 0; i < ids.length; i++) {
        const b = base[i]!, p = plan[i]!, t = target[i]!
        const landed = landPlanCard(b.meta, p.meta, t.meta)
        const m = mergeTask(b, {meta: landed.meta, body: p.body}, t, {now, published: 'theirs'})
        const where = `seed ${seed}, ${ids[i]}`
        const texts = [m.body, m.meta.title, ...m.comments.map((c) => c.body)].join('\n')
        // Claims: the holder's fields are the target's, always; a card held on the target keeps its status.
        for (const k of HOLDER_FIELDS) expect(m.meta[k], `${where}: ${k}`).toEqual(t.meta[k])
        if (liveHeld(t.meta)) expect(m.meta.status, where).toBe(t.meta.status)
        // Scalars: a change of one side lands; both changed: one kept, the other in a note.
        for (const k of ['title', 'priority', 'assignee'] as const) {
          const pc = p.meta[k] !== b.meta[k]
          const tc = t.meta[k] !== b.meta[k]
          if (pc && !tc) expect(m.meta[k], `${where}: ${k}`).toEqual(p.meta[k])
          else if (tc && !pc) expect(m.meta[k], `${where}: ${k}`).toEqual(t.meta[k])
          else if (pc && tc && p.meta[k] !== t.meta[k]) {
            expect([p.meta[k], t.meta[k]], `${where}: ${k}`).toContainEqual(m.meta[k])
            const loser = m.meta[k] === p.meta[k] ? t.meta[k] : p.meta[k]
            if (k === 'title') expect(texts, `${where}: the losing title`).toContain(String(loser))
            else expect(m.notes.some((n) => n.kind === 'field_conflict' && n.field === k && n.dropped === (loser ?? null)), `${where}: ${k} dropped in a note`).toBe(true)
          }
        }
        // Sets: every addition of either side is in, every removal of either side is out.
        for (const [k, side] of [['tags', p], ['tags', t], ['depends_on', p], ['depends_on', t]] as const) {
          for (const x of side.meta[k]) if (!b.meta[k].includes(x)) expect(m.meta[k], `${where}: ${k} + ${x}`).toContain(x)
          for (const x of b.meta[k]) if (!side.meta[k].includes(x)) expect(m.meta[k], `${where}: ${k} - ${x}`).not.toContain(x)
        }
        // Texts: every line either side typed is in the description or in a comment.
        for (const line of [...added(b.body, p.body), ...added(b.body, t.body)]) expect(texts, `${where}: line "${line}"`).toContain(line)
        // A plan's cancel of a card nobody touched on the target lands.
        if (p.meta.status === 'cancelled' && landed.note === null) expect(m.meta.status, where).toBe('cancelled')
        merged.push(m.meta)
        landedSide.push(landed.meta)
      }
      // New cards of the plan, depending on cards of the list: they land as they are.
      const fresh = Array.from({length: r.rand(3)}, (_, j) => task({id: `tsk-${String(seed).padStart(4, '0')}9999${j}0`, depends_on: [ids[r.rand(ids.length)]!], created_by: 'planner'}))
      const snap = snapshot([...merged, ...fresh])
      // As sync runs it: judged against both sides, around what the merge changed.
      const rec = reconcile(snap, {now, before: [snapshot([...landedSide, ...fresh]), snapshot(target.map((c) => c.meta))], changed: [...snap.tasks.keys()]})
      const repaired = withChanges(snap, rec.changes)
      expect(checkInvariants(repaired), `seed ${seed}`).toEqual([])
      // The reconciler's repairs do not take a live claim either.
      for (let i = 0; i < ids.length; i++) {
        const t = target[i]!.meta
        if (!liveHeld(t)) continue
        const after = repaired.tasks.get(ids[i]!)!.meta!
        expect({owner: after.owner, epoch: after.epoch}, `seed ${seed}, ${ids[i]} after the reconciler`).toEqual({owner: t.owner, epoch: t.epoch})
      }
    }
  })
})

describe('the guard on plan.yaml', () => {
  const BASE = 'a'.repeat(40)
  const text = serialisePlanFile({plan: 'q3', from: 'main', base: BASE, created_by: 'lead', created_at: T0})
  // The plan's first commit, judged on the list `list` (the plan q3 unless said); `madeOn`: the list a plan's merge says it was made on.
  const commit = (parent: string, list = 'q3', madeOn?: string): CommitView =>
    ({facts: {actor: 'lead', op: 'plan_start', time: T0, override: null}, before: {...snapshot([]), list, commit: parent}, after: {...snapshot([]), list}, canonical: 'lead', removed: new Set(), undoBase: null, undoes: null, finishing: new Map(), ...(madeOn ? {list: madeOn} : {})}) as unknown as CommitView
  const judge = (before: string | null, now: string | null, parent = BASE, list?: string, madeOn?: string) => judgePlanFile({path: PLAN_PATH, before, after: now, commit: commit(parent, list, madeOn)})
  const rules = (before: string | null, now: string | null, parent = BASE) => judge(before, now, parent).map((r) => r.rule)
  it('accepts the marker on its fork point; refuses another parent, a rewrite, a removal, a bad file', () => {
    expect(parsePlanFile(text)).toEqual({ok: true, value: {plan: 'q3', from: 'main', base: BASE, created_by: 'lead', created_at: T0}})
    expect(rules(null, text)).toEqual([])
    expect(rules(null, text, 'b'.repeat(40))).toEqual(['schema'])
    expect(rules(text, text.replace('main', 'other'))).toEqual(['plan_rewritten'])
    expect(rules(text, null)).toEqual(['plan_rewritten'])
    expect(rules(null, 'plan: 1\n')).toEqual(['schema'])
  })
  it('refuses a marker that names another list than the one it is on; a plan\'s commit its merge brings to the target is on the plan', () => {
    expect(judge(null, text, BASE, 'q4')).toEqual([{rule: 'schema', message: 'plan.yaml names the plan "q3", but it is on the list "q4"'}])
    expect(judge(null, text.replace('plan: "q3"', 'plan: "q4"'))).toEqual([{rule: 'schema', message: 'plan.yaml names the plan "q4", but it is on the list "q3"'}])
    // Judged in main's history (pushed with the plan's merge): made on the plan the merge names.
    expect(judge(null, text, BASE, 'main', 'q3')).toEqual([])
    expect(judge(null, text, BASE, 'main')).toEqual([{rule: 'schema', message: 'plan.yaml names the plan "q3", but it is on the list "main"'}])
    expect(judge(null, text, BASE, 'main', 'q4').map((r) => r.rule)).toEqual(['schema'])
  })
})
