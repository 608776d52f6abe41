/**
 * The recipient rule (src/core/notify.ts), the role ops, the actor and ack
 * ops, and stale/remind, as pure functions: who hears of each change under
 * each of the three layers, never the actor, aliases folded; digests once
 * per cadence and escalations once per streak.
 */
import {describe, expect, it} from 'vitest'
import {type ActorEntry, type ReminderLatch, parseActor, parseLatch, parseRecord, recordPath, actorSlug} from '../../src/core/inbox'
import {canonicalActor, inboxChanges, lastSeenChange, namesToResolve, recipientsOf} from '../../src/core/notify'
import {ackRecords, aliasActor} from '../../src/core/ops/actors'
import {addComment} from '../../src/core/ops/comment'
import {assignTask} from '../../src/core/ops/edit'
import {claimTask} from '../../src/core/ops/claim'
import {finishTask} from '../../src/core/ops/lifecycle'
import {remind, staleGroups} from '../../src/core/ops/remind'
import {changeCollaborator, changeWatch, setCardNotify} from '../../src/core/ops/roles'
import type {Plan} from '../../src/core/plan'
import {mergeFiles} from '../../src/merge/index'
import {T0, after, ctx, snapshot, task} from '../helpers/snapshot'

const reg = (...entries: ActorEntry[]): Map<string, ActorEntry> => new Map(entries.map((e) => [e.id, e]))
const to = (plan: Plan<unknown>, snap = snap0, actor = 'zed', registry = reg()): string[] => recipientsOf(plan, snap, ctx(actor), registry).map((r) => r.to)

const card = task({id: 'tsk-aaaaaaaaaa', created_by: 'carol', owner: 'olga', status: 'in_progress', epoch: 1, claimed_at: T0, lease_expires: '2026-11-29T13:00:00.000Z', assignee: 'olga', collaborators: ['cole'], subscribers: ['sue']})
const snap0 = snapshot([card])

describe('recipients: layer 1, the list', () => {
  it('a comment reaches owner, assignee, collaborators and subscribers, never the actor or the creator', () => {
    const plan = addComment(snap0, ctx('zed'), {id: card.id, text: 'hi'})
    expect(to(plan)).toEqual(['cole', 'olga', 'sue'])
    // The commenter is a collaborator: not told of their own comment.
    expect(to(addComment(snap0, ctx('cole'), {id: card.id, text: 'hi'}), snap0, 'cole')).toEqual(['olga', 'sue'])
  })

  it('done reaches the creator, collaborators and subscribers', () => {
    const plan = finishTask(snap0, ctx('olga'), {id: card.id})
    expect(to(plan, snap0, 'olga')).toEqual(['carol', 'cole', 'sue'])
  })

  it('assign reaches the old and the new assignee', () => {
    const plan = assignTask(snap0, ctx('carol'), {id: card.id, assignee: 'ann'})
    expect(to(plan, snap0, 'carol')).toEqual(['ann', 'olga'])
  })

  it('a takeover tells the displaced owner', () => {
    const later = '2026-11-29T15:00:00.000Z'
    const snap = snapshot([{...card, assignee: undefined}])
    const plan = claimTask(snap, ctx('tim', later), {id: card.id})
    expect(recipientsOf(plan, snap, ctx('tim', later), reg()).map((r) => r.to)).toEqual(['olga', 'sue'])
  })

  it('config rules replace the built-in ones; * covers ops nobody named (a later op such as check)', () => {
    const snap = {...snap0, config: {...snap0.config, notify: {comment: ['creator'], '*': ['subscribers']}}}
    expect(to(addComment(snap, ctx('zed'), {id: card.id, text: 'x'}), snap)).toEqual(['carol'])
    const future: Plan<null> = {op: 'check', subject: {id: card.id, title: card.title}, changes: [{kind: 'put-task', meta: {...card, revision: 2}}], trailers: [], result: null}
    expect(to(future, snap)).toEqual(['sue'])
    expect(to(future)).toEqual(['cole', 'olga', 'sue'])
  })

  it('a change that touches no card (config, ack) tells nobody', () => {
    expect(to(ackRecords(snap0, ctx('olga'), {actor: 'olga', stems: ['20261129T120000.000Z-00000000']}))).toEqual([])
  })
})

describe('recipients: layer 2, the person', () => {
  const plan = addComment(snap0, ctx('zed'), {id: card.id, text: 'hi'})
  it('mute drops an event for that person', () => {
    expect(to(plan, snap0, 'zed', reg({id: 'sue', mute: ['comment']}))).toEqual(['cole', 'olga'])
    expect(to(plan, snap0, 'zed', reg({id: 'sue', mute: ['*']}))).toEqual(['cole', 'olga'])
  })
  it('watch adds an event on cards where they hold any role', () => {
    const done = finishTask(snap0, ctx('olga'), {id: card.id})
    expect(to(done, snap0, 'olga')).not.toContain('olga')
    const claimed = claimTask(snapshot([{...card, status: 'todo', owner: undefined, assignee: undefined}]), ctx('tim'), {id: card.id})
    expect(to(claimed, snapshot([{...card, status: 'todo', owner: undefined, assignee: undefined}]), 'tim', reg({id: 'carol', watch: ['claim']}))).toContain('carol')
  })
  it('aliases fold: one record for one person, and the actor under another name is still the actor', () => {
    const registry = reg({id: 'olga-session', alias_of: 'olga'}, {id: 'sue@example.com', alias_of: 'sue'})
    const snap = snapshot([{...card, owner: 'olga-session', subscribers: ['sue', 'sue@example.com']}])
    const p = addComment(snap, ctx('olga'), {id: card.id, text: 'x'})
    expect(to(p, snap, 'olga', registry)).toEqual(['cole', 'sue'])
    expect(canonicalActor('olga-session', registry)).toBe('olga')
    expect(namesToResolve(p, snap, ctx('olga'))).toEqual(expect.arrayContaining(['olga', 'olga-session', 'sue@example.com', 'carol']))
  })
})

describe('recipients: layer 3, the card', () => {
  it('notify_roles replaces the list, per event first', () => {
    const snap = snapshot([{...card, notify_roles: ['comment:creator', 'owner']}])
    expect(to(addComment(snap, ctx('zed'), {id: card.id, text: 'x'}), snap)).toEqual(['carol'])
    expect(to(assignTask(snap, ctx('zed'), {id: card.id, assignee: 'ann'}), snap)).toEqual(['olga'])
  })
  it('notify_mute beats every role and every watch', () => {
    const snap = snapshot([{...card, notify_mute: ['sue', 'olga']}])
    expect(to(addComment(snap, ctx('zed'), {id: card.id, text: 'x'}), snap, 'zed', reg({id: 'olga', watch: ['comment']}))).toEqual(['cole'])
  })
})

describe('inbox records and last_seen', () => {
  it('one record per recipient in the same plan, parsable, listing the cards; last_seen once a minute', () => {
    const c = ctx('zed')
    const plan = addComment(snap0, c, {id: card.id, text: 'hello'})
    const changes = inboxChanges(plan, snap0, c, reg())
    const records = changes.filter((ch) => ch.kind === 'put-file' && ch.path.startsWith('inbox/'))
    expect(records.map((r) => (r as {path: string}).path.split('/')[1])).toEqual(['cole', 'olga', 'sue'])
    const r = records[0] as {path: string; content: string}
    const parsed = parseRecord(r.content, r.path.split('/')[2]!.slice(0, -3))
    expect(parsed.ok && parsed.value).toMatchObject({event: 'comment', task: card.id, actor: 'zed', to: 'cole', roles: ['collaborators']})
    expect(parsed.ok && parsed.value.body).toContain('> hello')
    expect(changes.some((ch) => ch.kind === 'put-file' && ch.path === 'actors/zed.yaml')).toBe(true)
    expect(lastSeenChange([], 'zed', T0, reg({id: 'zed', last_seen: '2026-11-29T11:59:30.000Z'}))).toBeNull()
    const moved = lastSeenChange([], 'zed', T0, reg({id: 'zed', last_seen: '2026-11-29T11:58:00.000Z', mute: ['heartbeat']}))
    expect(moved && moved.kind === 'put-file' && parseActor(moved.content)).toEqual({ok: true, value: {id: 'zed', mute: ['heartbeat'], last_seen: T0}})
  })

  it('is linear in the cards a plan touches: one record for a person on 20,000 cards costs about ten times 2,000', () => {
    // An import names one owner on every card: the record lists them all, and building it must not search the list per card.
    const planOf = (n: number): {plan: Plan<unknown>; snap: ReturnType<typeof snapshot>} => {
      const cards = Array.from({length: n}, (_, i) => task({id: `tsk-${String(i).padStart(10, '0')}`, owner: 'olga', created_by: 'carol'}))
      const snap = snapshot([])
      return {snap, plan: {op: 'import', changes: cards.map((meta) => ({kind: 'put-task' as const, meta})), result: null, message: 'import'} as unknown as Plan<unknown>}
    }
    const small = planOf(2_000)
    const large = planOf(20_000)
    const t0 = performance.now()
    const few = inboxChanges(small.plan, small.snap, ctx('zed'), reg())
    const t1 = performance.now()
    const many = inboxChanges(large.plan, large.snap, ctx('zed'), reg())
    const t2 = performance.now()
    const record = many.find((ch) => ch.kind === 'put-file' && ch.path.startsWith('inbox/olga/')) as {path: string; content: string}
    const parsed = parseRecord(record.content, record.path.split('/')[2]!.slice(0, -3))
    expect(parsed.ok && parsed.value.tasks).toHaveLength(20_000)
    expect(parsed.ok && parsed.value.body).toContain('20000 cards')
    expect(few.length).toBe(many.length)
    // Ten times the cards: linear work is ~10x; the search it replaced made this ~100x. A ratio in one run, not a timing.
    expect((t2 - t1) / Math.max(t1 - t0, 1)).toBeLessThan(40)
  })

  it('odd actor names get a hashed path component', () => {
    expect(actorSlug('alice@example.com')).toBe('alice@example.com')
    expect(actorSlug('a/b c')).toMatch(/^~[0-9a-f]{32}$/)
    expect(recordPath('../x', 's')).not.toContain('..')
  })
})

describe('role ops', () => {
  it('collab, watch, unwatch --mute and notify are sets, absent when empty; a repeat changes nothing', () => {
    const t = task({id: 'tsk-bbbbbbbbbb'})
    let snap = snapshot([t])
    const add = changeCollaborator(snap, ctx('alice'), {id: t.id, actor: 'bob'})
    snap = after(snap, add)
    expect(changeCollaborator(snap, ctx('alice'), {id: t.id, actor: 'bob'}).changes).toEqual([])
    const rm = changeCollaborator(snap, ctx('alice'), {id: t.id, actor: 'bob', remove: true})
    expect('collaborators' in (rm.result.task as object) && rm.result.task.collaborators).toBeFalsy()
    snap = after(snap, changeWatch(snap, ctx('sue'), {id: t.id, watch: true}))
    const muted = changeWatch(snap, ctx('sue'), {id: t.id, watch: false, mute: true})
    expect(muted.result.task.subscribers).toBeUndefined()
    expect(muted.result.task.notify_mute).toEqual(['sue'])
    expect(() => setCardNotify(snap, ctx('alice'), {id: t.id, rules: ['comment:boss']})).toThrow(/not a notify rule/)
    expect(setCardNotify(snap, ctx('alice'), {id: t.id, rules: ['comment:owner,done:creator']}).result.task.notify_roles).toEqual(['comment:owner', 'done:creator'])
  })

  it('an alias cannot point at an alias or take a name that has aliases', () => {
    const entries = reg({id: 's1', alias_of: 'bob'})
    expect(() => aliasActor(snap0, ctx('x'), {id: 'alice', alias: 's1', entries, aliasesOfAlias: []})).toThrow(/already an alias of bob/)
    expect(() => aliasActor(snap0, ctx('x'), {id: 'alice', alias: 'bob', entries, aliasesOfAlias: ['s1']})).toThrow(/has aliases/)
    const ok = aliasActor(snap0, ctx('x'), {id: 's1', alias: 's2', entries, aliasesOfAlias: []})
    expect(ok.result.actor.id).toBe('bob')
  })
})

describe('merge of registry entries, latches, seen markers and roles', () => {
  it('last_seen by the later time, mute as a set, seen markers union', () => {
    const base = 'id: "bob"\nlast_seen: "2026-11-29T10:00:00.000Z"\n'
    const ours = 'id: "bob"\nmute:\n  - "heartbeat"\nlast_seen: "2026-11-29T11:00:00.000Z"\n'
    const theirs = 'id: "bob"\nmute:\n  - "claim"\nlast_seen: "2026-11-29T12:00:00.000Z"\n'
    const ctxm = {now: T0, published: 'theirs' as const}
    const r = mergeFiles([{path: 'actors/bob.yaml', base, ours, theirs}, {path: 'inbox/bob/20261129T120000.000Z-00000000.seen', base: null, ours: '', theirs: ''}], ctxm)
    const bob = parseActor(r.files.find((f) => f.path === 'actors/bob.yaml')!.content!)
    expect(bob).toEqual({ok: true, value: {id: 'bob', mute: ['claim', 'heartbeat'], last_seen: '2026-11-29T12:00:00.000Z'}})
    expect(r.files.find((f) => f.path.endsWith('.seen'))!.content).toBe('')
    const swapped = mergeFiles([{path: 'actors/bob.yaml', base, ours: theirs, theirs: ours}], {now: T0, published: 'ours'})
    expect(swapped.files[0]!.content).toBe(r.files.find((f) => f.path === 'actors/bob.yaml')!.content)
    const latch = mergeFiles([{path: 'reminders/bob.yaml', base: null, ours: 'owner: "bob"\nlast_digest: "2026-11-29T10:00:00.000Z"\n', theirs: 'owner: "bob"\nlast_digest: "2026-11-29T11:00:00.000Z"\n'}], ctxm)
    expect(parseLatch(latch.files[0]!.content!)).toEqual({ok: true, value: {owner: 'bob', last_digest: '2026-11-29T11:00:00.000Z'}})
  })
})

describe('stale and remind', () => {
  const H = 3600_000
  const now = new Date(Date.parse(T0) + 5 * H).toISOString()
  const old = T0
  const work = task({id: 'tsk-cccccccccc', status: 'in_progress', owner: 'olga', epoch: 1, claimed_at: old, updated_at: old, created_by: 'carol'})
  const fresh = task({id: 'tsk-dddddddddd', status: 'in_progress', owner: 'olga', epoch: 1, claimed_at: now, updated_at: now})
  const todo = task({id: 'tsk-eeeeeeeeee', updated_at: old})
  const reserved = task({id: 'tsk-ffffffffff', updated_at: old, assignee: 'ann'})
  const waiting = task({id: 'tsk-gggggggggg', updated_at: old, depends_on: ['tsk-eeeeeeeeee']})
  // Parked on someone (block --on): left out. A blocked card that names nobody is stale like any held one (unblocked-parked.test.ts).
  const blocked = task({id: 'tsk-hhhhhhhhhh', status: 'blocked', owner: 'olga', epoch: 1, block_note: 'waits on vendor', blocked_on: 'vendor', updated_at: old})
  const snap = snapshot([work, fresh, todo, reserved, waiting, blocked])

  it('groups by owner; leaves out fresh, waiting and parked items; nobody last', () => {
    const groups = staleGroups(snap, now, 7200)
    expect(groups.map((g) => [g.owner, g.items.map((i) => i.id)])).toEqual([
      ['ann', ['tsk-ffffffffff']],
      ['olga', ['tsk-cccccccccc']],
      [null, ['tsk-eeeeeeeeee']],
    ])
  })

  it('one digest per owner per cadence; escalation once per streak, again after the owner came back and left', () => {
    const cfg = {...snap.config, remind_every_seconds: 3 * 3600, escalate_after_seconds: 4 * 3600}
    const s = {...snap, config: cfg}
    const registry = reg({id: 'olga', last_seen: old})
    const first = remind(s, ctx('bot', now), {olderThanSeconds: 7200, registry, latches: new Map()})
    expect(first.result.digests.map((d) => d.to)).toEqual(['ann', 'olga'])
    expect(first.result.escalations).toEqual([{to: 'carol', task: work.id, owner: 'olga', last_seen: old}])
    const latches = new Map<string, ReminderLatch>()
    for (const c of first.changes) {
      if (c.kind !== 'put-file' || !c.path.startsWith('reminders/')) continue
      const l = parseLatch(c.content)
      if (l.ok) latches.set(c.path, l.value)
    }
    const later = new Date(Date.parse(now) + H).toISOString()
    const second = remind(s, ctx('bot', later), {olderThanSeconds: 7200, registry, latches})
    expect(second.result.digests).toEqual([])
    expect(second.result.skipped.map((x) => x.to)).toEqual(['ann', 'olga'])
    expect(second.result.escalations).toEqual([])
    // A new streak: olga was seen again, then vanished for longer than escalate_after.
    const much = new Date(Date.parse(now) + 10 * H).toISOString()
    const third = remind(s, ctx('bot', much), {olderThanSeconds: 7200, registry: reg({id: 'olga', last_seen: now}), latches})
    expect(third.result.digests.map((d) => d.to)).toEqual(['ann', 'olga'])
    // (the fresh card went stale too by then: its creator hears of it as well)
    expect(third.result.escalations.map((e) => [e.to, e.task])).toEqual([['carol', work.id], ['alice', fresh.id]])
  })
})
