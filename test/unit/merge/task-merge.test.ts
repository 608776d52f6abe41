import {createHash} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {parseTaskFile, serialiseTask} from '../../../src/core/task-file'
import type {TaskMeta} from '../../../src/core/task'
import {type TaskMergeResult, type TaskVersion, compareSides, mergeSet, mergeTask} from '../../../src/merge/task-merge'
import {assertEpoch} from '../../../src/core/ops/permission'
import type {MergeContext, Side} from '../../../src/merge/merge-types'
import {NOW, at, baseTask, edit, taskTripleArb} from './arbitraries'

const v = (meta: TaskMeta, body = 'Body\n'): TaskVersion => ({meta, body})
const ctxOf = (published: Side = 'theirs'): MergeContext => ({now: NOW, published})
const swapped = (c: MergeContext): MergeContext => ({...c, published: c.published === 'ours' ? 'theirs' : 'ours'})
/** The result as the other side would see it: the conflict's "ours" and "theirs" change places, nothing else. */
const mirrored = (r: TaskMergeResult): TaskMergeResult =>
  r.conflict
    ? {...r, conflict: {body: r.conflict.body?.map((x) => (x.conflict ? {...x, ours: x.theirs, theirs: x.ours} : x)), ours: r.conflict.theirs, theirs: r.conflict.ours}}
    : r
/** Whether `--epoch token` by `actor` passes the fencing check on `meta`. */
const accepts = (meta: TaskMeta, token: number, actor: string): boolean => {
  try {
    assertEpoch(meta, token, actor)
    return true
  } catch (e) {
    expect((e as {code?: string}).code).toBe('stale_epoch')
    return false
  }
}

describe('mergeTask: shortcuts', () => {
  it('returns a side unchanged when the other did not change, or both are equal', () => {
    const base = v(baseTask())
    const ours = v(edit(base.meta, {title: 'New'}))
    expect(mergeTask(base, ours, base, ctxOf())).toEqual({meta: ours.meta, body: ours.body, comments: [], notes: []})
    expect(mergeTask(base, base, ours, ctxOf())).toEqual({meta: ours.meta, body: ours.body, comments: [], notes: []})
    expect(mergeTask(base, ours, ours, ctxOf())).toEqual({meta: ours.meta, body: ours.body, comments: [], notes: []})
  })

  it('refuses to merge different tasks', () => {
    const a = v(baseTask('tsk-aaaaaaaaaa'))
    const b = v(baseTask('tsk-bbbbbbbbbb'))
    expect(() => mergeTask(null, a, b, ctxOf())).toThrow(/different ids/)
  })
})

describe('mergeTask: the claim/lifecycle unit', () => {
  const base = v(baseTask())

  it('takes the unit of the side that changed it, with other fields from the other side', () => {
    const ours = v(edit(base.meta, {status: 'in_progress', owner: 'alice', epoch: 2, claimed_at: at(1), lease_expires: at(61)}, 'alice', 1))
    const theirs = v(edit(base.meta, {title: 'Better title', priority: 0}, 'bob', 5))
    const r = mergeTask(base, ours, theirs, ctxOf('theirs'))
    expect(r.meta).toMatchObject({status: 'in_progress', owner: 'alice', epoch: 2, claimed_at: at(1), lease_expires: at(61), title: 'Better title', priority: 0})
    expect(r.notes).toEqual([])
    expect(r.comments).toEqual([])
  })

  it('both claimed: the published claim wins whole, the loser is noted and told on the card', () => {
    const ours = v(edit(base.meta, {status: 'in_progress', owner: 'alice', epoch: 2, claimed_at: at(30), lease_expires: at(90)}, 'alice', 30))
    const theirs = v(edit(base.meta, {status: 'in_progress', owner: 'bob', epoch: 2, claimed_at: at(1), lease_expires: at(61)}, 'bob', 1))
    const r = mergeTask(base, ours, theirs, ctxOf('theirs'))
    // Both were handed epoch 2: the epoch moves on to 3 and only bob may still present 2.
    expect(r.meta).toMatchObject({status: 'in_progress', owner: 'bob', epoch: 3, claim_epochs: [2, 3], claimed_at: at(1), lease_expires: at(61)})
    expect(accepts(r.meta, 2, 'bob')).toBe(true)
    expect(accepts(r.meta, 3, 'bob')).toBe(true)
    expect(accepts(r.meta, 2, 'alice')).toBe(false)
    expect(r.notes).toEqual([
      expect.objectContaining({
        kind: 'lost_claim',
        task: base.meta.id,
        loser: {status: 'in_progress', owner: 'alice', epoch: 2, actor: 'alice'},
        winner: {status: 'in_progress', owner: 'bob', epoch: 2, actor: 'bob'},
      }),
    ])
    expect(r.comments).toHaveLength(1)
    expect(r.comments[0]).toMatchObject({task: base.meta.id, kind: 'problem', author: 'git-tasks', created_at: NOW})
    expect(r.comments[0]!.body).toContain('alice')
    expect(r.comments[0]!.body).toContain('bob')
    // Published the other way round: alice's claim wins, although it is later or not.
    const r2 = mergeTask(base, ours, theirs, ctxOf('ours'))
    expect(r2.meta).toMatchObject({owner: 'alice', claimed_at: at(30), epoch: 3, claim_epochs: [2, 3]})
    expect(accepts(r2.meta, 2, 'alice')).toBe(true)
    expect(accepts(r2.meta, 2, 'bob')).toBe(false)
    expect(r2.notes[0]).toMatchObject({kind: 'lost_claim', loser: {owner: 'bob'}})
  })

  it('never moves the epoch backwards: past the higher epoch of the losing side, the winner keeps its own number', () => {
    const ours = v(edit(base.meta, {status: 'in_progress', owner: 'alice', epoch: 4, claimed_at: at(3), lease_expires: at(63)}, 'alice', 3))
    const theirs = v(edit(base.meta, {status: 'done', owner: 'bob', epoch: 2, closed_at: at(2)}, 'bob', 2))
    const r = mergeTask(base, ours, theirs, ctxOf('theirs'))
    expect(r.meta).toMatchObject({status: 'done', owner: 'bob', epoch: 5, claim_epochs: [2, 5], closed_at: at(2)})
    expect(accepts(r.meta, 4, 'alice')).toBe(false)
    expect(accepts(r.meta, 2, 'bob')).toBe(true)
    expect(r.meta.claimed_at).toBeUndefined()
    expect(r.meta.lease_expires).toBeUndefined()
  })

  it('done on one side, cancelled on the other: the published one, and the cancel reason is kept as text', () => {
    const ours = v(edit(base.meta, {status: 'cancelled', cancel_reason: 'not needed after all', closed_at: at(4)}, 'carol', 4))
    const theirs = v(edit(base.meta, {status: 'done', owner: 'bob', epoch: 2, closed_at: at(2)}, 'bob', 2))
    const r = mergeTask(base, ours, theirs, ctxOf('theirs'))
    expect(r.meta.status).toBe('done')
    expect(r.meta.cancel_reason).toBeUndefined()
    expect(r.notes[0]).toMatchObject({kind: 'lost_claim', loser: {status: 'cancelled', owner: null, actor: 'carol'}})
    expect(r.comments.map((c) => c.body).join('\n')).toContain('not needed after all')
  })

  it('the same claim seen on both sides (two heartbeats) is not a lost claim', () => {
    const claimed = edit(base.meta, {status: 'in_progress', owner: 'alice', epoch: 2, claimed_at: at(1), lease_expires: at(61)}, 'alice', 1)
    const ours = v(edit(claimed, {lease_expires: at(120)}, 'alice', 60))
    const theirs = v(edit(claimed, {lease_expires: at(100)}, 'alice', 40))
    const r = mergeTask(v(claimed), ours, theirs, ctxOf('theirs'))
    expect(r.meta).toMatchObject({owner: 'alice', lease_expires: at(100)})
    expect(r.notes).toEqual([])
    expect(r.comments).toEqual([])
  })

  it('keeps a losing block note as a comment even when the claim is the same', () => {
    const claimed = edit(base.meta, {status: 'in_progress', owner: 'alice', epoch: 2}, 'alice', 1)
    const ours = v(edit(claimed, {status: 'blocked', block_note: 'waiting for the DBA'}, 'alice', 5))
    const theirs = v(edit(claimed, {status: 'blocked', block_note: 'waiting on infra'}, 'alice', 6))
    const r = mergeTask(v(claimed), ours, theirs, ctxOf('theirs'))
    expect(r.meta.block_note).toBe('waiting on infra')
    expect(r.notes).toEqual([])
    expect(r.comments).toHaveLength(1)
    expect(r.comments[0]).toMatchObject({kind: 'note', author: 'alice'})
    expect(r.comments[0]!.body).toContain('waiting for the DBA')
  })
})

describe('mergeTask: scalars', () => {
  const base = v(baseTask())

  it('takes a scalar changed on one side', () => {
    const ours = v(edit(base.meta, {priority: 0}, 'alice', 1))
    const theirs = v(edit(base.meta, {assignee: 'carol', parent: 'tsk-bbbbbbbbbb'}, 'bob', 2))
    const r = mergeTask(base, ours, theirs, ctxOf())
    expect(r.meta).toMatchObject({priority: 0, assignee: 'carol', parent: 'tsk-bbbbbbbbbb'})
  })

  it('takes an unset (cleared) optional field from the side that cleared it', () => {
    const b = v({...baseTask(), assignee: 'carol'})
    const ours = v(edit(b.meta, {assignee: undefined}, 'alice', 1))
    const theirs = v(edit(b.meta, {priority: 1}, 'bob', 2))
    const r = mergeTask(b, ours, theirs, ctxOf())
    expect(r.meta.assignee).toBeUndefined()
    expect('assignee' in r.meta).toBe(false)
  })

  it('both changed: the later updated_at wins, the losing title is a comment by its author', () => {
    const ours = v(edit(base.meta, {title: 'Alice title', priority: 1}, 'alice', 20))
    const theirs = v(edit(base.meta, {title: 'Bob title', priority: 3}, 'bob', 10))
    for (const published of ['ours', 'theirs'] as const) {
      const r = mergeTask(base, ours, theirs, ctxOf(published))
      expect(r.meta).toMatchObject({title: 'Alice title', priority: 1})
      expect(r.notes).toEqual([
        expect.objectContaining({kind: 'field_conflict', field: 'title', kept: 'Alice title', dropped: 'Bob title'}),
        expect.objectContaining({kind: 'field_conflict', field: 'priority', kept: 1, dropped: 3}),
      ])
      expect(r.comments).toHaveLength(1)
      expect(r.comments[0]).toMatchObject({kind: 'note', author: 'bob'})
      expect(r.comments[0]!.body).toContain('"Bob title"')
    }
  })

  it('ties on updated_at go to the higher revision, then the greater updated_by, then the greater value', () => {
    const mk = (title: string, who: string, revision: number): TaskVersion => v({...base.meta, title, updated_at: at(5), updated_by: who, revision})
    expect(mergeTask(base, mk('A', 'alice', 9), mk('B', 'bob', 4), ctxOf()).meta.title).toBe('A')
    expect(mergeTask(base, mk('A', 'alice', 4), mk('B', 'bob', 4), ctxOf()).meta.title).toBe('B')
    expect(mergeTask(base, mk('A', 'bob', 4), mk('B', 'bob', 4), ctxOf()).meta.title).toBe('B')
    expect(mergeTask(base, mk('B', 'bob', 4), mk('A', 'bob', 4), ctxOf()).meta.title).toBe('B')
    expect(compareSides(mk('A', 'bob', 4).meta, mk('B', 'bob', 4).meta)).toBe(0)
  })

  it('compares updated_at by instant, not by text', () => {
    const ours = v({...edit(base.meta, {title: 'ours'}), updated_at: '2026-11-29T12:00:01Z'})
    const theirs = v({...edit(base.meta, {title: 'theirs'}), updated_at: '2026-11-29T12:00:00.500Z'})
    expect(mergeTask(base, ours, theirs, ctxOf()).meta.title).toBe('ours')
  })

  it('unknown frontmatter keys merge 3-way per key', () => {
    const b = v({...baseTask(), extra: {'x-a': 1, 'x-b': 'keep', 'x-c': 'drop'}})
    const ours = v({...edit(b.meta, {}, 'alice', 20), extra: {'x-a': 2, 'x-b': 'keep', 'x-c': 'drop', 'x-new': true}})
    const theirs = v({...edit(b.meta, {}, 'bob', 10), extra: {'x-a': 3, 'x-b': 'keep'}})
    const r = mergeTask(b, ours, theirs, ctxOf())
    expect(r.meta.extra).toEqual({'x-a': 2, 'x-b': 'keep', 'x-new': true})
    expect(r.notes).toContainEqual(expect.objectContaining({kind: 'field_conflict', field: 'x-a', kept: 2, dropped: 3}))
  })
})

describe('mergeTask: sets', () => {
  it('merges adds and removes of both sides, sorted', () => {
    const b = v({...baseTask(), tags: ['a', 'b', 'c'], depends_on: ['tsk-aaaaaaaaaa', 'tsk-bbbbbbbbbb']})
    const ours = v(edit(b.meta, {tags: ['a', 'c', 'z'], depends_on: ['tsk-aaaaaaaaaa', 'tsk-bbbbbbbbbb', 'tsk-dddddddddd']}, 'alice', 1))
    const theirs = v(edit(b.meta, {tags: ['b', 'c', 'd'], depends_on: ['tsk-bbbbbbbbbb', 'tsk-cccccccccc']}, 'bob', 2))
    const r = mergeTask(b, ours, theirs, ctxOf())
    expect(r.meta.tags).toEqual(['c', 'd', 'z'])
    expect(r.meta.depends_on).toEqual(['tsk-bbbbbbbbbb', 'tsk-cccccccccc', 'tsk-dddddddddd'])
    expect(r.notes).toEqual([])
  })

  it('mergeSet: base ∪ added − removed (property against the definition)', () => {
    const el = fc.constantFrom<string>('a', 'b', 'c', 'd', 'e')
    fc.assert(
      fc.property(fc.uniqueArray(el), fc.uniqueArray(el), fc.uniqueArray(el), (b, o, t) => {
        const r = new Set(mergeSet(b, o, t))
        for (const x of ['a', 'b', 'c', 'd', 'e']) {
          const added = (!b.includes(x) && o.includes(x)) || (!b.includes(x) && t.includes(x))
          const removed = (b.includes(x) && !o.includes(x)) || (b.includes(x) && !t.includes(x))
          expect(r.has(x)).toBe((b.includes(x) || added) && !removed)
        }
        expect(mergeSet(b, o, t)).toEqual([...r].sort())
      }),
    )
  })
})

describe('mergeTask: body', () => {
  const base = v(baseTask(), 'Intro\n\nStep one\nStep two\n\nNotes\n')

  it('merges non-overlapping description edits', () => {
    const ours = v(edit(base.meta, {}, 'alice', 1), 'Intro, better\n\nStep one\nStep two\n\nNotes\n')
    const theirs = v(edit(base.meta, {}, 'bob', 2), 'Intro\n\nStep one\nStep two\n\nNotes\nMore notes\n')
    const r = mergeTask(base, ours, theirs, ctxOf())
    expect(r.body).toBe('Intro, better\n\nStep one\nStep two\n\nNotes\nMore notes\n')
    expect(r.comments).toEqual([])
  })

  it('a conflict keeps the later side and files the other text whole as a note by its author', () => {
    const ours = v(edit(base.meta, {}, 'alice', 5), 'Intro\n\nStep one (alice)\nStep two\n\nNotes\n')
    const theirs = v(edit(base.meta, {}, 'bob', 9), 'Intro\n\nStep one (bob)\nStep two\n\nNotes\n')
    const r = mergeTask(base, ours, theirs, ctxOf('ours'))
    expect(r.body).toBe(theirs.body)
    expect(r.comments).toHaveLength(1)
    const c = r.comments[0]!
    expect(c).toMatchObject({kind: 'note', author: 'alice', task: base.meta.id, created_at: NOW})
    expect(c.body).toMatch(/^Concurrent edit of the description that could not be merged/)
    expect(c.body).toContain('Intro\n\nStep one (alice)\nStep two\n\nNotes')
    expect(r.notes).toEqual([expect.objectContaining({kind: 'body_conflict', comment: c.id})])
    expect(JSON.stringify(r)).not.toMatch(/<<<<<<<|>>>>>>>/)
  })

  it('names comments deterministically: compact now + 8 hex of a sha256 of the content', () => {
    const ours = v(edit(base.meta, {title: 'A'}, 'alice', 5), 'x\n')
    const theirs = v(edit(base.meta, {title: 'B'}, 'bob', 9), 'y\n')
    const r1 = mergeTask(base, ours, theirs, ctxOf())
    const r2 = mergeTask(base, ours, theirs, ctxOf())
    expect(r1).toEqual(r2)
    expect(r1.comments).toHaveLength(2) // the losing title and the losing body
    for (const c of r1.comments) {
      expect(c.id).toMatch(/^20261130T080000\.000Z-[0-9a-f]{8}$/)
      const h = createHash('sha256').update([c.task, c.kind, c.author, c.body].join('\0')).digest('hex').slice(0, 8)
      expect(c.id.endsWith(h)).toBe(true)
    }
    expect(new Set(r1.comments.map((c) => c.id)).size).toBe(r1.comments.length)
  })
})

describe('mergeTask: bookkeeping', () => {
  it('revision max + 1, updated_at/updated_by of the later side (not the merge time), created from base', () => {
    const base = v(baseTask())
    const ours = v({...edit(base.meta, {priority: 0}, 'alice', 30), revision: 9})
    const theirs = v({...edit(base.meta, {title: 'x'}, 'bob', 10), revision: 5})
    const r = mergeTask(base, ours, theirs, ctxOf())
    expect(r.meta).toMatchObject({revision: 10, updated_at: ours.meta.updated_at, updated_by: 'alice', created_at: base.meta.created_at, created_by: 'alice'})
  })

  it('without a base (the same key on two clones) takes the earlier creation and the union of sets', () => {
    const one = v({...baseTask(), key: 'k1', title: 'From alice', tags: ['a'], created_at: at(-5), created_by: 'alice', updated_at: at(-5), revision: 1}, 'alice body\n')
    const two = v({...baseTask(), key: 'k1', title: 'From bob', tags: ['b'], created_at: at(-9), created_by: 'bob', updated_at: at(-9), updated_by: 'bob', revision: 1}, 'bob body\n')
    const r = mergeTask(null, one, two, ctxOf('theirs'))
    expect(r.meta).toMatchObject({created_at: at(-9), created_by: 'bob', tags: ['a', 'b'], title: 'From alice', revision: 2, key: 'k1'})
    // Both descriptions survive: one as the body, the other as a comment.
    expect(r.body).toBe('alice body\n')
    expect(r.comments.map((c) => c.body).join('\n')).toContain('bob body')
    expect(r.comments.map((c) => c.body).join('\n')).toContain('From bob')
  })

  it('writes a file that parses and validates', () => {
    fc.assert(
      fc.property(taskTripleArb, fc.constantFrom<Side>('ours', 'theirs'), ([b, o, t], published) => {
        const r = mergeTask(b, o, t, {now: NOW, published})
        const text = serialiseTask(r.meta, r.body)
        const parsed = parseTaskFile(text, r.meta.id)
        expect(parsed.ok).toBe(true)
        if (parsed.ok) expect(parsed.value.meta).toEqual(r.meta)
      }),
      {numRuns: 300},
    )
  })
})

describe('mergeTask: properties', () => {
  it('is symmetric: swapping the sides and `published` gives the same result', () => {
    fc.assert(
      fc.property(taskTripleArb, fc.constantFrom<Side>('ours', 'theirs'), ([b, o, t], published) => {
        const ctx = {now: NOW, published}
        expect(mirrored(mergeTask(b, t, o, swapped(ctx)))).toEqual(mergeTask(b, o, t, ctx))
      }),
      {numRuns: 1000},
    )
  })

  it('is deterministic and idempotent on equal sides', () => {
    fc.assert(
      fc.property(taskTripleArb, ([b, o]) => {
        expect(mergeTask(b, o, o, ctxOf())).toEqual({meta: o.meta, body: o.body, comments: [], notes: []})
        expect(mergeTask(b, b, o, ctxOf())).toEqual({meta: o.meta, body: o.body, comments: [], notes: []})
      }),
    )
  })

  it('loses nothing typed: titles, notes, reasons, custom field values and added description lines survive in the card or its comments', () => {
    fc.assert(
      fc.property(taskTripleArb, fc.constantFrom<Side>('ours', 'theirs'), ([b, o, t], published) => {
        const r = mergeTask(b, o, t, {now: NOW, published})
        const everything = [JSON.stringify(r.meta), r.body, ...r.comments.map((c) => c.body)].join('\n')
        const commentText = r.comments.map((c) => c.body).join('\n')
        for (const side of [o, t]) {
          if (side.meta.title !== b.meta.title) expect(everything).toContain(side.meta.title)
          for (const k of ['block_note', 'cancel_reason'] as const) {
            const text = side.meta[k]
            if (text !== undefined && text !== b.meta[k]) expect(everything).toContain(text)
          }
          // Custom fields (issue 33): a value a side set is in the card or, when it lost, in a comment.
          for (const [k, value] of Object.entries(side.meta.fields ?? {})) {
            if (b.meta.fields?.[k] !== value) expect(`${JSON.stringify(r.meta.fields ?? {})}\n${commentText}`, k).toContain(JSON.stringify(value))
          }
          const baseLines = new Set(b.body.split('\n'))
          for (const line of side.body.split('\n')) {
            if (line !== '' && !baseLines.has(line)) expect(`${r.body}\n${commentText}`).toContain(line)
          }
        }
        // The epoch never goes back.
        expect(r.meta.epoch).toBeGreaterThanOrEqual(Math.max(o.meta.epoch, t.meta.epoch))
      }),
      {numRuns: 1000},
    )
  })

  it('fencing: after a lost claim the loser\'s token is refused, the winner\'s accepted, and no token is handed out again', () => {
    let superseded = 0
    fc.assert(
      fc.property(taskTripleArb, fc.constantFrom<Side>('ours', 'theirs'), ([b, o, t], published) => {
        const r = mergeTask(b, o, t, {now: NOW, published})
        const m = r.meta
        expect(m.epoch).toBeGreaterThanOrEqual(Math.max(o.meta.epoch, t.meta.epoch, b.meta.epoch))
        // claim_epochs, when set, is current: it ends with the epoch.
        if (m.claim_epochs) expect(m.claim_epochs[m.claim_epochs.length - 1]).toBe(m.epoch)
        const lost = r.notes.find((n) => n.kind === 'lost_claim')
        if (!lost || lost.kind !== 'lost_claim') return
        const winner = published === 'ours' ? o.meta : t.meta
        const loser = published === 'ours' ? t.meta : o.meta
        // The winner's owner keeps working with the token it was given.
        if (winner.owner) expect(accepts(m, winner.epoch, winner.owner)).toBe(true)
        if (loser.owner && loser.owner !== winner.owner) {
          superseded++
          // The superseded claim's token is refused, and the next claim (epoch + 1) is a new number.
          expect(accepts(m, loser.epoch, loser.owner)).toBe(false)
          expect(m.epoch + 1).toBeGreaterThan(loser.epoch)
        }
      }),
      {numRuns: 1000},
    )
    // Not vacuous: the generator makes superseded claims often.
    expect(superseded).toBeGreaterThan(50)
  })

  it('a lost claim is always reported when the claims differ', () => {
    fc.assert(
      fc.property(taskTripleArb, fc.constantFrom<Side>('ours', 'theirs'), ([b, o, t], published) => {
        const r = mergeTask(b, o, t, {now: NOW, published})
        const claim = (m: TaskMeta) => [m.status, m.owner ?? null, m.epoch].join('|')
        const changed = (m: TaskMeta) => claim(m) !== claim(b.meta)
        if (changed(o.meta) && changed(t.meta) && claim(o.meta) !== claim(t.meta)) {
          const winner = published === 'ours' ? o.meta : t.meta
          expect(r.meta.status).toBe(winner.status)
          expect(r.meta.owner).toBe(winner.owner)
          expect(r.notes.filter((n) => n.kind === 'lost_claim')).toHaveLength(1)
        } else {
          expect(r.notes.filter((n) => n.kind === 'lost_claim')).toHaveLength(0)
        }
      }),
      {numRuns: 500},
    )
  })
})
