/**
 * The revision guard of optimistic edits (src/core/revision-guard.ts) as a
 * pure function: a current revision passes, a stale or future one is a
 * typed conflict naming the current revision and the last writer, and the
 * wrapped op never runs when the guard refuses.
 */
import {describe, expect, it} from 'vitest'
import {assertRevision, guardRevision} from '../../src/core/revision-guard'
import {editTask} from '../../src/core/ops/edit'
import {checkpointTask, latestCheckpoint} from '../../src/core/ops/checkpoint'
import {ctx, snapshot, task} from '../helpers/snapshot'

describe('assertRevision', () => {
  const card = task({id: 'tsk-aaaaaaaaaa', revision: 5, updated_by: 'bob', updated_at: '2026-11-29T12:30:00.000Z'})

  it('passes when no revision is given or it is current', () => {
    expect(() => assertRevision(card, undefined)).not.toThrow()
    expect(() => assertRevision(card, 5)).not.toThrow()
  })

  it('refuses a stale or future revision with exit 4 and the facts', () => {
    for (const expected of [4, 6]) {
      expect(() => assertRevision(card, expected)).toThrowError(
        expect.objectContaining({code: 'revision_mismatch', exitCode: 4, data: {id: card.id, revision: 5, expected, updated_by: 'bob', updated_at: '2026-11-29T12:30:00.000Z'}}),
      )
    }
  })

  it('guardRevision wraps any op: the op runs only at the expected revision', () => {
    const snap = snapshot([card])
    let ran = 0
    const op = guardRevision('tsk-aaaa', 4, (s, c) => {
      ran++
      return editTask(s, c, {id: card.id, title: 'x'})
    })
    expect(() => op(snap, ctx())).toThrowError(expect.objectContaining({code: 'revision_mismatch'}))
    expect(ran).toBe(0)
    expect(guardRevision('tsk-aaaa', 5, (s, c) => editTask(s, c, {id: card.id, title: 'x'}))(snap, ctx()).result.task.revision).toBe(6)
    expect(editTask(snap, ctx(), {id: card.id, title: 'y', ifRevision: 5}).result.task.title).toBe('y')
  })
})

describe('checkpointTask', () => {
  const held = task({id: 'tsk-bbbbbbbbbb', status: 'in_progress', owner: 'alice', epoch: 2, lease_expires: '2026-11-29T12:10:00.000Z'})

  it('the holder gets a checkpoint comment and a renewed lease in one plan', () => {
    const plan = checkpointTask(snapshot([held]), ctx('alice'), {id: held.id, summary: 'done a', next: 'do b', session: 's1'})
    expect(plan.op).toBe('checkpoint')
    expect(plan.changes.map((c) => c.kind)).toEqual(['put-task', 'add-comment'])
    expect(plan.result.checkpoint).toMatchObject({kind: 'checkpoint', body: 'done a', next: 'do b', session: 's1', epoch: 2, author: 'alice'})
    expect(plan.result.task.lease_expires).toBe('2026-11-29T13:00:00.000Z')
    expect(latestCheckpoint([{...plan.result.checkpoint, kind: 'note'}, plan.result.checkpoint])).toBe(plan.result.checkpoint)
  })

  it('anyone else is refused, even with --force', () => {
    expect(() => checkpointTask(snapshot([held]), ctx('bob', undefined, {force: {reason: 'r'}}), {id: held.id, summary: 's', next: 'n'})).toThrowError(
      expect.objectContaining({code: 'not_owner'}),
    )
  })
})
