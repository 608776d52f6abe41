/**
 * The byte readers under the streamed listing (src/app/list-stream.ts):
 * values of a frontmatter array found in its JSON text, and a finished
 * item's priority and creation time read from the bytes, must agree with
 * JSON.parse for any text a value can hold (quotes, backslashes, commas and
 * brackets inside strings, non-ASCII, control characters).
 */
import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {IdBytes, createdText, finishedKey, setCreated, sortFinished, splitArray} from '../../src/app/list-stream'
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

  it('sortFinished orders finished rows as comparing (status, priority, creation time, id) does', () => {
    // Creation times the usual way (sorted by one number a row), near it (other digits, other widths), and odd ones.
    const usual = fc
      .tuple(fc.oneof(fc.integer({min: 2025, max: 2027}), fc.integer({min: 0, max: 9999})), fc.integer({min: 0, max: 99}), fc.integer({min: 0, max: 99}), fc.integer({min: 0, max: 99}), fc.integer({min: 0, max: 99}), fc.integer({min: 0, max: 99}), fc.integer({min: 0, max: 999}))
      .map(([y, mo, d, h, mi, s, ms]) => `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(ms).padStart(3, '0')}Z`)
    const near = fc.constantFrom('2026-11-30T23:50:49.453Z', '2026-11-30T23:50:49.453Z', '2026-11-30T23:50:49.454Z', '2026-12-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')
    const created = fc.oneof(usual, near, near, fc.constantFrom('2026-11-30T23:50:49Z', '2026-11-30', 'x', '', '2026-11-30T23:50:49.45Z', '2026-11-30T23:50:49.453+01:00'))
    const row = fc.record({done: fc.boolean(), priority: fc.integer({min: 0, max: 9}), created})
    fc.assert(
      fc.property(fc.array(row, {minLength: 0, maxLength: 60}), fc.boolean(), fc.nat(), fc.nat(), (rows, onlyUsual, changes, shift) => {
        const list = onlyUsual ? rows.map((r) => ({...r, created: /^\d{4}-/.test(r.created) && r.created.length === 24 ? r.created : '2026-01-01T00:00:00.000Z'})) : rows
        const n = list.length
        const changed = n === 0 ? 0 : changes % Math.min(n, 8)
        const status = new Uint8Array(n).map((_, i) => (list[i]!.done ? 4 : 5))
        const priority = Float64Array.from(list, (r) => r.priority)
        const createdAt = list.map((r) => r.created)
        // The file's lines have ids in line order (even numbers); the rows of changed tasks past them do not (odd).
        const base = n - changed
        const ids = list.map((_, i) => `tsk-${String(i < base ? 2 * i : 2 * (((i - base) * 7919 + shift) % n) + 1).padStart(6, '0')}`)
        const lines = [...ids.keys()]
        const expected = [...lines].sort((a, b) => status[a]! - status[b]! || priority[a]! - priority[b]! || (createdAt[a]! < createdAt[b]! ? -1 : createdAt[a]! > createdAt[b]! ? 1 : 0) || (ids[a]! < ids[b]! ? -1 : 1))
        const dates = new Int32Array(n)
        const times = new Int32Array(n)
        // As the listing keeps them: numbers for the usual form (which give the text back), the text for others.
        const odd = new Map<number, string>()
        createdAt.forEach((c, l) => {
          if (!setCreated(dates, times, l, c)) odd.set(l, c)
          else expect(createdText(dates[l]!, times[l]!)).toBe(c)
        })
        const facts = {status, priority, dates, times, createdOf: (l: number) => odd.get(l) ?? createdText(dates[l]!, times[l]!), idOf: (l: number) => ids[l]!, fileLines: base}
        expect([...sortFinished(Int32Array.from(lines).reverse(), facts)]).toEqual(expected)
      }),
      {numRuns: 1000},
    )
  })

  it('IdBytes finds, compares and gives back ids as a Map and strings do', () => {
    const id = fc.stringMatching(/^[a-z0-9-]{0,12}$/)
    fc.assert(
      fc.property(fc.uniqueArray(id, {maxLength: 80}), fc.array(fc.oneof(id, fc.string()), {maxLength: 20}), (raw, probes) => {
        const sorted = [...raw].sort()
        const table = new IdBytes(sorted.length > 3 ? 2 : sorted.length)
        for (const s of sorted) {
          const b = Buffer.from(`\t${s}\t`)
          expect(table.add(b, 1, b.length - 1)).toBe(true)
        }
        expect(table.add(Buffer.from('é'), 0, 2)).toBe(false)
        table.index()
        sorted.forEach((s, k) => {
          expect(table.string(k)).toBe(s)
          expect(table.length(k)).toBe(s.length)
          expect(table.find(s)).toBe(k)
          const b = Buffer.from(`x${s}y`)
          expect(table.findBytes(b, 1, b.length - 1)).toBe(k)
          if (k + 1 < sorted.length) {
            const next = sorted[k + 1]!
            let shared = 0
            while (shared < s.length && s[shared] === next[shared]) shared++
            expect(table.shared(k)).toBe(shared)
          }
        })
        for (const p of [...probes, ...sorted]) {
          expect(table.find(p)).toBe(sorted.indexOf(p))
          sorted.forEach((s, k) => expect(table.below(k, p)).toBe(s < p))
        }
      }),
      {numRuns: 300},
    )
  })
})
