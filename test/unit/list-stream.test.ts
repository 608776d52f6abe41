/**
 * The byte readers under the streamed listing (src/app/list-stream.ts):
 * values of a frontmatter array found in its JSON text, and a finished
 * item's priority and creation time read from the bytes, must agree with
 * JSON.parse for any text a value can hold (quotes, backslashes, commas and
 * brackets inside strings, non-ASCII, control characters).
 */
import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {finishedKey, splitArray} from '../../src/app/list-stream'
import {TASK_KEYS} from '../../src/core/task'

const text = fc.oneof(fc.string(), fc.string({unit: 'grapheme'}), fc.constantFrom('"', '\\', '\\"', '","', '[]', '{}', ',', '\\\\"', 'a\\', '\u2028', '\u0000'))
const value = fc.oneof(text, fc.constant(null), fc.integer({min: -5, max: 1e6}), fc.array(text, {maxLength: 3}), fc.dictionary(text, fc.oneof(text, fc.array(text))))

describe('frontmatter arrays read from their bytes', () => {
  it('splitArray gives each value as JSON.stringify wrote it', () => {
    fc.assert(
      fc.property(fc.array(value, {minLength: 1, maxLength: 34}), fc.string(), (values, prefix) => {
        const json = JSON.stringify(values)
        const buf = Buffer.from(`${prefix}${json}`)
        const from = Buffer.byteLength(prefix)
        const out = new Int32Array(2 * 40)
        const n = splitArray(buf, from, buf.length, out)
        expect(n).toBe(Math.min(values.length, 40))
        for (let k = 0; k < n; k++) expect(buf.toString('utf8', out[2 * k], out[2 * k + 1])).toBe(JSON.stringify(values[k]))
      }),
      {numRuns: 2000},
    )
  })

  it('finishedKey reads the priority and creation time, or declines (never a wrong answer)', () => {
    fc.assert(
      fc.property(fc.array(text, {minLength: TASK_KEYS.length, maxLength: TASK_KEYS.length}), fc.integer({min: 0, max: 9}), fc.nat(), fc.option(fc.dictionary(text, text), {nil: undefined}), (strings, priority, revision, extra) => {
        const values: unknown[] = [...strings]
        values[3] = priority
        values[TASK_KEYS.length - 1] = revision
        if (extra) values.push(extra)
        const buf = Buffer.from(`x\t${JSON.stringify(values)}`)
        const key = finishedKey(buf, 2, buf.length)
        if (key === null) expect(extra).toBeDefined()
        else expect(key).toEqual({priority, created: values[TASK_KEYS.indexOf('created_at')]})
      }),
      {numRuns: 2000},
    )
  })
})
