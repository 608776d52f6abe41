/**
 * A batch document's top level (issue 33, item 11): a default `lease` is
 * folded into the operations that take one and give none; any other key is
 * refused (bad_batch, exit 2), never ignored.
 */
import {describe, expect, it} from 'vitest'
import {readBatchDocument} from '../../src/core/ops/batch-file'
import {batchOperations} from '../../src/operations/table'
import {TasksError} from '../../src/core/errors'

const table = batchOperations()

function refusal(doc: unknown): TasksError {
  try {
    readBatchDocument(doc, table)
  } catch (error) {
    if (error instanceof TasksError) return error
    throw error
  }
  throw new Error('not refused')
}

describe('the batch document', () => {
  it('a list is the operations, as before', () => {
    const ops = [{op: 'add', title: 'x'}]
    expect(readBatchDocument(ops, table)).toBe(ops)
    expect(readBatchDocument({operations: ops}, table)).toBe(ops)
  })

  it('a top-level lease applies to every operation that takes a lease and gives none; its own wins; others untouched', () => {
    const ops = [
      {op: 'add', title: 'x', name: 'a'},
      {op: 'claim', id: '$a'},
      {op: 'next'},
      {op: 'heartbeat', id: '$a', lease: 60},
      {op: 'takeover', id: '$a', reason: 'r'},
      {op: 'comment', id: '$a', text: 'hi'},
    ]
    const out = readBatchDocument({lease: '30m', operations: ops}, table) as Array<Record<string, unknown>>
    expect(out.map((o) => o.lease)).toEqual([undefined, 1800, 1800, 60, 1800, undefined])
    // The caller's objects are not changed.
    expect(ops[1]).toEqual({op: 'claim', id: '$a'})
    expect((readBatchDocument({lease: 90, operations: [{op: 'claim', id: 'x'}]}, table) as Array<Record<string, unknown>>)[0]!.lease).toBe(90)
  })

  it('refuses any other top-level key, naming the allowed ones, and a lease the operations would refuse', () => {
    for (const key of ['mode', 'leases', 'atomic', 'Lease']) {
      const e = refusal({operations: [], [key]: 1})
      expect(e.code).toBe('bad_batch')
      expect(e.exitCode).toBe(2)
      expect(e.message).toContain(`"${key}"`)
      expect(e.message).toContain('operations, lease')
    }
    for (const lease of ['soon', -5, true, '400d']) expect(refusal({lease, operations: [{op: 'claim', id: 'x'}]}).code).toBe('bad_batch')
    expect(refusal({ops: []}).code).toBe('bad_batch')
  })
})
