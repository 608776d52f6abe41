/**
 * Plan merge on real git, in-process (issue 34): seeded random work on a
 * plan and, meanwhile, on the live list it was forked from (edits of
 * titles, priorities, tags and descriptions, new cards, claims and
 * releases on both), then `plan merge` through the use case. For every
 * card: a field only one side changed has that side's value; a field both
 * changed has one of the two, the other kept (a text as a comment on the
 * card, any other value in a note); the target's owner, epoch and lease are
 * as they were before the merge; plan.yaml does not land; the invariants
 * hold; and the guard (`verify`, in-process) accepts the range.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {Session} from '../../src/app/session'
import * as cards from '../../src/app/card-actions'
import * as claims from '../../src/app/claim-actions'
import * as plans from '../../src/app/plan-actions'
import {TasksError} from '../../src/core/errors'
import {cardChanges} from '../../src/core/field-changes'
import {checkInvariants} from '../../src/merge/index'
import {CLAIM_UNIT} from '../../src/merge/task-merge'
import {HOLDER_FIELDS} from '../../src/merge/plan-land'
import {verify} from '../../src/hooks/verify'
import type {Snapshot} from '../../src/core/snapshot'
import {cleanupAll, gitSync} from '../helpers/cli'
import {initializedRepo, seededRandom} from '../helpers/list-repo'

afterAll(() => cleanupAll())

const open = (cwd: string, list: string, as: string) => Session.open({cwd, list, as, offline: true})

async function versions(s: Session, commit: string): Promise<{snap: Snapshot; body: (id: string) => Promise<{body: string; comments: string[]}>}> {
  const snap = (await s.store.loadCommit(commit, false)).snapshot
  return {snap, body: async (id) => {
    const d = await s.store.readDetail(commit, id)
    return {body: d.body, comments: d.comments.map((c) => c.body)}
  }}
}

describe('plan merge on real git, random work on both sides (seeded)', {timeout: 240_000}, () => {
  it('6 seeds: no field change or text lost, claims untouched, invariants hold, the guard accepts', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const r = seededRandom(seed * 104729)
      const cwd = await initializedRepo()
      const lead = await open(cwd, 'main', 'lead')
      const planner = await open(cwd, 'q3', 'planner')
      const agent = await open(cwd, 'main', 'agent-1')
      try {
        const ids: string[] = []
        for (let i = 0; i < 5; i++) ids.push((await cards.add(lead, {title: `Card ${i}`, body: 'one\ntwo\nthree'})).task.id)
        // A session is one command's: each step reads the ref afresh, as a new process would.
        await agent.store.refreshTip()
        await claims.claim(agent, {id: ids[0]!})
        const started = await plans.start(lead, {name: 'q3'})
        const step = async (s: Session, side: string, n: number) => {
          const id = r.pick(ids)!
          await s.store.refreshTip()
          try {
            switch (r.rand(6)) {
              case 0: return void (await cards.edit(s, {id, title: `Card ${id.slice(-4)} by ${side} ${n}`}))
              case 1: return void (await cards.edit(s, {id, priority: r.rand(5)}))
              case 2: return void (await cards.edit(s, {id, addTags: [`${side}-${r.rand(3)}`]}))
              case 3: return void (await cards.edit(s, {id, body: `one\n${side} wrote ${n}\nthree`}))
              case 4: return void (await claims.claim(s, {id}))
              default: return void (await cards.add(s, {title: `New on ${side} ${n}`, tags: [side]}))
            }
          } catch (e) {
            // A refusal (someone holds it, nothing changed) is part of the game.
            if (!(e instanceof TasksError)) throw e
          }
        }
        for (let n = 0; n < 16; n++) await (r.rand(2) ? step(planner, 'plan', n) : step(agent, 'live', n))
        const base = await versions(lead, started.base)
        const targetTip = (await lead.store.refreshTip())!
        const target = await versions(lead, targetTip)
        const plan = await versions(lead, (await planner.store.refreshTip())!)

        await lead.store.refreshTip()
        const merged = await plans.merge(lead, {name: 'q3'})
        const where = `seed ${seed}`
        expect(merged.action, where).toBe('merged')
        const after = await versions(lead, merged.commit)
        expect(gitSync(cwd, ['ls-tree', '--name-only', merged.commit]).split('\n'), where).not.toContain('plan.yaml')
        expect(checkInvariants(after.snap), where).toEqual([])
        const judged = await verify(cwd, targetTip, merged.commit, 'refs/tasks/main')
        expect(judged.refusals, where).toEqual([])

        for (const id of new Set([...target.snap.tasks.keys(), ...plan.snap.tasks.keys()])) {
          const card = async (v: typeof base) => {
            const meta = v.snap.tasks.get(id)?.meta
            return meta ? {meta, body: (await v.body(id)).body} : null
          }
          const [b, p, t, m] = [await card(base), await card(plan), await card(target), await card(after)]
          expect(m, `${where} ${id} is on the target`).not.toBeNull()
          const texts = [m!.body, m!.meta.title, ...(await after.body(id)).comments].join('\n')
          // Claims: every holder field as the target had it before the merge.
          if (t) for (const k of HOLDER_FIELDS) expect(m!.meta[k], `${where} ${id} ${k}`).toEqual(t.meta[k])
          const changed = (x: typeof b) => new Map(cardChanges(b, x).map((c) => [c.field, c.after]))
          const byPlan = changed(p)
          const byTarget = changed(t)
          const now = new Map(cardChanges(null, m).map((c) => [c.field, c.after]))
          for (const [field, value] of byPlan) {
            if ((CLAIM_UNIT as readonly string[]).includes(field) || ['created_at', 'created_by'].includes(field)) continue
            if (field === 'tags') continue // sets: checked below
            if (!byTarget.has(field)) expect(now.get(field), `${where} ${id} ${field} (plan's)`).toEqual(value)
            else if (JSON.stringify(byTarget.get(field)) !== JSON.stringify(value)) {
              expect([value, byTarget.get(field)], `${where} ${id} ${field} (both)`).toContainEqual(now.get(field))
              const loser = JSON.stringify(now.get(field)) === JSON.stringify(value) ? byTarget.get(field) : value
              if (field === 'title' || field === 'description') for (const line of String(loser).split('\n')) expect(texts, `${where} ${id} lost ${field}`).toContain(line)
              else expect(merged.notes.some((n) => n.kind === 'field_conflict' && n.task === id && n.field === field), `${where} ${id} ${field} noted`).toBe(true)
            }
          }
          for (const [field, value] of byTarget) {
            if (byPlan.has(field) || field === 'tags' || ['created_at', 'created_by'].includes(field)) continue
            expect(now.get(field), `${where} ${id} ${field} (target's)`).toEqual(value)
          }
          for (const side of [p, t]) for (const tag of side?.meta.tags ?? []) if (!b?.meta.tags.includes(tag)) expect(m!.meta.tags, `${where} ${id} tag ${tag}`).toContain(tag)
        }
      } finally {
        for (const s of [lead, planner, agent]) s.store.close()
      }
    }
  })
})
