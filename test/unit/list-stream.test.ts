/**
 * The byte readers under the streamed listing (src/refstore/task-index/list-section-reader.ts):
 * values of a frontmatter array found in its JSON text, and a finished
 * item's priority and creation time read from the bytes, must agree with
 * JSON.parse for any text a value can hold (quotes, backslashes, commas and
 * brackets inside strings, non-ASCII, control characters); and the list
 * section's creation-time numbers and CRC-32 (src/refstore/list-section.ts).
 */
import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import * as zlib from 'node:zlib'
import {finishedKey, splitArray} from '../../src/refstore/task-index/list-section-reader'
import {createdNumbers, sectionCrc, tableCrc} from '../../src/refstore/list-section'
import {TASK_KEYS} from '../../src/core/task'

const text = fc.oneof(
  fc.string(),
  fc.string({unit: 'grapheme'}),
  fc.constantFrom('"', '\\', '\\"', '","', '[]', '{}', ',', '\\\\"', 'a\\', '\u2028', '\u0000'),
  // Longer texts with a quote or backslash anywhere: splitArray steps over text four bytes at a time.
  fc.string({minLength: 8, maxLength: 80}),
  fc.array(fc.constantFrom('a', 'b', '"', '\\', 'é', '\u0000', ' '), {maxLength: 40}).map((cs) => cs.join('')),
)
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
      fc.property(fc.array(text, {minLength: TASK_KEYS.length, maxLength: TASK_KEYS.length}), fc.integer({min: 0, max: 9}), fc.nat(), fc.option(fc.dictionary(text, text), {nil: undefined}), fc.option(fc.dictionary(text, text), {nil: undefined}), (strings, priority, revision, extra, fields) => {
        const values: unknown[] = [...strings]
        values[3] = priority
        const at = TASK_KEYS.indexOf('revision')
        values[at] = revision
        // The keys after the revision (custom fields) are null unless the card has them.
        for (let k = at + 1; k < TASK_KEYS.length; k++) values[k] = null
        if (fields) values[TASK_KEYS.indexOf('fields')] = fields
        if (extra) values.push(extra)
        const buf = Buffer.from(`x\t${JSON.stringify(values)}`)
        const key = finishedKey(buf, 2, buf.length)
        if (key === null) expect(extra !== undefined || fields !== undefined).toBe(true)
        else expect(key).toEqual({priority, created: values[TASK_KEYS.indexOf('created_at')]})
      }),
      {numRuns: 2000},
    )
  })

  it('creation times as two numbers compare as their text does; another form gives -1', () => {
    const usual = fc.date({min: new Date('1970-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true}).map((d) => d.toISOString())
    const created = fc.oneof(usual, usual, fc.constantFrom('2026-01-01T00:00:00Z', '+012026-01-01T00:00:00.000Z', '2026-01-01 00:00:00.000Z', 'x'), fc.string())
    fc.assert(
      fc.property(created, created, (a, b) => {
        const [da, ta] = createdNumbers(a)
        const [db, tb] = createdNumbers(b)
        if (da < 0 || db < 0) {
          // Only the usual form is read as numbers.
          for (const [t, d] of [[a, da], [b, db]] as const) if (d < 0) expect(t.length !== 24 || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(t)).toBe(true)
          return
        }
        const byText = a < b ? -1 : a > b ? 1 : 0
        const byNumbers = Math.sign(da - db || ta - tb)
        expect(byNumbers).toBe(byText)
      }),
      {numRuns: 3000},
    )
  })

  it("the list section's CRC-32 by table is zlib's, whole or in pieces", () => {
    fc.assert(
      fc.property(fc.uint8Array({maxLength: 3000}), fc.nat(), (data, cut) => {
        const at = data.length === 0 ? 0 : cut % data.length
        const whole = zlib.crc32(data)
        expect(tableCrc(data)).toBe(whole)
        expect(tableCrc(data.subarray(at), tableCrc(data.subarray(0, at)))).toBe(whole)
        expect(sectionCrc(data.subarray(at), sectionCrc(data.subarray(0, at)))).toBe(whole)
      }),
      {numRuns: 500},
    )
  })
})
