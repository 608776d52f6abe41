import {describe, expect, it} from 'vitest'
import {addTask} from '../../src/core/ops/add'
import {claimNext, claimTask, heartbeat, releaseAll, releaseTask} from '../../src/core/ops/claim'
import {blockTask, cancelTask, finishTask, reopenTask} from '../../src/core/ops/lifecycle'
import {assignTask, editTask, setDependencies} from '../../src/core/ops/edit'
import {addComment} from '../../src/core/ops/comment'
import {removeTask} from '../../src/core/ops/remove'
import {commitMessage} from '../../src/core/plan'
import {shardOf} from '../../src/core/ids'
import {T0, after, ctx, snapshot, task} from '../helpers/snapshot'

const later = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString()

describe('add', () => {
  it('creates a todo task with a fresh id and revision 1', () => {
    const plan = addTask(snapshot([]), ctx(), {title: '  Wire the CAS  ', tags: ['b,a', 'a'], priority: '1'})
    const t = plan.result.task
    expect(t).toMatchObject({title: 'Wire the CAS', status: 'todo', priority: 1, tags: ['a', 'b'], epoch: 0, revision: 1, created_by: 'alice'})
    expect(plan.changes).toHaveLength(1)
    expect(commitMessage(plan, 'alice')).toBe(`add ${t.id}: Wire the CAS\n\nTasks-Op: add\nTask: ${t.id}\nActor: alice\n`)
  })

  it('is idempotent with a key', () => {
    const s0 = snapshot([])
    const p1 = addTask(s0, ctx(), {title: 'x', key: 'k1'})
    const s1 = after(s0, p1)
    const p2 = addTask(s1, ctx('bob'), {title: 'x', key: 'k1'})
    expect(p2.result).toEqual({task: p1.result.task, created: false, body: ''})
    expect(p2.changes).toHaveLength(0)
    // The same key for something else is a conflict that names the item and the fields.
    expect(() => addTask(s1, ctx('bob'), {title: 'other title', key: 'k1', priority: 0})).toThrowError(
      expect.objectContaining({code: 'key_mismatch', data: expect.objectContaining({id: p1.result.task.id, fields: ['title', 'priority']})}),
    )
    expect(addTask(s0, ctx('bob'), {title: 'x', key: 'k1'}).result.task.id).toBe(p1.result.task.id)
  })

  it('never mints an id in a shard the ref holds as something other than a directory', () => {
    const shards = Array.from({length: 256}, (_, i) => i.toString(16).padStart(2, '0'))
    for (const key of [undefined, 'k1']) {
      const entropy = 'e'.repeat(32)
      const free = addTask(snapshot([]), ctx('alice', T0, {entropy}), {title: 'x', key}).result.task.id
      // All shards but a few blocked, the first id's among them: the id goes to one of the free ones.
      const open = new Set(shards.filter((x) => x !== shardOf(free)).slice(0, 6))
      const blocked = {...snapshot([]), blockedShards: new Set(shards.filter((x) => !open.has(x)))}
      const id = addTask(blocked, ctx('alice', T0, {entropy}), {title: 'x', key}).result.task.id
      expect(open.has(shardOf(id))).toBe(true)
      // With a key, the same id on every retry; without, another one.
      expect(addTask(blocked, ctx('bob', T0, {entropy: 'f'.repeat(32)}), {title: 'x', key}).result.task.id === id).toBe(key !== undefined)
      // Every shard blocked: the documented error, not a crash.
      expect(() => addTask({...snapshot([]), blockedShards: new Set(shards)}, ctx(), {title: 'x', key})).toThrowError(expect.objectContaining({code: 'tree_conflict'}))
    }
  })

  it('validates title, priority, parent depth and dependencies', () => {
    const parent = task()
    const child = task({parent: parent.id})
    const done = task({status: 'done'})
    const s = snapshot([parent, child, done])
    expect(() => addTask(s, ctx(), {title: 'x'.repeat(501)})).toThrowError(expect.objectContaining({code: 'title_too_long', exitCode: 5}))
    expect(addTask(s, ctx(), {title: 'é'.repeat(250)}).result.created).toBe(true)
    expect(() => addTask(s, ctx(), {title: 'é'.repeat(251)})).toThrowError(expect.objectContaining({code: 'title_too_long'}))
    expect(() => addTask(s, ctx(), {title: 'a\nb'})).toThrowError(expect.objectContaining({exitCode: 5}))
    for (const p of ['5', '-1', 'high', '1.5']) expect(() => addTask(s, ctx(), {title: 'x', priority: p})).toThrowError(expect.objectContaining({code: 'bad_priority'}))
    expect(() => addTask(s, ctx(), {title: 'x', parent: child.id})).toThrowError(expect.objectContaining({code: 'nesting_too_deep'}))
    expect(() => addTask(s, ctx(), {title: 'x', parent: done.id})).toThrowError(expect.objectContaining({code: 'parent_finished', exitCode: 4}))
    expect(() => addTask(s, ctx(), {title: 'x', dependsOn: ['tsk-zzzzzzzzzz']})).toThrowError(expect.objectContaining({exitCode: 3}))
    expect(() => addTask(s, ctx(), {title: 'x', dependsOn: ['other:tsk-zzzzzzzzzz']})).toThrowError(expect.objectContaining({code: 'cross_list_dependency'}))
    const withDeps = addTask(s, ctx(), {title: 'x', dependsOn: [parent.id, parent.id.toUpperCase(), done.id]}).result.task
    expect(withDeps.depends_on).toEqual([parent.id, done.id].sort())
  })
})

describe('claim', () => {
  it('claims a ready item: owner, epoch + 1, lease', () => {
    const t = task()
    const plan = claimTask(snapshot([t]), ctx('bob'), {id: t.id})
    expect(plan.result.task).toMatchObject({status: 'in_progress', owner: 'bob', epoch: 1, claimed_at: T0, lease_expires: later(3600), revision: 2})
    expect(plan.trailers).toContainEqual(['Tasks-Epoch', '1'])
  })

  it('a second claimer is told who holds it', () => {
    const t = task()
    const s = after(snapshot([t]), claimTask(snapshot([t]), ctx('bob'), {id: t.id}))
    expect(() => claimTask(s, ctx('carol'), {id: t.id})).toThrowError(
      expect.objectContaining({code: 'already_claimed', exitCode: 4, data: expect.objectContaining({owner: 'bob', epoch: 1})}),
    )
    // The holder claiming again renews the lease without a new epoch.
    const again = claimTask(s, ctx('bob', later(100)), {id: t.id})
    expect(again.result).toMatchObject({already_owned: true, task: {epoch: 1, lease_expires: later(3700)}})
  })

  it('an expired lease (beyond the skew margin) can be taken over; the old owner is refused', () => {
    const t = task()
    const s0 = snapshot([t])
    const s1 = after(s0, claimTask(s0, ctx('bob'), {id: t.id, leaseSeconds: 60}))
    expect(() => claimTask(s1, ctx('carol', later(60 + 29)), {id: t.id})).toThrowError(expect.objectContaining({code: 'already_claimed'}))
    const take = claimTask(s1, ctx('carol', later(60 + 31)), {id: t.id})
    expect(take.result).toMatchObject({took_over_from: 'bob', task: {owner: 'carol', epoch: 2}})
    expect(take.trailers).toContainEqual(['Tasks-Takeover', 'bob'])
    const s2 = after(s1, take)
    expect(() => finishTask(s2, ctx('bob', later(100)), {id: t.id})).toThrowError(expect.objectContaining({code: 'not_owner', exitCode: 6}))
    expect(() => finishTask(s2, ctx('carol', later(100)), {id: t.id, epoch: 1})).toThrowError(expect.objectContaining({code: 'stale_epoch', exitCode: 6}))
    expect(finishTask(s2, ctx('carol', later(100)), {id: t.id, epoch: 2}).result.task.status).toBe('done')
  })

  it('--epoch fences: a stale epoch is refused whoever holds the item now, or when it is back at todo', () => {
    const t = task()
    const s0 = snapshot([t])
    const s1 = after(s0, claimTask(s0, ctx('bob'), {id: t.id}))
    const s2 = after(s1, releaseTask(s1, ctx('bob'), {id: t.id}))
    const s3 = after(s2, claimTask(s2, ctx('carol'), {id: t.id}))
    // Held by carol at epoch 2: bob's epoch 1 is stale (not merely "not the owner").
    expect(() => finishTask(s3, ctx('bob'), {id: t.id, epoch: 1})).toThrowError(expect.objectContaining({code: 'stale_epoch', exitCode: 6}))
    // Released again: the todo item is at epoch 2; bob's done/block with epoch 1 must not take it.
    const s4 = after(s3, releaseTask(s3, ctx('carol'), {id: t.id}))
    expect(() => finishTask(s4, ctx('bob'), {id: t.id, epoch: 1})).toThrowError(expect.objectContaining({code: 'stale_epoch', exitCode: 6}))
    expect(() => blockTask(s4, ctx('bob'), {id: t.id, note: 'n', epoch: 1})).toThrowError(expect.objectContaining({code: 'stale_epoch', exitCode: 6}))
    expect(finishTask(s4, ctx('bob'), {id: t.id, epoch: 2}).result.task).toMatchObject({status: 'done', epoch: 3})
  })

  it('refuses waiting, reserved, finished and blocked items; --force overrides and is recorded', () => {
    const dep = task()
    const waiting = task({depends_on: [dep.id]})
    const reserved = task({assignee: 'dave'})
    const done = task({status: 'done'})
    const blocked = task({status: 'blocked', owner: 'eve', epoch: 1, block_note: 'api', lease_expires: later(3600)})
    const s = snapshot([dep, waiting, reserved, done, blocked])
    expect(() => claimTask(s, ctx(), {id: waiting.id})).toThrowError(expect.objectContaining({code: 'waiting', data: expect.objectContaining({blocked_by: [{id: dep.id, status: 'todo', via: null}]})}))
    expect(() => claimTask(s, ctx(), {id: reserved.id})).toThrowError(expect.objectContaining({code: 'reserved'}))
    expect(claimTask(s, ctx('dave'), {id: reserved.id}).result.task.owner).toBe('dave')
    expect(() => claimTask(s, ctx(), {id: done.id})).toThrowError(expect.objectContaining({code: 'not_claimable'}))
    expect(() => claimTask(s, ctx(), {id: blocked.id})).toThrowError(expect.objectContaining({code: 'blocked'}))
    const forced = claimTask(s, ctx('alice', T0, {force: {reason: 'dave is away'}}), {id: reserved.id})
    expect(forced.trailers).toContainEqual(['Tasks-Override', 'dave is away'])
    // The owner resumes their own blocked item.
    expect(claimTask(s, ctx('eve'), {id: blocked.id}).result.task).toMatchObject({status: 'in_progress', block_note: undefined, epoch: 1})
  })

  it('only admins may force when config lists admins', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: later(3600)})
    const s = snapshot([t])
    ;(s.config as {admins: string[]}).admins = ['root']
    expect(() => claimTask(s, ctx('alice', T0, {force: {reason: 'r'}}), {id: t.id})).toThrowError(expect.objectContaining({code: 'not_admin', exitCode: 6}))
    expect(claimTask(s, ctx('root', T0, {force: {reason: 'r'}}), {id: t.id}).result.task.owner).toBe('root')
  })
})

describe('next', () => {
  it('takes the lowest priority number, then the oldest; skips waiting, reserved and parents with open sub-items', () => {
    const old2 = task({priority: 2})
    const new1 = task({priority: 1})
    const older1 = task({priority: 1, created_at: '2020-01-01T00:00:00.000Z', assignee: 'someone'})
    const waiting0 = task({priority: 0, depends_on: [old2.id]})
    const parent0 = task({priority: 0})
    const child3 = task({priority: 3, parent: parent0.id})
    const s = snapshot([old2, new1, older1, waiting0, parent0, child3])
    const order: string[] = []
    let cur = s
    for (;;) {
      let plan
      try {
        plan = claimNext(cur, ctx('bob'), {another: true})
      } catch (e) {
        expect(e).toMatchObject({code: 'nothing_ready', exitCode: 3})
        break
      }
      order.push(plan.result.task.id)
      cur = after(cur, plan)
    }
    expect(order).toEqual([new1.id, old2.id, child3.id])
  })

  it('resumes the caller’s own claim unless asked for another; prefers items reserved for the caller', () => {
    const urgent = task({priority: 0})
    const mine = task({priority: 4, assignee: 'bob'})
    const s = snapshot([urgent, mine])
    const first = claimNext(s, ctx('bob'), {})
    expect(first.result).toMatchObject({resumed: false, task: {id: mine.id}})
    const again = claimNext(after(s, first), ctx('bob', later(5)), {})
    expect(again.result).toMatchObject({resumed: true, already_owned: true, task: {id: mine.id, epoch: 1, lease_expires: later(5 + 3600)}})
    const more = claimNext(after(s, first), ctx('bob'), {another: true})
    expect(more.result).toMatchObject({resumed: false, task: {id: urgent.id}})
  })

  it('under contention (spread, busy): one of the first ready items of the best priority, never a busy one, by entropy', () => {
    const first = task({priority: 1, created_at: '2020-01-01T00:00:00.000Z'})
    const busy = task({priority: 1, created_at: '2020-01-02T00:00:00.000Z'})
    const second = task({priority: 1, created_at: '2020-01-03T00:00:00.000Z'})
    const third = task({priority: 1, created_at: '2020-01-04T00:00:00.000Z'})
    const fourth = task({priority: 1, created_at: '2020-01-05T00:00:00.000Z'})
    const worse = task({priority: 2, created_at: '2019-01-01T00:00:00.000Z'})
    const s = snapshot([first, busy, second, third, fourth, worse])
    const picked = new Set<string>()
    for (let i = 0; i < 64; i++) {
      picked.add(claimNext(s, {...ctx('bob'), entropy: i.toString(16).padStart(32, '0'), busy: new Set([busy.id]), spread: 3}, {}).result.task.id)
    }
    expect([...picked].sort()).toEqual([first.id, second.id, third.id].sort())
    // Without the hints: the first ready item, as always.
    expect(claimNext(s, ctx('bob'), {}).result.task.id).toBe(first.id)
    // A busy item is still handed out when nothing else is ready (the transaction waits for its pending change to settle).
    expect(claimNext(snapshot([busy]), {...ctx('bob'), busy: new Set([busy.id]), spread: 4}, {}).result.task.id).toBe(busy.id)
    // Spread never reaches a worse priority while a better one is ready.
    const lone = snapshot([first, worse])
    for (let i = 0; i < 8; i++) expect(claimNext(lone, {...ctx('bob'), entropy: String(i), spread: 8}, {}).result.task.id).toBe(first.id)
  })

  it('reclaims an in-progress item whose lease expired', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 3, lease_expires: T0})
    const plan = claimNext(snapshot([t]), ctx('carol', later(31)), {})
    expect(plan.result).toMatchObject({took_over_from: 'bob', task: {owner: 'carol', epoch: 4}})
  })

  it('filters by tag', () => {
    const a = task({tags: ['ui']})
    const b = task({tags: ['api'], priority: 0})
    expect(claimNext(snapshot([a, b]), ctx(), {tags: ['ui']}).result.task.id).toBe(a.id)
  })
})

describe('done, block, reopen, cancel, release, heartbeat', () => {
  it('done needs finished sub-items and dependencies', () => {
    const parent = task({status: 'in_progress', owner: 'alice', epoch: 1})
    const child = task({parent: parent.id})
    const dep = task()
    const dependent = task({status: 'in_progress', owner: 'alice', epoch: 1, depends_on: [dep.id]})
    const s = snapshot([parent, child, dep, dependent])
    expect(() => finishTask(s, ctx(), {id: parent.id})).toThrowError(expect.objectContaining({code: 'open_subitems', exitCode: 4}))
    expect(() => finishTask(s, ctx(), {id: dependent.id})).toThrowError(expect.objectContaining({code: 'waiting'}))
    const s2 = after(s, cancelTask(s, ctx(), {id: child.id, reason: 'not needed'}))
    expect(finishTask(s2, ctx(), {id: parent.id}).result.task).toMatchObject({status: 'done', closed_at: T0, owner: 'alice'})
  })

  it('done on a ready todo item claims and finishes it; done twice by the same actor is a no-op', () => {
    const t = task()
    const s = snapshot([t])
    const p = finishTask(s, ctx('bob'), {id: t.id})
    expect(p.result.task).toMatchObject({status: 'done', owner: 'bob', epoch: 1})
    const s2 = after(s, p)
    expect(finishTask(s2, ctx('bob'), {id: t.id}).changes).toHaveLength(0)
    expect(() => finishTask(s2, ctx('carol'), {id: t.id})).toThrowError(expect.objectContaining({code: 'already_done'}))
  })

  it('block needs a note and the owner; reopen clears the claim; cancel is final', () => {
    const t = task({status: 'in_progress', owner: 'alice', epoch: 1, lease_expires: later(3600)})
    const s = snapshot([t])
    expect(() => blockTask(s, ctx(), {id: t.id, note: '  '})).toThrowError(expect.objectContaining({exitCode: 5}))
    expect(() => blockTask(s, ctx('bob'), {id: t.id, note: 'x'})).toThrowError(expect.objectContaining({code: 'not_owner'}))
    const s1 = after(s, blockTask(s, ctx(), {id: t.id, note: 'waiting on API review'}))
    expect(s1.tasks.get(t.id)!.meta).toMatchObject({status: 'blocked', block_note: 'waiting on API review'})
    expect(finishTask(s1, ctx(), {id: t.id}).result.task.status).toBe('done')
    const s2 = after(s1, reopenTask(s1, ctx(), {id: t.id}))
    expect(s2.tasks.get(t.id)!.meta).toMatchObject({status: 'todo', owner: undefined, block_note: undefined, epoch: 1})
    expect(() => reopenTask(s2, ctx(), {id: t.id})).toThrowError(expect.objectContaining({code: 'already_open'}))
    const s3 = after(s2, cancelTask(s2, ctx(), {id: t.id, reason: 'dup'}))
    expect(() => reopenTask(s3, ctx(), {id: t.id})).toThrowError(expect.objectContaining({code: 'terminal'}))
    expect(() => claimTask(s3, ctx(), {id: t.id})).toThrowError(expect.objectContaining({code: 'not_claimable'}))
  })

  it('cancel cascades to open sub-items and refuses others\' live claims without --force', () => {
    const parent = task()
    const c1 = task({parent: parent.id})
    const c2 = task({parent: parent.id, status: 'done'})
    const c3 = task({parent: parent.id, status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: later(3600)})
    const s = snapshot([parent, c1, c2, c3])
    expect(() => cancelTask(s, ctx(), {id: parent.id, reason: 'r'})).toThrowError(expect.objectContaining({code: 'not_owner'}))
    const p = cancelTask(s, ctx('alice', T0, {force: {reason: 'scope cut'}}), {id: parent.id, reason: 'scope cut'})
    expect(p.result.subitems.map((t) => t.id).sort()).toEqual([c1.id, c3.id].sort())
    expect(p.trailers).toContainEqual(['Tasks-Override', 'scope cut'])
  })

  it('release returns to todo; release --all releases every held item in one plan', () => {
    const a = task({status: 'in_progress', owner: 'bob', epoch: 1})
    const b = task({status: 'blocked', owner: 'bob', epoch: 2, block_note: 'x'})
    const c = task({status: 'in_progress', owner: 'carol', epoch: 1})
    const s = snapshot([a, b, c])
    expect(releaseTask(s, ctx('bob'), {id: a.id}).result.tasks[0]).toMatchObject({status: 'todo', owner: undefined, epoch: 1})
    expect(() => releaseTask(s, ctx('bob'), {id: c.id})).toThrowError(expect.objectContaining({code: 'not_owner'}))
    const all = releaseAll(s, ctx('bob'))
    expect(all.result.tasks.map((t) => t.id).sort()).toEqual([a.id, b.id].sort())
    expect(all.summary).toBe('2 tasks held by bob')
    expect(releaseAll(s, ctx('nobody')).changes).toHaveLength(0)
  })

  it('heartbeat extends the lease for the owner only', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 1, lease_expires: later(60)})
    const s = snapshot([t])
    expect(heartbeat(s, ctx('bob', later(30)), {id: t.id}).result.task.lease_expires).toBe(later(30 + 3600))
    expect(() => heartbeat(s, ctx('carol'), {id: t.id})).toThrowError(expect.objectContaining({code: 'not_owner'}))
    expect(() => heartbeat(s, ctx('bob'), {id: t.id, epoch: 0})).toThrowError(expect.objectContaining({code: 'stale_epoch'}))
  })
})

describe('edit, assign, deps, comment, rm', () => {
  it('edit changes only what was asked and names the fields', () => {
    const t = task({tags: ['a']})
    const p = editTask(snapshot([t]), ctx(), {id: t.id, title: 'New', addTags: ['b'], removeTags: ['a'], priority: 0})
    expect(p.result.fields).toEqual(['title', 'priority', 'tags'])
    expect(p.result.task).toMatchObject({title: 'New', tags: ['b'], priority: 0, revision: 2})
    expect(() => editTask(snapshot([t]), ctx(), {id: t.id})).toThrowError(expect.objectContaining({exitCode: 2}))
    expect(editTask(snapshot([t]), ctx(), {id: t.id, title: t.title}).changes).toHaveLength(0)
  })

  it('deps replaces the set, folds duplicates, rejects self, cycles and unknown ids', () => {
    const a = task()
    const b = task({depends_on: [a.id]})
    const c = task({depends_on: [b.id]})
    const s = snapshot([a, b, c])
    expect(() => setDependencies(s, ctx(), {id: a.id, deps: [c.id]})).toThrowError(
      expect.objectContaining({code: 'dependency_cycle', exitCode: 5, data: expect.objectContaining({cycle: [a.id, c.id, b.id, a.id]})}),
    )
    expect(() => setDependencies(s, ctx(), {id: a.id, deps: [a.id]})).toThrowError(expect.objectContaining({code: 'self_dependency'}))
    expect(setDependencies(s, ctx(), {id: c.id, deps: [a.id, b.id, a.id]}).result.task.depends_on).toEqual([a.id, b.id].sort())
    expect(setDependencies(s, ctx(), {id: c.id, deps: []}).result.task.depends_on).toEqual([])
  })

  it('assign reserves and clears', () => {
    const t = task()
    const s = after(snapshot([t]), assignTask(snapshot([t]), ctx(), {id: t.id, assignee: 'dave'}))
    expect(s.tasks.get(t.id)!.meta!.assignee).toBe('dave')
    expect(assignTask(s, ctx(), {id: t.id, assignee: null}).result.task.assignee).toBeUndefined()
  })

  it('comments are typed, limited, and named by time', () => {
    const t = task()
    const p = addComment(snapshot([t]), ctx(), {id: t.id, text: 'chose CAS', kind: 'decision'})
    expect(p.result.comment).toMatchObject({kind: 'decision', author: 'alice', body: 'chose CAS', task: t.id})
    expect(p.result.comment.id).toMatch(/^20261129T120000\.000Z-[0-9a-f]{8}$/)
    expect(() => addComment(snapshot([t]), ctx(), {id: t.id, text: 'x', kind: 'rant'})).toThrowError(expect.objectContaining({code: 'bad_kind', exitCode: 2}))
    expect(() => addComment(snapshot([t]), ctx(), {id: t.id, text: 'x'.repeat(16385)})).toThrowError(expect.objectContaining({code: 'comment_too_long', exitCode: 5}))
  })

  it('rm removes sub-items when asked and refuses while others depend on it', () => {
    const parent = task()
    const child = task({parent: parent.id})
    const other = task({depends_on: [child.id]})
    const s = snapshot([parent, child, other])
    expect(() => removeTask(s, ctx(), {id: parent.id, withSubitems: true})).toThrowError(expect.objectContaining({code: 'has_dependents', exitCode: 4}))
    const s2 = after(s, setDependencies(s, ctx(), {id: other.id, deps: []}))
    expect(() => removeTask(s2, ctx(), {id: parent.id})).toThrowError(expect.objectContaining({code: 'has_subitems', exitCode: 4}))
    expect(removeTask(s2, ctx(), {id: parent.id, withSubitems: true}).changes).toEqual([
      {kind: 'delete-task', id: parent.id},
      {kind: 'delete-task', id: child.id},
    ])
  })

  it('a broken task file is reported by path when targeted', () => {
    const good = task()
    const s = snapshot([good], [{id: 'tsk-bad0bad0ba', error: 'invalid YAML'}])
    expect(() => claimTask(s, ctx(), {id: 'tsk-bad0bad0ba'})).toThrowError(
      expect.objectContaining({code: 'broken_task_file', exitCode: 5, data: expect.objectContaining({path: expect.stringContaining('tsk-bad0bad0ba/task.md')})}),
    )
    expect(claimNext(s, ctx(), {}).result.task.id).toBe(good.id)
  })
})
