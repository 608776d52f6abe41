/**
 * The open rows as the index cache file packs them (`encodeOpenRows`, read
 * back by `ColumnOpenRows`): every row reads back field for field as the
 * rows it was written from, through the columns (what `list` reads) and as
 * rows (what the overlay reads), whatever the ids, times, people and lease
 * texts; and the state read from the columns is `openRowState`'s.
 */
import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {type OpenRow, type OpenRows, openRowColumns} from '../../src/core/snapshot'
import {openRowState, openRowStateAt} from '../../src/core/readiness'
import {DEFAULT_CONFIG} from '../../src/core/task'
import {ColumnOpenRows, encodeOpenRows} from '../../src/refstore/task-index'

const idArb = fc.oneof(fc.stringMatching(/^tsk-[0-9a-z]{10}$/), fc.stringMatching(/^tsk-[0-9a-z]{10,16}$/))
const timeArb = fc.integer({min: 0, max: 4_102_444_800_000}).map((ms) => new Date(ms).toISOString())
const leaseArb = fc.oneof(
  fc.constant(''),
  timeArb,
  // Texts that are not the canonical form: no milliseconds, no zone, garbage, a time before 1970.
  timeArb.map((t) => t.replace(/\.\d{3}Z$/, 'Z')),
  timeArb.map((t) => t.slice(0, 19)),
  fc.constant('soon'),
  fc.constant('1969-12-31T23:59:59.999Z'),
)
const personArb = fc.constantFrom('', 'alice', 'bob', 'carol@example.com', 'agent-1')

const rowsArb = fc.array(
  fc.record({
    id: idArb,
    status: fc.constantFrom('todo', 'in_progress', 'blocked'),
    priority: fc.integer({min: 0, max: 4}),
    created: fc.oneof(timeArb, timeArb.map((t) => t.replace(/\.\d{3}Z$/, 'Z'))),
    parent: fc.nat(),
    hasParent: fc.integer({min: 0, max: 3}),
    owner: personArb,
    assignee: personArb,
    lease: leaseArb,
    flags: fc.integer({min: 0, max: 3}),
    titleHash: fc.integer({min: -(2 ** 31), max: 2 ** 31 - 1}),
  }),
  {maxLength: 60},
)

type Raw = {id: string; status: string; priority: number; created: string; parent: number; hasParent: number; owner: string; assignee: string; lease: string; flags: number; titleHash: number; wake?: number}

function toOpenRows(rs: Raw[]): OpenRows {
  // Unique ids; a parent is another row (open) or an id not among the rows (a finished parent).
  const seen = new Set<string>()
  const unique = rs.filter((r) => !seen.has(r.id) && seen.add(r.id))
  const rows: OpenRow[] = unique.map((r) => {
    const parent = r.hasParent === 0 ? '' : r.hasParent === 1 ? 'tsk-notopen000' : (unique[r.parent % unique.length]!.id === r.id ? '' : unique[r.parent % unique.length]!.id)
    return [r.id, r.status, r.priority, r.created, parent, r.owner, r.assignee, r.lease, r.flags, r.titleHash, r.wake ?? Number.NEGATIVE_INFINITY] as OpenRow
  })
  return {rows, finished: unique.length, broken: ['tsk-broken0000']}
}

describe('open rows packed in the cache file', () => {
  it('read back as the rows they were written from, by column and by row', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({min: 0, max: 4_102_444_800_000}), personArb, (rs, nowMs, actor) => {
        const open = toOpenRows(rs)
        const read = new ColumnOpenRows(JSON.parse(JSON.stringify(encodeOpenRows(open))))
        expect([...read.rows]).toEqual([...open.rows])
        expect(read.finished).toBe(open.finished)
        expect([...read.broken]).toEqual([...open.broken])
        const want = openRowColumns(open)
        const got = openRowColumns(read)
        expect(got.length).toBe(want.length)
        const out = [false]
        for (let i = 0; i < want.length; i++) {
          const fields = (c: typeof want) => [c.id(i), c.status(i), c.priority(i), c.created(i), c.owner(i), c.assignee(i), c.leaseEnd(i), c.flags(i), c.parentRow(i), c.parent(i), c.leaseText(i), c.titleHash(i)]
          expect(fields(got)).toEqual(fields(want))
          const state = openRowStateAt(got, i, actor || undefined, nowMs, DEFAULT_CONFIG, out)
          expect({state, ready: out[0]}).toEqual(openRowState(open.rows[i]!, actor || undefined, nowMs, DEFAULT_CONFIG))
        }
        // Written again from what was read, the line is the same.
        expect(JSON.stringify(encodeOpenRows(read))).toBe(JSON.stringify(encodeOpenRows(open)))
      }),
      {numRuns: 300},
    )
  })

  it('a line that does not fit its counts is damage, not a wrong answer', () => {
    const good = encodeOpenRows(toOpenRows([{id: 'tsk-aaaaaaaaaa', status: 'todo', priority: 1, created: '2026-01-01T00:00:00.000Z', parent: 0, hasParent: 0, owner: '', assignee: '', lease: '', flags: 0, titleHash: -5}]))
    expect(() => new ColumnOpenRows({...good, packed: good.packed.slice(4)})).toThrow(/damaged/)
    expect(() => new ColumnOpenRows({...good, people: []})).toThrow(/damaged/)
    expect(() => new ColumnOpenRows({...good, n: 2})).toThrow(/damaged/)
    expect(() => new ColumnOpenRows({...good, ids: 'tsk-aaaaaaaaa'})).toThrow(/damaged/)
    // A line of format 9 (four words a row, no title hash) does not fit the counts either.
    const bytes = Buffer.from(good.packed, 'base64')
    expect(bytes.length).toBe(4 + 5 * 4)
    expect(() => new ColumnOpenRows({...good, packed: bytes.subarray(0, 4 + 4 * 4).toString('base64')})).toThrow(/damaged/)
  })

  it('a row costs 4 bytes more in `packed` for its title hash, and keeps it', () => {
    const rows = (k: number) => toOpenRows(Array.from({length: k}, (_, i) => ({id: `tsk-${String(i).padStart(10, '0')}`, status: 'todo', priority: 1, created: '2026-01-01T00:00:00.000Z', parent: 0, hasParent: 0, owner: '', assignee: '', lease: '', flags: 0, titleHash: Math.imul(i, 0x9e3779b1)})))
    const bytesOf = (k: number) => Buffer.from(encodeOpenRows(rows(k)).packed, 'base64').length
    // Per row: the status byte and five 32-bit words (priority, owner, assignee, parent row, title hash).
    expect(bytesOf(400) - bytesOf(200)).toBe(200 * 21)
    const read = new ColumnOpenRows(JSON.parse(JSON.stringify(encodeOpenRows(rows(50)))))
    for (let i = 0; i < 50; i++) expect(read.titleHash(i)).toBe(Math.imul(i, 0x9e3779b1))
  })
})
